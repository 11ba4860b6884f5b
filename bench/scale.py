#!/usr/bin/env python3
"""How ctxkit's commands grow with the store, from 10^3 to 10^6 objects.

For each store size N (objects of ~300 bytes under docs/<i>, made by
scale_store_tool), times whole processes, interleaved, ROUNDS times each:

  find     `ctxkit find QUERY`, for each of the tool's queries
  raw FTS5 the same match run by `sqlite3` straight on ctxkit's own index.db
           (`SELECT rowid, rank FROM chunk_text WHERE chunk_text MATCH ...
           ORDER BY rank LIMIT 5`): find's anchor
  get      `ctxkit get docs/<random>` (1 of N)
  set      `ctxkit set docs/new<i>` of 300 bytes, durable (fsync)
  ls       `ctxkit ls --prefix docs/4242` (a narrow listing)
  render   `ctxkit render S --budget 8000` of a session tracking 50 objects,
           5 of them active

Prints the time to make the store, the first find (which builds the
index) and a plain FTS5 build of the same values with the same tokenizer
(the index build's anchor), then p50 (p99) of each command per size, find's ratio to raw FTS5,
and the growth exponent k of each p50 from the smallest size to the largest
(t ~ N^k; 0 means independent of the store's size).

  python3 bench/scale.py [BUILD_DIR] [SIZES] [ROUNDS]

Defaults: build/release, 1000,10000,100000,1000000, 10 rounds. Stores live
under $CTXKIT_BENCH_TMPDIR (else $TMPDIR, else /tmp) and are removed.
"""

import math
import os
import random
import shutil
import subprocess
import time

from benchlib import arg, make_tmpdir, percentile, timed

OPS = ["find", "raw FTS5", "get", "set", "ls", "render"]


# The index build's anchor: plain FTS5 with find's tokenizer over the same
# values (each under find's 256-token chunk size, so one row each), in one
# transaction.
PLAIN_FTS5 = ("ATTACH '%s' AS s; BEGIN; CREATE VIRTUAL TABLE f USING fts5(text, "
              "tokenize = 'porter unicode61 remove_diacritics 2'); "
              "INSERT INTO f(text) SELECT CAST(data AS TEXT) "
              "FROM s.inline_contents; COMMIT;")


def fts_sql(query):
    terms = " OR ".join('"%s"' % w for w in query.split())
    return ("SELECT rowid, rank FROM chunk_text WHERE chunk_text MATCH '%s' "
            "ORDER BY rank LIMIT 5" % terms)


def make_session(ctxkit, home):
    run = lambda *a: subprocess.run([ctxkit, "--home", home, *a],
                                    stdout=subprocess.DEVNULL, check=True)
    run("session", "new", "s1")
    run("session", "track", "s1", *["docs/%d" % i for i in range(50)])
    for i in range(5):
        run("session", "activate", "s1", "docs/%d" % i)


def measure(build, home, n, rounds, queries, value_path):
    ctxkit = os.path.join(build, "ctxkit")
    start = time.perf_counter()
    subprocess.run([os.path.join(build, "scale_store_tool"), home, str(n)],
                   check=True)
    made = time.perf_counter() - start
    first = timed([ctxkit, "--home", home, "find", queries[0]]) / 1000.0
    plain = timed(["sqlite3", os.path.join(home, "plain-fts5.db"),
                   PLAIN_FTS5 % os.path.join(home, "ctxkit.db")]) / 1000.0
    make_session(ctxkit, home)
    index_db = os.path.join(home, "index.db")
    rng = random.Random(n)
    times = {op: [] for op in OPS}
    base = [ctxkit, "--home", home]
    for r in range(rounds):
        for q in queries:
            times["find"].append(timed(base + ["find", q]))
            times["raw FTS5"].append(timed(["sqlite3", index_db, fts_sql(q)]))
        times["get"].append(
            timed(base + ["get", "docs/%d" % rng.randrange(n)]))
        times["set"].append(timed(base + ["set", "docs/new%d" % r, "--file",
                                          value_path]))
        times["ls"].append(timed(base + ["ls", "--prefix", "docs/4242"]))
        times["render"].append(
            timed(base + ["render", "s1", "--budget", "8000"]))
    stats = {}
    for op, ts in times.items():
        ts.sort()
        stats[op] = (percentile(ts, 0.5), percentile(ts, 0.99))
    return {"n": n, "made": made, "first": first, "plain": plain,
            "stats": stats}


def main():
    build = arg(1, "build/release")
    sizes = [int(s) for s in arg(2, "1000,10000,100000,1000000").split(",")]
    rounds = arg(3, 10, int)
    queries = subprocess.run([os.path.join(build, "scale_store_tool"),
                              "--queries"], check=True, capture_output=True,
                             text=True).stdout.splitlines()
    tmp = make_tmpdir("ctxkit-scale-")
    rows = []
    try:
        value_path = os.path.join(tmp, "value")
        with open(value_path, "w") as f:
            f.write("a fresh value of about three hundred bytes. " * 7)
        for n in sizes:
            home = os.path.join(tmp, "n%d" % n)
            rows.append(measure(build, home, n, rounds, queries, value_path))
            shutil.rmtree(home)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("| objects | make store s | first find (index build) s | "
          "plain FTS5 build s | " +
          " | ".join("%s p50 (p99) ms" % op for op in OPS) +
          " | find / raw FTS5 p50 (p99) |")
    print("|---:|---:|---:|---:|" + "---:|" * len(OPS) + "---:|")
    for r in rows:
        s = r["stats"]
        cells = ["%.1f (%.1f)" % s[op] for op in OPS]
        ratio = "%.2f× (%.2f×)" % (s["find"][0] / s["raw FTS5"][0],
                                   s["find"][1] / s["raw FTS5"][1])
        print("| %s | %.1f | %.1f | %.1f | %s | %s |" % (
            f"{r['n']:,}", r["made"], r["first"], r["plain"],
            " | ".join(cells), ratio))
    if len(rows) > 1:
        a, b = rows[0], rows[-1]
        span = math.log(b["n"] / a["n"])
        print("\n| growth exponent k, p50 ~ N^k, %s → %s objects | %s |" % (
            f"{a['n']:,}", f"{b['n']:,}", " | ".join(OPS)))
        print("|---|" + "---:|" * len(OPS))
        print("| k | " + " | ".join(
            "%.2f" % (math.log(b["stats"][op][0] / a["stats"][op][0]) / span)
            for op in OPS) + " |")


if __name__ == "__main__":
    main()
