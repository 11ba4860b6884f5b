"""The README's Python quick start runs as written (twice: a second run on
the same store must work too), against the package of this build."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import ctxkit

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def quick_start() -> str:
    text = README.read_text()
    section = text[text.index("## Using it from Python"):]
    return re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)


def test_quick_start_runs_as_written(tmp_path: pathlib.Path) -> None:
    env = dict(os.environ, CTXKIT_HOME=str(tmp_path / "home"),
               PYTHONPATH=str(pathlib.Path(ctxkit.__file__).parents[1]))
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", quick_start()], env=env,
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        lines = out.stdout.splitlines()
        assert lines[0].startswith("ck:") and lines[0].endswith(":logs/build")
        assert lines[1:3] == ["step 0: ok", "step 1: ok"]
        assert lines[3] == "5001" and lines[4] == "logs/build"
        assert lines[5] == "['system', 'user']"


def test_make_run_builds_the_package_the_readme_imports() -> None:
    """`make run` builds the package (its build-cli step names the target),
    and the README says where to import it from."""
    root = README.parent
    dry = subprocess.run(["make", "-n", "build-cli"], cwd=root,
                         capture_output=True, text=True, timeout=60)
    assert dry.returncode == 0, dry.stderr
    build = [line for line in dry.stdout.splitlines()
             if "cmake --build --preset release" in line]
    assert build and "ctxkit_python" in build[0].split("--target", 1)[1], \
        dry.stdout
    assert "PYTHONPATH=build/release/python python3" in README.read_text()
