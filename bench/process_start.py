#!/usr/bin/env python3
"""Whole-process cost of one small CLI command against its anchors.

A user compares `ctxkit get` with `sqlite3` and `cat`, whole processes:
this runs each command ROUNDS times, interleaved (one of each per round,
so a noisy machine affects all alike), and prints the median and the
10th-90th percentile range of wall time, in milliseconds, as a markdown
table, with the ratio to sqlite3's median and the median (p10-p90) of
each round's own ratio to that round's sqlite3.

  python3 bench/process_start.py [CTXKIT_BINARY] [ROUNDS] [BASELINE_BINARY]

The sets are also compared with an `sqlite3` insert of the same 1 KiB
into a WAL database with synchronous=FULL, whole process.

Defaults: build/release/ctxkit, 200 rounds. BASELINE_BINARY (an earlier
build) adds its get and set, on a store of its own, to the same rounds. The store lives in a temporary
directory under $CTXKIT_BENCH_TMPDIR (else $TMPDIR, else /tmp).
"""

import os
import shutil
import statistics
import subprocess

from benchlib import arg, make_tmpdir, percentile, timed


def main():
    binary = arg(1, "build/release/ctxkit")
    rounds = arg(2, 200, int)
    tmp = make_tmpdir("ctxkit-start-")
    try:
        home = os.path.join(tmp, "store")
        value = os.path.join(tmp, "value")
        with open(value, "wb") as f:
            f.write(os.urandom(768).hex()[:1024].encode())
        subprocess.run([binary, "--home", home, "set", "k", "--file", value],
                       stdout=subprocess.DEVNULL, check=True)
        db = os.path.join(home, "ctxkit.db")
        # The anchor of `set`: the same 1 KiB into a key-value table of a
        # WAL database, synchronous=FULL (a durable commit, as ctxkit's).
        kv = os.path.join(tmp, "kv.db")
        subprocess.run(["sqlite3", kv, "PRAGMA journal_mode=WAL; CREATE "
                        "TABLE kv(k TEXT PRIMARY KEY, v BLOB)"],
                       stdout=subprocess.DEVNULL, check=True)
        baseline = arg(3, None)
        commands = {
            "ctxkit get (1 KiB)": [binary, "--home", home, "get", "k"],
            "ctxkit set (1 KiB, fsync)": [binary, "--home", home, "set", "k",
                                          "--file", value],
            "sqlite3 point lookup": [
                "sqlite3", db,
                "SELECT length(data) FROM inline_contents WHERE id = 1"],
            "sqlite3 insert (1 KiB, WAL, synchronous=FULL)": [
                "sqlite3", kv, "PRAGMA synchronous=FULL; INSERT OR REPLACE "
                f"INTO kv VALUES('k', readfile('{value}'))"],
            "cat (1 KiB file)": ["cat", value],
            # Process start alone: what each costs before any store work.
            "ctxkit --version": [binary, "--version"],
            "sqlite3 -version": ["sqlite3", "-version"],
        }
        if baseline:
            old_home = os.path.join(tmp, "baseline-store")
            subprocess.run([baseline, "--home", old_home, "set", "k",
                            "--file", value], stdout=subprocess.DEVNULL,
                           check=True)
            commands["baseline get (1 KiB)"] = [baseline, "--home", old_home,
                                                "get", "k"]
            commands["baseline set (1 KiB, fsync)"] = [
                baseline, "--home", old_home, "set", "k", "--file", value]
        times = {name: [] for name in commands}
        for _ in range(rounds):
            for name, argv in commands.items():
                times[name].append(timed(argv))
        anchor_times = times["sqlite3 point lookup"]
        anchor = statistics.median(anchor_times)
        print(f"| command ({rounds} interleaved runs) | median ms | "
              "p10-p90 ms | × sqlite3 | × sqlite3 by round, p10-p90 |")
        print("|---|---:|---:|---:|---:|")
        for name, ts in times.items():
            # Each round's own ratio: the two ran side by side, so a slow
            # moment of the machine slows both.
            paired = sorted(t / a for t, a in zip(ts, anchor_times))
            ts = sorted(ts)
            p10, p90 = percentile(ts, 0.1), percentile(ts, 0.9)
            med = statistics.median(ts)
            print(f"| {name} | {med:.2f} | {p10:.2f}-{p90:.2f} | "
                  f"{med / anchor:.2f} | {statistics.median(paired):.2f} "
                  f"({percentile(paired, 0.1):.2f}-{percentile(paired, 0.9):.2f}) |")
        # Each set against the durable insert, by round.
        inserts = times["sqlite3 insert (1 KiB, WAL, synchronous=FULL)"]
        print("\n| set (against the sqlite3 insert) | × insert | "
              "× insert by round, p10-p90 |\n|---|---:|---:|")
        for name, ts in times.items():
            if " set " not in f" {name} ":
                continue
            paired = sorted(t / a for t, a in zip(ts, inserts))
            print(f"| {name} | "
                  f"{statistics.median(ts) / statistics.median(inserts):.2f} "
                  f"| {statistics.median(paired):.2f} "
                  f"({percentile(paired, 0.1):.2f}-{percentile(paired, 0.9):.2f}) |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
