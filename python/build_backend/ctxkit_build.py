"""The PEP 517 build backend of the ctxkit Python package.

`pip install --no-build-isolation .` builds the package with CMake (the
same target, ctxkit_python, as `make`) and packs it into a wheel. It needs
only the standard library: Debian 12's `python3 -m venv` seeds pip and
setuptools but not `wheel`, without which setuptools' own backend cannot
build a wheel, so with only Debian packages present it would fail.

Config settings (pip install --config-settings key=value):
  build-dir   the CMake build directory to use (default: build/python-wheel
              in the source tree). An already configured one (the release
              preset's build/release) is built as it is, not reconfigured.
  jobs        parallel build jobs (default: the number of CPUs).
"""

from __future__ import annotations

import base64
import hashlib
import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from typing import Any, Optional

NAME = "ctxkit"
SOURCE = pathlib.Path(__file__).resolve().parents[2]
SUMMARY = "A versioned context store and context manager for LLM agents."


def _version() -> str:
    cmake = (SOURCE / "CMakeLists.txt").read_text()
    match = re.search(r"project\(ctxkit VERSION ([0-9.]+)", cmake)
    if not match:
        raise RuntimeError("CMakeLists.txt: no project(ctxkit VERSION ...)")
    return match.group(1)


def _tag() -> str:
    impl = f"cp{sys.version_info.major}{sys.version_info.minor}"
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{impl}-{impl}-{platform}"


def _metadata() -> str:
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {_version()}\n"
            f"Summary: {SUMMARY}\nRequires-Python: >=3.9\n"
            "License: see the source repository\n")


SETUP_HINT = ("run `make run` (or `bash scripts/setup.sh`) in the checkout first: it "
              "installs the Debian packages and the pinned npm data the build needs")


def _configure(build_dir: pathlib.Path) -> None:
    """Configures `build_dir`; a RuntimeError saying what to run when the
    tools or what setup installs are missing."""
    for tool in ("cmake", "ninja"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"ctxkit: {tool} is not installed; {SETUP_HINT}")
    done = subprocess.run(
        ["cmake", "-S", str(SOURCE), "-B", str(build_dir), "-G", "Ninja",
         "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DCTXKIT_BUILD_TESTS=OFF",
         "-DCTXKIT_BUILD_BENCH=OFF", "-DCTXKIT_BUILD_PYTHON=ON",
         f"-DPython3_EXECUTABLE={sys.executable}"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    sys.stderr.write(done.stdout)
    if done.returncode != 0:
        errors = [line.strip() for line in done.stdout.splitlines()
                  if line.strip() and not line.startswith(("--", "Call Stack", "  "))]
        first = re.search(r"CMake Error.*?:\n(.*?)(?:\n\n|\Z)", done.stdout, re.DOTALL)
        said = " ".join(first.group(1).split()) if first else (errors[-1] if errors else "")
        raise RuntimeError(f"ctxkit: configuring the build failed ({said}); {SETUP_HINT}")


def _build(config: dict[str, Any]) -> pathlib.Path:
    build_dir = pathlib.Path(config.get("build-dir") or SOURCE / "build" / "python-wheel")
    if not build_dir.is_absolute():
        build_dir = SOURCE / build_dir
    jobs = str(config.get("jobs") or os.cpu_count() or 1)
    # A configure that failed leaves CMakeCache.txt without build.ninja:
    # configured means the latter, so the next try configures again.
    if not (build_dir / "build.ninja").exists():
        _configure(build_dir)
    subprocess.run(["cmake", "--build", str(build_dir), "--target", "ctxkit_python",
                    "-j", jobs], check=True, stdout=sys.stderr)
    package = build_dir / "python" / NAME
    extension = package / ("_ctxkit" + sysconfig.get_config_var("EXT_SUFFIX"))
    if not extension.exists():
        raise RuntimeError(
            f"{extension} was not built: {build_dir} is configured for another "
            f"Python than {sys.executable} (remove it, or pass another build-dir)")
    return package


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return f"{name},sha256={digest.decode()},{len(data)}"


def _write_wheel(wheel_directory: str, files: dict[str, bytes]) -> str:
    dist_info = f"{NAME}-{_version()}.dist-info"
    files = dict(files)
    files[f"{dist_info}/METADATA"] = _metadata().encode()
    files[f"{dist_info}/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: ctxkit_build\nRoot-Is-Purelib: false\n"
        f"Tag: {_tag()}\n").encode()
    record = [_record_line(name, data) for name, data in sorted(files.items())]
    record.append(f"{dist_info}/RECORD,,")
    files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel_name = f"{NAME}-{_version()}-{_tag()}.whl"
    with zipfile.ZipFile(pathlib.Path(wheel_directory) / wheel_name, "w",
                         zipfile.ZIP_DEFLATED) as wheel:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
    return wheel_name


def build_wheel(wheel_directory: str, config_settings: Optional[dict] = None,
                metadata_directory: Optional[str] = None) -> str:
    package = _build(config_settings or {})
    extension = "_ctxkit" + sysconfig.get_config_var("EXT_SUFFIX")
    files = {}
    for path in sorted(package.iterdir()):
        if (path.suffix in (".py", ".pyi") or path.name in ("py.typed", extension)):
            files[f"{NAME}/{path.name}"] = path.read_bytes()
    return _write_wheel(wheel_directory, files)


def get_requires_for_build_wheel(config_settings: Optional[dict] = None) -> list[str]:
    return []


def prepare_metadata_for_build_wheel(metadata_directory: str,
                                     config_settings: Optional[dict] = None) -> str:
    dist_info = pathlib.Path(metadata_directory) / f"{NAME}-{_version()}.dist-info"
    dist_info.mkdir(parents=True, exist_ok=True)
    (dist_info / "METADATA").write_text(_metadata())
    return dist_info.name
