#!/usr/bin/env python3
"""How `ctxkit find` grows with the store, against raw FTS5.

For each store size N (objects of ~300 bytes made by scale_store_tool),
times whole processes, interleaved: `ctxkit find QUERY` and the same
match run by `sqlite3` straight on ctxkit's own index.db (`SELECT rowid,
rank FROM chunk_text WHERE chunk_text MATCH ... ORDER BY rank LIMIT 5`),
for each of the tool's queries, ROUNDS times. Reports the time to make the
store and the first find (which builds the index), p50 and p99 of both
commands and their ratio, and the growth exponent of each from the
smallest size to the largest (t ~ N^k).

  python3 bench/scale.py [BUILD_DIR] [SIZES] [ROUNDS]

Defaults: build/release, 1000,10000,100000,1000000, 20 rounds. Stores
live under $CTXKIT_BENCH_TMPDIR (else $TMPDIR, else /tmp) and are removed.
"""

import math
import os
import shutil
import subprocess
import time

from benchlib import arg, make_tmpdir, percentile, timed


def fts_sql(query):
    terms = " OR ".join('"%s"' % w for w in query.split())
    return ("SELECT rowid, rank FROM chunk_text WHERE chunk_text MATCH '%s' "
            "ORDER BY rank LIMIT 5" % terms)


def measure(build, home, n, rounds, queries):
    ctxkit = os.path.join(build, "ctxkit")
    start = time.perf_counter()
    subprocess.run([os.path.join(build, "scale_store_tool"), home, str(n)],
                   check=True)
    made = time.perf_counter() - start
    first = timed([ctxkit, "--home", home, "find", queries[0]]) / 1000.0
    index_db = os.path.join(home, "index.db")
    ours, raw = [], []
    for _ in range(rounds):
        for q in queries:
            ours.append(timed([ctxkit, "--home", home, "find", q]))
            raw.append(timed(["sqlite3", index_db, fts_sql(q)]))
    ours.sort()
    raw.sort()
    return {"n": n, "made": made, "first": first,
            "ours": (percentile(ours, 0.5), percentile(ours, 0.99)),
            "raw": (percentile(raw, 0.5), percentile(raw, 0.99))}


def exponent(a, b, key):
    return (math.log(b[key][0] / a[key][0]) / math.log(b["n"] / a["n"]))


def main():
    build = arg(1, "build/release")
    sizes = [int(s) for s in arg(2, "1000,10000,100000,1000000").split(",")]
    rounds = arg(3, 20, int)
    queries = subprocess.run([os.path.join(build, "scale_store_tool"),
                              "--queries"], check=True, capture_output=True,
                             text=True).stdout.splitlines()
    tmp = make_tmpdir("ctxkit-scale-")
    rows = []
    try:
        for n in sizes:
            home = os.path.join(tmp, "n%d" % n)
            rows.append(measure(build, home, n, rounds, queries))
            shutil.rmtree(home)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("| objects | make store s | first find (index build) s | "
          "find p50 / p99 ms | raw FTS5 p50 / p99 ms | ratio p50 / p99 |")
    print("|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        o, f = r["ours"], r["raw"]
        print("| %s | %.1f | %.1f | %.1f / %.1f | %.1f / %.1f | "
              "%.2f× / %.2f× |" % (f"{r['n']:,}", r["made"], r["first"],
                                  o[0], o[1], f[0], f[1], o[0] / f[0],
                                  o[1] / f[1]))
    if len(rows) > 1:
        print("\nGrowth exponent k (p50 ~ N^k) from %s to %s objects: "
              "find %.2f, raw FTS5 %.2f" % (
                  f"{rows[0]['n']:,}", f"{rows[-1]['n']:,}",
                  exponent(rows[0], rows[-1], "ours"),
                  exponent(rows[0], rows[-1], "raw")))


if __name__ == "__main__":
    main()
