#!/usr/bin/env python3
"""Whole-process cost of `ctxkit watch add` on a new tree of small files.

Makes FILES files of about 400 bytes in 100 directories, then runs `watch
add` on a fresh store ROUNDS times, interleaved with the same command of a
BASELINE_BINARY (an earlier build) when given. Prints the median and
min-max wall time in seconds as a markdown table.

  python3 bench/watch_add.py [CTXKIT_BINARY] [FILES] [ROUNDS] [BASELINE_BINARY]

Defaults: build/release/ctxkit, 10000 files, 3 rounds. Files live in a
temporary directory under $CTXKIT_BENCH_TMPDIR (else $TMPDIR, else /tmp).
"""

import os
import shutil
import statistics
import subprocess
import time

from benchlib import arg, make_tmpdir


def make_tree(root, files):
    per_dir = max(1, files // 100)
    for i in range(files):
        d = os.path.join(root, f"d{i // per_dir}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"f{i}.txt"), "w") as f:
            f.write(f"file {i}\n" + "some content line\n" * 20)


def main():
    binary = arg(1, "build/release/ctxkit")
    files = arg(2, 10000, int)
    rounds = arg(3, 3, int)
    baseline = arg(4, None)
    tmp = make_tmpdir("ctxkit-watch-")
    try:
        tree = os.path.join(tmp, "tree")
        make_tree(tree, files)
        builds = {"ctxkit": binary}
        if baseline:
            builds["baseline"] = baseline
        times = {name: [] for name in builds}
        for r in range(rounds):
            for name, exe in builds.items():
                home = os.path.join(tmp, f"store-{name}-{r}")
                start = time.perf_counter()
                subprocess.run([exe, "--home", home, "watch", "add", tree],
                               stdout=subprocess.DEVNULL, check=True)
                times[name].append(time.perf_counter() - start)
                shutil.rmtree(home)
        print(f"| watch add, {files} new files, {rounds} interleaved rounds "
              "| median s | min-max s |")
        print("|---|---:|---:|")
        for name, ts in times.items():
            ts.sort()
            print(f"| {name} | {statistics.median(ts):.2f} | "
                  f"{ts[0]:.2f}-{ts[-1]:.2f} |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
