"""Runs Google Benchmark binaries in turn, round after round, and prints
each benchmark's median and range of wall and CPU time per binary, so that
builds compared on a shared, noisy machine see the same moments of it.

  python3 bench/bench_alternate.py ROUNDS FILTER BINARY...

Each round runs every binary once with --benchmark_filter=FILTER, in the
order given. Times are milliseconds.
"""

import json
import statistics
import subprocess
import sys

_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}


def run(binary, pattern):
    """(name, wall ms, cpu ms) of each benchmark of one run."""
    out = subprocess.run(
        [binary, "--benchmark_filter=" + pattern, "--benchmark_format=json"],
        capture_output=True, text=True, check=True).stdout
    for bench in json.loads(out)["benchmarks"]:
        scale = _MS[bench.get("time_unit", "ns")]
        yield (bench["name"], bench["real_time"] * scale,
               bench["cpu_time"] * scale)


def spread(values):
    return "%.1f (%.1f-%.1f)" % (statistics.median(values), min(values),
                                 max(values))


def main():
    rounds, pattern, binaries = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    times = {}
    for _ in range(rounds):
        for binary in binaries:
            for name, wall, cpu in run(binary, pattern):
                entry = times.setdefault((name, binary), ([], []))
                entry[0].append(wall)
                entry[1].append(cpu)
    names = sorted({name for name, _ in times})
    print("| benchmark | binary | wall ms, median (range) | CPU ms |")
    print("|---|---|---:|---:|")
    for name in names:
        for binary in binaries:
            if (name, binary) in times:
                wall, cpu = times[(name, binary)]
                print("| %s | %s | %s | %s |" %
                      (name, binary, spread(wall), spread(cpu)))


if __name__ == "__main__":
    main()
