#!/usr/bin/env python3
"""find's index build against plain SQLite FTS5, whole processes, interleaved.

    python3 bench/index_build.py BUILD_DIR [N] [ROUNDS] [BASELINE_BUILD_DIR]
        [MIN_WORDS]

Makes a store of N objects (bench/scale_store_tool: ~300-byte values, one
256-token chunk each; MIN_WORDS 26 makes ~200-byte values), then ROUNDS
times, alternating: deletes index.db and times the first `ctxkit find`
(which builds the index), and times `sqlite3` building plain FTS5 with find's tokenizer over the same values in one
transaction (the anchor scale.py uses), once keeping the text (FTS5's
default) and once contentless. With BASELINE_BUILD_DIR, that build's
`ctxkit` builds the index too, in the same rounds. Prints median and range
of each, their ratio, the peak size of index.db's WAL during the builds,
and the sizes of index.db and the anchors against the indexed text. Wall
times and CPU times (user + sys of the process; steadier on a shared
machine) are reported in tables of the same form.
"""

import os
import resource
import shutil
import sqlite3
import statistics
import subprocess
import threading
import time

from benchlib import arg, make_tmpdir, timed

TOKENIZER = "tokenize = 'porter unicode61 remove_diacritics 2'"
PLAIN = ("ATTACH '%s' AS s; BEGIN; CREATE VIRTUAL TABLE f USING fts5(text, "
         "%s%s); INSERT INTO f(text) SELECT CAST(data AS TEXT) "
         "FROM s.inline_contents; COMMIT;")


class WalWatch:
    """Polls a file's size on a thread; `peak` is the largest seen."""

    def __init__(self, path):
        self.path, self.peak, self.stop = path, 0, False
        self.thread = threading.Thread(target=self.run)

    def run(self):
        while not self.stop:
            try:
                self.peak = max(self.peak, os.path.getsize(self.path))
            except OSError:
                pass
            time.sleep(0.05)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop = True
        self.thread.join()


def remove(*paths):
    for p in paths:
        if os.path.exists(p):
            os.remove(p)


def children_cpu_ms():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r.ru_utime + r.ru_stime) * 1000.0


class Runs:
    """Wall and CPU milliseconds of each kind of run."""

    def __init__(self):
        self.wall = {k: [] for k in ("ctxkit", "plain", "contentless",
                                     "baseline")}
        self.cpu = {k: [] for k in self.wall}

    def time(self, kind, argv):
        before = children_cpu_ms()
        self.wall[kind].append(timed(argv))
        self.cpu[kind].append(children_cpu_ms() - before)


def print_times(what, times, n, rounds, wal_peak, baseline):
    c = summary(times["ctxkit"])
    print("| objects | rounds | ctxkit index build %s | plain FTS5 %s | "
          "contentless FTS5 %s | ctxkit / plain | ctxkit / contentless | "
          "index.db WAL peak MiB |" % (what, what, what))
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    cells = []
    for kind in ("ctxkit", "plain", "contentless"):
        med, lo, hi = summary(times[kind])
        cells.append("%.2f (%.2f–%.2f)" % (med, lo, hi))
    ratios = ["%.2f×" % (c[0] / summary(times[k])[0])
              for k in ("plain", "contentless")]
    print("| %s | %d | %s | %s | %.1f |" % (f"{n:,}", rounds, " | ".join(cells),
                                           " | ".join(ratios),
                                           wal_peak / (1 << 20)))
    if baseline:
        med, lo, hi = summary(times["baseline"])
        print("\nbaseline build (%s): %.2f %s (%.2f–%.2f), this build / "
              "baseline %.2f×, baseline / plain %.2f×" % (
                  baseline, med, what, lo, hi, c[0] / med,
                  med / summary(times["plain"])[0]))
    print()


def summary(ms):
    s = sorted(x / 1000.0 for x in ms)
    return statistics.median(s), s[0], s[-1]


def main():
    build = arg(1, "build/release")
    n = arg(2, 100000, int)
    rounds = arg(3, 5, int)
    baseline = arg(4, "")
    min_words = arg(5, "40")
    ctxkit = os.path.join(build, "ctxkit")
    tmp = make_tmpdir("ctxkit-index-build-")
    try:
        home = os.path.join(tmp, "home")
        subprocess.run([os.path.join(build, "scale_store_tool"), home, str(n),
                        min_words],
                       check=True, stdout=subprocess.DEVNULL)
        store_db = os.path.join(home, "ctxkit.db")
        index = os.path.join(home, "index.db")
        plain = os.path.join(tmp, "plain.db")
        runs = Runs()
        wal_peak = 0
        for _ in range(rounds):
            if baseline:
                remove(index, index + "-wal", index + "-shm")
                runs.time("baseline", [
                    os.path.join(baseline, "ctxkit"), "--home", home, "find",
                    "anchor"])
            remove(index, index + "-wal", index + "-shm")
            with WalWatch(index + "-wal") as watch:
                runs.time("ctxkit", [ctxkit, "--home", home, "find",
                                     "anchor"])
            wal_peak = max(wal_peak, watch.peak)
            for kind, extra in (("plain", ""), ("contentless", ", content=''")):
                remove(plain)
                runs.time(kind, ["sqlite3", plain, PLAIN % (
                    store_db, TOKENIZER, extra)])
        index_bytes = sum(os.path.getsize(p) for p in (index, index + "-wal")
                          if os.path.exists(p))
        plain_bytes = os.path.getsize(plain)  # The contentless one, last.
        remove(plain)
        subprocess.run(["sqlite3", plain, PLAIN % (store_db, TOKENIZER, "")],
                       check=True)
        with_text_bytes = os.path.getsize(plain)
        con = sqlite3.connect(store_db)
        text_bytes = con.execute(
            "SELECT sum(length(data)) FROM inline_contents").fetchone()[0]
        con.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    mib = 1 << 20
    print_times("s", runs.wall, n, rounds, wal_peak, baseline)
    print_times("CPU s", runs.cpu, n, rounds, wal_peak, baseline)
    print("| indexed text MiB | index.db MiB | plain FTS5 MiB | "
          "contentless FTS5 MiB | index.db / text |")
    print("|---:|---:|---:|---:|---:|")
    print("| %.1f | %.1f | %.1f | %.1f | %.2f× |" % (
        text_bytes / mib, index_bytes / mib, with_text_bytes / mib,
        plain_bytes / mib, index_bytes / text_bytes))


if __name__ == "__main__":
    main()
