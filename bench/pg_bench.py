#!/usr/bin/env python3
"""The PostgreSQL engine against its anchors (bench/pg_tool.cc does the work).

Starts a throwaway PostgreSQL 15 server (tests/pg/server.sh: Debian's,
fsync on, Unix socket) in a temporary directory, gives each measurement a
database of its own, and prints markdown tables:

1. durable set and get of 1 KiB / 64 KiB / 4 MiB through ctxkit against a
   raw libpq INSERT / SELECT with the same durability (synchronous_commit
   on), interleaved call by call; goal ctxkit <= 1.3x at p50 (issue 40);
   twice: the engine's own work (Options::count_tokens_max_bytes = 0) and
   the library's default, whose set also counts the value's tokens;
2. throughput of 8 writers and of 8 readers (each its own Store), against
   the same on the embedded SQLite store;
3. cross-process visibility: commit on one Store to the change seen by
   another polling it, and to an MCP subscriber's notification on another
   (the LISTEN/NOTIFY wake-up), p50/p99;
4. bytes of table, TOAST and index pages the server touched (its
   statistics) to read 1 MiB from the middle of a 256 MiB value (goal <=
   2 MiB).

    python3 bench/pg_bench.py [BUILD_DIR] [ROUNDS] [setget]

("setget": the set and get tables only.)

Needs pg_tool: cmake --build --preset release --target pg_tool.
"""

import os
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
build = os.path.abspath(benchlib.arg(1, "build/release"))
rounds = benchlib.arg(2, 5, int)
only_setget = benchlib.arg(3, "") == "setget"
TOOL = os.path.join(build, "pg_tool")
SERVER = os.path.join(ROOT, "tests", "pg", "server.sh")


def us(ns):
    return f"{int(ns) / 1000:,.0f} µs" if int(ns) >= 10000 else \
        f"{int(ns) / 1000:.1f} µs"


def run_tool(*args):
    out = subprocess.run([TOOL, *args], check=True, capture_output=True,
                         text=True).stdout
    return [line.split() for line in out.splitlines() if line.strip()]


def setget_table(url, home, count_tokens_max_bytes, what):
    print("### Durable set and get: ctxkit on PostgreSQL vs raw libpq "
          f"({what})\n")
    print(f"Median of {rounds} rounds' p50 (range of the p50s).\n")
    print("| Size | Op | ctxkit | raw libpq | ratio |")
    print("|---|---|---:|---:|---:|")
    args = [url, home, str(rounds)]
    if count_tokens_max_bytes is not None:
        args.append(count_tokens_max_bytes)
    for row in run_tool("setget", *args):
        _, size, op, c, cmin, cmax, r, rmin, rmax = row
        print(f"| {size} | {op} | {us(c)} ({us(cmin)}–{us(cmax)}) | "
              f"{us(r)} ({us(rmin)}–{us(rmax)}) | "
              f"{int(c) / int(r):.2f}× |")
    print()


def main():
    tmp = benchlib.make_tmpdir("ctxkit-pgbench")
    os.chmod(tmp, 0o755)  # The server runs as user postgres when we are root.
    server_dir = os.path.join(tmp, "pg")
    subprocess.run(["bash", SERVER, "start", server_dir], check=True,
                   stdout=subprocess.DEVNULL)
    try:
        def url_of(name):
            subprocess.run(["createdb", "-h", server_dir, "-U", "ctxkit",
                            name], check=True)
            return f"postgresql:///{name}?host={server_dir}&user=ctxkit"

        setget_table(url_of("setget"), os.path.join(tmp, "home-setget"),
                     "0", "the engine's own work: no token count at set")
        setget_table(url_of("setget_tokens"),
                     os.path.join(tmp, "home-setget-tokens"), None,
                     "the library's default: set counts the value's tokens "
                     "before it returns")
        if only_setget:
            return

        print("\n### Throughput, 8 threads each with its own Store\n")
        print("| Load | PostgreSQL ops/s | SQLite ops/s |")
        print("|---|---:|---:|")
        for row in run_tool("throughput", url_of("throughput"),
                            os.path.join(tmp, "home-tp"),
                            os.path.join(tmp, "sqlite-tp"), "3"):
            _, what, _, pg, _, lite = row
            print(f"| 8 {what}, 1 KiB | {int(pg):,} | {int(lite):,} |")

        print("\n### Cross-process visibility\n")
        row = run_tool("visibility", url_of("visibility"),
                       os.path.join(tmp, "home-vis"), "200")[0]
        print("| From commit to seen by another Store | p50 | p99 |")
        print("|---|---:|---:|")
        print(f"| polling `Stat` | {us(row[2])} | {us(row[4])} |")
        row = run_tool("notify", url_of("notify"),
                       os.path.join(tmp, "home-notify"), "200")[0]
        print(f"| MCP subscription on another Store (LISTEN/NOTIFY; "
              f"from the writer's `Set` call) | {us(row[2])} | "
              f"{us(row[4])} |")

        print("\n### Range read of 1 MiB from the middle of 256 MiB\n")
        row = run_tool("range", url_of("range"),
                       os.path.join(tmp, "home-range"))[0]
        print("| Bytes of pages the server touched | Time |")
        print("|---:|---:|")
        print(f"| {int(row[2]):,} ({int(row[2]) / (1 << 20):.2f} MiB) | "
              f"{us(row[4])} |")
    finally:
        subprocess.run(["bash", SERVER, "stop", server_dir],
                       stdout=subprocess.DEVNULL)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
