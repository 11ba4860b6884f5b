#!/usr/bin/env python3
"""Whole-process cost of a large value: `ctxkit set --file` against `cp` +
fsync, and `ctxkit get` against `cat`.

Each command runs ROUNDS times, interleaved (one of each per round, so a
noisy machine affects all alike). Prints, as a markdown table, the median
and min-max of wall time in seconds and of peak resident memory (as
/usr/bin/time reports it) in MiB, and the ratio of the medians to
the anchor. Output goes to /dev/null for both readers.

  python3 bench/large_values.py [CTXKIT_BINARY] [MIB] [ROUNDS]

Defaults: build/release/ctxkit, 1024 MiB, 5 rounds. Files live in a
temporary directory under $CTXKIT_BENCH_TMPDIR (else $TMPDIR, else /tmp),
which needs about 3x MIB free.
"""

import os
import shutil
import statistics
import subprocess
import tempfile
import time

from benchlib import arg, make_tmpdir


def run(argv):
    """Wall seconds and peak RSS (MiB) of one process. The RSS comes from
    /usr/bin/time: a child forked from this Python process would report
    Python's own RSS as its peak (it survives exec in ru_maxrss)."""
    with tempfile.NamedTemporaryFile("r") as report:
        start = time.perf_counter()
        with open(os.devnull, "wb") as null:
            proc = subprocess.run(
                ["/usr/bin/time", "-f", "%M", "-o", report.name] + argv,
                stdout=null, stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - start
        if proc.returncode != 0:
            raise SystemExit(f"{argv} failed ({proc.returncode}): "
                             f"{proc.stderr!r}")
        peak_kib = int(report.read().split()[-1])
    return elapsed, peak_kib / 1024.0


def write_text(path, mib):
    """MIB MiB of base64-looking text in 100-byte lines (realistic, and not
    compressible to nothing)."""
    block = os.urandom(3 << 20).hex().encode()
    lines = b"\n".join(block[i:i + 99] for i in range(0, len(block), 99))
    with open(path, "wb") as f:
        left = mib << 20
        while left > 0:
            piece = lines[:left]
            f.write(piece)
            left -= len(piece)


def main():
    binary = arg(1, "build/release/ctxkit")
    mib = arg(2, 1024, int)
    rounds = arg(3, 5, int)
    tmp = make_tmpdir("ctxkit-large-")
    try:
        src = os.path.join(tmp, "value")
        write_text(src, mib)
        home = os.path.join(tmp, "store")
        copy = os.path.join(tmp, "copy")
        # The store must exist before the first timed set, as cp's target
        # directory does.
        subprocess.run([binary, "--home", home, "set", "warm", "x"],
                       stdout=subprocess.DEVNULL, check=True)
        pairs = [
            ("set", [binary, "--home", home, "set", "big", "--file", src],
             "cp + sync", ["sh", "-c", f'cp "$0" "$1" && sync "$1"', src,
                           copy]),
            ("get", [binary, "--home", home, "get", "big"],
             "cat", ["cat", src]),
        ]
        results = {}
        for r in range(rounds):
            # New content each round (its first bytes), so every set writes
            # a new blob rather than finding the same one stored.
            with open(src, "r+b") as f:
                f.write(f"round {r:08d}\n".encode())
            for name, argv, anchor, anchor_argv in pairs:
                for label, cmd in ((f"ctxkit {name}", argv),
                                   (anchor, anchor_argv)):
                    results.setdefault(label, []).append(run(cmd))
                if os.path.exists(copy):
                    os.remove(copy)
        print(f"| {mib} MiB, {rounds} interleaved rounds | median s | "
              "min-max s | peak RSS MiB (median, max) | × anchor |")
        print("|---|---:|---:|---:|---:|")
        for name, _, anchor, _ in pairs:
            for label in (f"ctxkit {name}", anchor):
                ts = sorted(t for t, _ in results[label])
                rss = sorted(r for _, r in results[label])
                ratio = statistics.median(ts) / statistics.median(
                    [t for t, _ in results[anchor]])
                print(f"| {label} | {statistics.median(ts):.2f} | "
                      f"{ts[0]:.2f}-{ts[-1]:.2f} | "
                      f"{statistics.median(rss):.0f}, {rss[-1]:.0f} | "
                      f"{ratio:.2f} |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
