"""What the whole-process benchmark scripts in bench/ share."""

import os
import subprocess
import sys
import tempfile
import time


def arg(index, default, cast=str):
    """Positional argument `index` (1-based) cast, or `default`."""
    return cast(sys.argv[index]) if len(sys.argv) > index else default


def make_tmpdir(prefix):
    """A new directory under $CTXKIT_BENCH_TMPDIR, else $TMPDIR, else /tmp;
    the caller removes it."""
    base = (os.environ.get("CTXKIT_BENCH_TMPDIR") or
            os.environ.get("TMPDIR") or "/tmp")
    return tempfile.mkdtemp(prefix=prefix, dir=base)


def timed(argv, stdin_path=None, env=None):
    """Wall milliseconds of one whole process; it must exit 0."""
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    start = time.perf_counter()
    subprocess.run(argv, stdin=stdin, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True, env=env)
    elapsed = time.perf_counter() - start
    if stdin_path:
        stdin.close()
    return elapsed * 1000.0


def percentile(sorted_values, fraction):
    """The value at `fraction` (0-1) of a sorted list (nearest rank)."""
    i = min(len(sorted_values) - 1, int(len(sorted_values) * fraction))
    return sorted_values[i]


def timed_cpu(argv):
    """Wall and CPU (user + system) milliseconds of one whole process,
    output to /dev/null; it must exit 0."""
    with open(os.devnull, "wb") as null:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=null,
                                stderr=null)
        _, status, usage = os.wait4(proc.pid, 0)
        elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"{argv} failed ({proc.returncode})")
    return elapsed * 1000.0, (usage.ru_utime + usage.ru_stime) * 1000.0
