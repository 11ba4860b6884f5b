"""What the whole-process benchmark scripts in bench/ share."""

import os
import sys
import tempfile


def arg(index, default, cast=str):
    """Positional argument `index` (1-based) cast, or `default`."""
    return cast(sys.argv[index]) if len(sys.argv) > index else default


def make_tmpdir(prefix):
    """A new directory under $CTXKIT_BENCH_TMPDIR, else $TMPDIR, else /tmp;
    the caller removes it."""
    base = (os.environ.get("CTXKIT_BENCH_TMPDIR") or
            os.environ.get("TMPDIR") or "/tmp")
    return tempfile.mkdtemp(prefix=prefix, dir=base)
