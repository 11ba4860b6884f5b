"""`pip install .` from a checkout where setup has not run: the build
backend fails with a message that says what to run, and a failed
configure does not poison the next try (it used to leave
build/python-wheel/CMakeCache.txt without build.ninja, and every later
install failed with "ninja: error: loading 'build.ninja'")."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys

import pytest

SOURCE = pathlib.Path(__file__).resolve().parents[2]


def fresh_checkout(to: pathlib.Path) -> pathlib.Path:
    """The tracked files of the source tree, without what setup adds
    (node_modules/) or any build."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=SOURCE,
                            capture_output=True, timeout=60)
    if listed.returncode != 0:
        pytest.skip("the source tree is not a git checkout")
    for name in listed.stdout.decode().split("\0"):
        if name and (SOURCE / name).is_file():
            (to / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(SOURCE / name, to / name)
    return to


def build_wheel(checkout: pathlib.Path, out: pathlib.Path) -> \
        subprocess.CompletedProcess[str]:
    # What pip runs: the backend's build_wheel, in the checkout.
    code = ("import sys, ctxkit_build\n"
            f"ctxkit_build.build_wheel({str(out)!r})\n")
    return subprocess.run(
        [sys.executable, "-c", code], cwd=checkout, capture_output=True,
        text=True, timeout=300,
        env={"PATH": "/usr/bin:/bin",
             "PYTHONPATH": str(checkout / "python" / "build_backend")})


def test_without_setup_the_backend_says_to_run_it(
        tmp_path: pathlib.Path) -> None:
    checkout = fresh_checkout(tmp_path / "src")
    out = tmp_path / "wheels"
    out.mkdir()
    for attempt in (1, 2):
        done = build_wheel(checkout, out)
        assert done.returncode != 0, attempt
        last = done.stderr.strip().splitlines()[-1]
        assert last.startswith("RuntimeError: ctxkit: configuring the build "
                               "failed ("), (attempt, last)
        assert "run `make run` (or `bash scripts/setup.sh`)" in last, last
        assert "setup.sh" in last and "node_modules" in last, last
        assert "build.ninja" not in done.stderr, (attempt, done.stderr)
    assert not (checkout / "build" / "python-wheel" / "build.ninja").exists()
    assert not list(out.iterdir())
