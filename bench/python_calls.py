#!/usr/bin/env python3
"""The Python package against its anchors, interleaved in one run.

1. set/get of 1 KiB: ctxkit's Python extension (in process) against the
   C++ API (bench/setget_tool, its own process on the same kind of store).
   Goal: Python <= 2x C++ at p50.
2. Helper calls on a 100 MB text value: peek of 10 lines, a literal search
   for a line near the end, len -- from Python (in process), through the
   CLI (one `ctxkit` process per call) and through MCP stdio (one
   `ctxkit mcp` process, one tools/call round trip per call). MCP has no
   len tool; `ctxkit len` and View.len are compared alone.
3. Small reads of the same 100 MB value from Python against reading the
   same text from a plain file (issue 40): View.peek of 10 lines,
   View.read_range of the first 800 bytes and View.stat, against the
   anchor `open()` + `itertools.islice` of 10 lines of a file holding the
   value's bytes (page cache warm for both). Interleaved call by call, one
   of each in turn. Goal: peek <= 2x the anchor at p50.

    python3 bench/python_calls.py [BUILD_DIR] [ROUNDS] [CALLS]

BUILD_DIR defaults to build/release (the package is imported from
BUILD_DIR/python). Prints markdown tables: median over rounds of each
round's p50 (and p99), with the range of the p50s, and the ratios.
"""

import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

build = os.path.abspath(benchlib.arg(1, "build/release"))
rounds = benchlib.arg(2, 5, int)
calls = benchlib.arg(3, 20, int)
sys.path.insert(0, os.path.join(build, "python"))
import ctxkit  # noqa: E402

CTXKIT = os.path.join(build, "ctxkit")
SETGET = os.path.join(build, "setget_tool")


def pctl(values, fraction):
    return benchlib.percentile(sorted(values), fraction)


def python_setget(view, n, prefix):
    value = b"x" * 1024
    set_ns, get_ns = [], []
    for i in range(n):
        start = time.perf_counter_ns()
        view.set(f"{prefix}{i}", value)
        set_ns.append(time.perf_counter_ns() - start)
    for i in range(n):
        start = time.perf_counter_ns()
        view.get(f"{prefix}{i}")
        get_ns.append(time.perf_counter_ns() - start)
    return [pctl(set_ns, .5), pctl(set_ns, .99), pctl(get_ns, .5), pctl(get_ns, .99)]


