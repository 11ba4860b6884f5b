#!/usr/bin/env python3
"""Whole-process literal search over many values: `ctxkit search` over a
store of VALUES values of 1 MiB against `rg` over the same bytes as VALUES
files, with its default threads and with one (`-j1`).

The text is log-like lines (a timestamp and 4-13 words, about 80 bytes a
line) with a rare needle; every value is different. Each command runs
ROUNDS times, interleaved (one of each per round, in a rotating order, so a
noisy machine affects all alike); output goes to /dev/null. Before timing,
each command runs once with its output kept, and the number of matching
lines must agree. Prints a markdown table: median and min-max of wall time
and of CPU time (user + system of the process) in milliseconds, and the
ratio of the median wall time to `rg` with its default threads.

  python3 bench/search_values.py [CTXKIT_BINARY] [VALUES] [ROUNDS] [BEFORE]

Defaults: build/release/ctxkit, 512 values, 7 rounds. BEFORE, another
ctxkit binary (an earlier build), is timed in the same rounds on the same
store. Files live in a
temporary directory under $CTXKIT_BENCH_TMPDIR (else $TMPDIR, else /tmp),
which needs about 2x VALUES MiB free.
"""

import os
import random
import shutil
import statistics
import subprocess

from benchlib import arg, make_tmpdir, timed_cpu

NEEDLE = "needle-xyzzy"
WORDS = ["request", "served", "user", "cache", "miss", "latency", "ms",
         "GET", "POST", "/api/v1", "status", "200", "retry", "queue",
         "worker", "done", "timeout", "upstream", "session", "token"]


def line_pool(rng, count):
    """`count` distinct log-like lines (with their newline)."""
    pool = []
    for _ in range(count):
        words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 13)))
        pool.append(f"2024-05-01T12:{rng.randrange(60):02d}:"
                    f"{rng.randrange(60):02d}.{rng.randrange(1000):03d} "
                    f"{words}\n")
    return pool


def write_values(directory, values, seed=40):
    """VALUES files of exactly 1 MiB, each its own sample of the pool, a
    needle on about one line in 20,000."""
    rng = random.Random(seed)
    pool = line_pool(rng, 50000)
    for i in range(values):
        lines = [f"value {i} of {values}\n"]
        size = len(lines[0])
        while size < 1 << 20:
            line = rng.choice(pool)
            if rng.randrange(20000) == 0:
                line = line[:-1] + f" {NEEDLE} error 504\n"
            lines.append(line)
            size += len(line)
        text = "".join(lines).encode()[:1 << 20]
        with open(os.path.join(directory, f"{i:04d}.log"), "wb") as f:
            f.write(text[:-1] + b"\n")


def matching_lines(argv):
    out = subprocess.run(argv, stdout=subprocess.PIPE, check=True).stdout
    return sum(1 for line in out.splitlines() if NEEDLE.encode() in line)


def main():
    binary = os.path.abspath(arg(1, "build/release/ctxkit"))
    values = arg(2, 512, int)
    rounds = arg(3, 7, int)
    before = arg(4, None)
    tmp = make_tmpdir("ctxkit-search-")
    try:
        files = os.path.join(tmp, "files")
        os.mkdir(files)
        write_values(files, values)
        home = os.path.join(tmp, "store")
        for name in sorted(os.listdir(files)):
            subprocess.run([binary, "--home", home, "set", f"logs/{name}",
                            "--file", os.path.join(files, name)],
                           stdout=subprocess.DEVNULL, check=True)
        commands = [
            ("ctxkit search", [binary, "--home", home, "search", "--max",
                               "1000000", NEEDLE]),
            ("rg (default threads)", ["rg", "-n", "--no-heading", "-F",
                                      NEEDLE, files]),
            ("rg -j1", ["rg", "-n", "--no-heading", "-j1", "-F", NEEDLE,
                        files]),
        ]
        if before:
            commands.insert(1, ("ctxkit search (before)",
                                [os.path.abspath(before)] +
                                commands[0][1][1:]))
            # Every field of the result, counts included, must agree.
            same = [subprocess.run(argv[:1] + ["--json"] + argv[1:],
                                   stdout=subprocess.PIPE, check=True).stdout
                    for _, argv in commands[:2]]
            if same[0] != same[1]:
                raise SystemExit("the two ctxkit builds give different "
                                 "results")
        counts = {label: matching_lines(argv) for label, argv in commands}
        if len(set(counts.values())) != 1:
            raise SystemExit(f"the matches differ: {counts}")
        results = {label: [] for label, _ in commands}
        for r in range(rounds):
            shift = r % len(commands)
            for label, argv in commands[shift:] + commands[:shift]:
                results[label].append(timed_cpu(argv))
        anchor = statistics.median(
            w for w, _ in results["rg (default threads)"])
        print(f"| {values} values of 1 MiB, {rounds} interleaved rounds, "
              f"{counts['rg -j1']} matches | wall ms, median | min-max | "
              "CPU ms, median | min-max | × rg wall |")
        print("|---|---:|---:|---:|---:|---:|")
        for label, _ in commands:
            wall = sorted(w for w, _ in results[label])
            cpu = sorted(c for _, c in results[label])
            print(f"| {label} | {statistics.median(wall):.0f} | "
                  f"{wall[0]:.0f}-{wall[-1]:.0f} | "
                  f"{statistics.median(cpu):.0f} | "
                  f"{cpu[0]:.0f}-{cpu[-1]:.0f} | "
                  f"{statistics.median(wall) / anchor:.2f} |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
