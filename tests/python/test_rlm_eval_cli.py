"""bench/rlm_eval.py describes its options, and says how to build the
package when the build it is pointed at has none."""

from __future__ import annotations

import pathlib
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "bench" / "rlm_eval.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args],
                          capture_output=True, text=True, timeout=60)


def test_help_describes_every_option() -> None:
    out = run("--help")
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())  # Unwrapped.
    for option, words in (("--build DIR", "the CMake build directory whose python/ holds "
                                          "the ctxkit package"),
                          ("--sizes N,N,...", "S-NIAH haystack sizes"),
                          ("--items N", "items of the aggregate task"),
                          ("--window TOKENS", "the direct prompt's window"),
                          ("--seed SEED", "seed of the task generator"),
                          ("--fake", "serve a scripted, rule-based stand-in")):
        assert f"{option} {words}" in text, (option, out.stdout)
    assert "CTXKIT_LLM_BASE_URL" in text


def test_without_a_built_package_it_says_how_to_build(
        tmp_path: pathlib.Path) -> None:
    out = run("--build", str(tmp_path), "--fake")
    assert out.returncode == 2
    assert out.stdout == ""
    assert "no built ctxkit package in" in out.stderr
    assert "make run" in out.stderr
