"""Whole-process token counts of 10 MiB lines without a space, as a user
runs them: `ctxkit tokens --file LINE` for each ctxkit binary given, in
turn, round after round; prints the median and range of wall time.

  python3 bench/long_lines.py ROUNDS CTXKIT...

The lines (10,485,760 bytes each, written to a temporary directory):
random lowercase letters, digits, base64, one letter repeated, '='
repeated.
"""

import os
import random
import shutil
import statistics
import sys

import benchlib

SIZE = 10 << 20
B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def lines():
    rng = random.Random(7)
    return [
        ("random letters",
         "".join(rng.choice("abcdefghijklmnopqrstuvwxyz")
                 for _ in range(SIZE))),
        ("digits", "".join(rng.choice("0123456789") for _ in range(SIZE))),
        ("base64", "".join(rng.choice(B64) for _ in range(SIZE))),
        ("one letter repeated", "a" * SIZE),
        ("'=' repeated", "=" * SIZE),
    ]


def main():
    rounds, binaries = int(sys.argv[1]), sys.argv[2:]
    tmp = benchlib.make_tmpdir("ctxkit_long_lines_")
    try:
        paths = []
        for name, text in lines():
            path = os.path.join(tmp, "%d.txt" % len(paths))
            with open(path, "w") as f:
                f.write(text)
            paths.append((name, path))
        times = {}
        for _ in range(rounds):
            for name, path in paths:
                for binary in binaries:
                    ms = benchlib.timed([binary, "tokens", "--file", path])
                    times.setdefault((name, binary), []).append(ms)
        print("| line | binary | wall ms, median (range) |")
        print("|---|---|---:|")
        for name, _ in paths:
            for binary in binaries:
                v = times[(name, binary)]
                print("| %s | %s | %.0f (%.0f-%.0f) |" %
                      (name, binary, statistics.median(v), min(v), max(v)))
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
