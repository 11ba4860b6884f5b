#!/usr/bin/env python3
"""A render from a fresh process, whole process, with a large metadata pool.

Builds a store (through the Python package) holding OBJECTS small values,
all tracked by session s1, and a 40-message chat; then runs
`ctxkit render s1 --budget 100000 --no-record` ROUNDS times and prints the
median and range of wall time in milliseconds, and `sqlite3`'s point
lookup on the same store in the same rounds (interleaved) as the anchor of
what opening the store costs a process.

  python3 bench/fresh_render.py [BUILD_DIR] [OBJECTS] [ROUNDS]

Defaults: build/release, 100000 objects, 5 rounds. The store lives in a
temporary directory under $CTXKIT_BENCH_TMPDIR (else $TMPDIR, else /tmp).
"""

import os
import shutil
import statistics
import sys

from benchlib import arg, make_tmpdir, timed


def make_store(home, objects):
    import ctxkit  # noqa: E402 (from BUILD_DIR/python)

    store = ctxkit.Store(home)
    view = store.view()
    keys = []
    for start in range(0, objects, 1000):
        batch = [(f"vars/v{i:07d}", f"value {i} " * 10)
                 for i in range(start, min(objects, start + 1000))]
        view.set_many(batch)
        keys += [k for k, _ in batch]
    session = ctxkit.Session.create(store, "s1")
    session.track(keys)
    messages = [{"role": "system", "content": "You are an agent."}]
    for t in range(20):
        messages += [{"role": "user", "content": f"question {t}"},
                     {"role": "assistant", "content": f"answer {t}"}]
    session.ingest(messages)


def main():
    build = arg(1, "build/release")
    objects = arg(2, 100000, int)
    rounds = arg(3, 5, int)
    sys.path.insert(0, os.path.join(build, "python"))
    binary = os.path.join(build, "ctxkit")
    tmp = make_tmpdir("ctxkit-fresh-render-")
    try:
        home = os.path.join(tmp, "store")
        make_store(home, objects)
        render = [binary, "--home", home, "render", "s1", "--budget",
                  "100000", "--no-record"]
        lookup = ["sqlite3", os.path.join(home, "ctxkit.db"),
                  "SELECT count(*) FROM objects WHERE id = 1"]
        times = {"render": [], "sqlite3": []}
        for _ in range(rounds):
            times["render"].append(timed(render))
            times["sqlite3"].append(timed(lookup))
        print(f"| {objects} tracked objects, {rounds} rounds | median ms "
              "| min-max ms |")
        print("|---|---:|---:|")
        for name, values in times.items():
            print(f"| {name} | {statistics.median(values):.1f} "
                  f"| {min(values):.1f}-{max(values):.1f} |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