class McpClient:
    """One `ctxkit mcp` process spoken to over stdio (newline-delimited JSON-RPC)."""

    def __init__(self, home):
        self.proc = subprocess.Popen([CTXKIT, "--home", home, "--agent", "bench", "mcp"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "bench", "version": "1"}})
        self.notify("notifications/initialized")

    def notify(self, method):
        self.proc.stdin.write((json.dumps({"jsonrpc": "2.0", "method": method}) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        if "error" in reply or reply["result"].get("isError"):
            raise RuntimeError(f"{method}: {reply}")
        return reply

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def time_calls(fn, n):
    out = []
    for _ in range(n):
        start = time.perf_counter_ns()
        fn()
        out.append(time.perf_counter_ns() - start)
    return out


def main():
    for path in (CTXKIT, SETGET):
        if not os.access(path, os.X_OK):
            sys.exit(f"{path} missing: build the release preset first")
    tmp = benchlib.make_tmpdir("ctxkit-pycalls-")
    try:
        run(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


SMALL_READS = ("peek", "read_range", "stat", "anchor")


def small_reads(view, path, n):
    """Per-call ns of each small read, interleaved call by call."""
    def islice_file():
        with open(path) as f:
            return list(itertools.islice(f, 10))
    calls = {"peek": lambda: view.peek("big", 0, 10),
             "read_range": lambda: view.read_range("big", 0, 800),
             "stat": lambda: view.stat("big"),
             "anchor": islice_file}
    out = {name: [] for name in SMALL_READS}
    for _ in range(n):
        for name in SMALL_READS:
            start = time.perf_counter_ns()
            calls[name]()
            out[name].append(time.perf_counter_ns() - start)
    return out


def run(tmp):
    home = os.path.join(tmp, "store")
    store = ctxkit.Store(home)
    view = store.view(agent="bench")
    line = "2026-11-26T12:00:00Z worker-7 INFO request served in 12 ms path=/api/items\n"
    big = line * (100_000_000 // len(line))
    big += "2026-11-26T12:00:01Z worker-7 ERROR NEEDLE-4242 disk full\n" + line * 1000
    view.set("big", big)
    path = os.path.join(tmp, "big.txt")
    with open(path, "w") as f:
        f.write(big)
    del big
    small = {name: [] for name in SMALL_READS}
    cpp_home = os.path.join(tmp, "cpp")
    setget = {"python": [], "c++": []}
    helper = {(face, op): [] for face in ("python", "cli", "mcp")
              for op in ("peek", "search", "len")}
    mcp = McpClient(home)
    cli = [CTXKIT, "--home", home, "--agent", "bench"]
    for r in range(rounds):
        # 1. set/get, C++ then Python, fresh keys each round.
        out = subprocess.run([SETGET, cpp_home, "500", f"r{r}/"], check=True,
                             capture_output=True, text=True).stdout.split()
        setget["c++"].append([int(x) for x in out])
        setget["python"].append(python_setget(view, 500, f"r{r}/"))
        # 2. helpers, each face in turn.
        helper[("python", "peek")].append(time_calls(lambda: view.peek("big", 0, 10), calls))
        helper[("python", "search")].append(time_calls(
            lambda: view.search("NEEDLE-4242", keys=["big"], max_results=1), calls))
        helper[("python", "len")].append(time_calls(lambda: view.len("big"), calls))
        for name, ns in small_reads(view, path, 50 * calls).items():
            small[name].append(ns)
        helper[("cli", "peek")].append(
            [benchlib.timed(cli + ["peek", "big", "0", "10"]) * 1e6 for _ in range(calls)])
        helper[("cli", "search")].append(
            [benchlib.timed(cli + ["search", "-m", "1", "NEEDLE-4242", "big"]) * 1e6
             for _ in range(calls)])
        helper[("cli", "len")].append(
            [benchlib.timed(cli + ["len", "big"]) * 1e6 for _ in range(calls)])
        helper[("mcp", "peek")].append(time_calls(lambda: mcp.request(
            "tools/call", {"name": "peek", "arguments": {"key": "big", "start": 0, "end": 10}}),
            calls))
        helper[("mcp", "search")].append(time_calls(lambda: mcp.request(
            "tools/call", {"name": "search", "arguments": {
                "pattern": "NEEDLE-4242", "keys": ["big"], "max_results": 1}}), calls))
    mcp.close()
    report(setget, helper)
    report_small(small, 50 * calls)


def fmt(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1e3:.1f} µs"


def summary(p50s):
    return statistics.median(p50s), min(p50s), max(p50s)


def report(setget, helper):
    print(f"rounds: {rounds}; calls per face and round: {calls}; set/get: 500 each\n")
    print("| call | C++ p50 (range) | Python p50 (range) | Python / C++ | C++ p99 | Python p99 |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, col in (("set 1 KiB (durable)", 0), ("get 1 KiB", 2)):
        c = summary([r[col] for r in setget["c++"]])
        p = summary([r[col] for r in setget["python"]])
        c99 = statistics.median(r[col + 1] for r in setget["c++"])
        p99 = statistics.median(r[col + 1] for r in setget["python"])
        print(f"| {name} | {fmt(c[0])} ({fmt(c[1])}–{fmt(c[2])}) | {fmt(p[0])} "
              f"({fmt(p[1])}–{fmt(p[2])}) | {p[0] / c[0]:.2f}× | {fmt(c99)} | {fmt(p99)} |")
    print()
    print("| helper on a 100 MB value | Python p50 (range) | CLI p50 (range) | MCP stdio p50 "
          "(range) | CLI / Python | MCP / Python |")
    print("|---|---:|---:|---:|---:|---:|")
    for op in ("peek", "search", "len"):
        cells, med = [], {}
        for face in ("python", "cli", "mcp"):
            runs = helper[(face, op)]
            if not runs:
                cells.append("no tool")
                continue
            m, lo, hi = summary([pctl(r, .5) for r in runs])
            med[face] = m
            cells.append(f"{fmt(m)} ({fmt(lo)}–{fmt(hi)})")
        ratios = [f"{med[f] / med['python']:.0f}×" if f in med else "—" for f in ("cli", "mcp")]
        label = {"peek": "peek 10 lines", "search": "search, 1 hit near the end",
                 "len": "len (metadata)"}[op]
        print(f"| {label} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")


def report_small(small, n):
    print()
    print(f"{n} calls of each per round, interleaved call by call\n")
    print("| small read of the 100 MB value | p50 (range) | p99 | × anchor |")
    print("|---|---:|---:|---:|")
    anchor = summary([pctl(r, .5) for r in small["anchor"]])[0]
    labels = {"peek": "View.peek, 10 lines from the start",
              "read_range": "View.read_range, 800 B from the start",
              "stat": "View.stat",
              "anchor": "anchor: open() + islice, 10 lines of a file"}
    for name in SMALL_READS:
        m, lo, hi = summary([pctl(r, .5) for r in small[name]])
        p99 = statistics.median(pctl(r, .99) for r in small[name])
        print(f"| {labels[name]} | {fmt(m)} ({fmt(lo)}–{fmt(hi)}) | {fmt(p99)} | "
              f"{m / anchor:.2f}× |")


if __name__ == "__main__":
    main()
