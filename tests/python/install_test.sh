#!/usr/bin/env bash
# pip install --no-build-isolation into a fresh virtual environment, as the
# README says, then import and use the installed package from outside the
# source tree. The backend is pointed at this build's directory, so the
# extension is not compiled a second time (a fresh `pip install .` builds in
# build/python-wheel, the same way).
set -euo pipefail
source_dir=$1 build_dir=$2 python=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" -m venv "$work/env"
"$work/env/bin/pip" install --no-build-isolation --no-index -q \
  --config-settings build-dir="$build_dir" "$source_dir"
cd "$work"
"$work/env/bin/python" - <<'PY'
import ctxkit, pathlib, sys
assert "env" in pathlib.Path(ctxkit.__file__).parts, ctxkit.__file__
store = ctxkit.Store(sys.prefix + "/../store")
ref = store.view(agent="pip").set("hello", "installed")
assert store.view(agent="pip").get(ref) == b"installed"
assert (pathlib.Path(ctxkit.__file__).parent / "py.typed").exists()
assert (pathlib.Path(ctxkit.__file__).parent / "_ctxkit.pyi").exists()
print("installed:", ref)
PY
