#!/usr/bin/env bash
# Installs a ctxkit build into a temporary prefix, then builds the small
# program tests/install/consumer/ against it twice, through
# find_package(ctxkit) and through `pkg-config --static ctxkit`, and runs
# each: it must open a store, set and get a value, and print it. Also checks
# that the installed `ctxkit` binary (and, when built, the Python package)
# runs and reads what the program wrote.
#
#   tests/install/run.sh BUILD_DIR [EXTRA_CXX_FLAGS]
#
# EXTRA_CXX_FLAGS: what the build's own libraries need in a program that
# links them (the sanitizer flags of an ASan build).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: run.sh BUILD_DIR [EXTRA_CXX_FLAGS]}
flags=${2:-}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ctxkit-install-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

fail() {
  echo "install test: $*" >&2
  exit 1
}

cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" ||
  { cat "$tmp/install.log" >&2; fail "cmake --install failed"; }
for f in bin/ctxkit include/ctxkit/store.h include/ctxkit/mcp.h; do
  [[ -e "$prefix/$f" ]] || fail "$f not installed"
done
if compgen -G "$prefix/include/ctxkit/*" | grep -v '\.h$'; then
  fail "only public headers belong in include/ctxkit/"
fi

# Every run prints "<ref> <value>"; the ref's key is the one set.
want="hello from an installed ctxkit"
check_output() {
  local name=$1 out=$2
  [[ "$out" == ck:*:greeting" $want" ]] ||
    fail "$name printed '$out', want 'ck:...:greeting $want'"
  echo "install test: $name: $out"
}

# 1. CMake: find_package(ctxkit CONFIG), target ctxkit::ctxkit.
cmake -S "$here/consumer" -B "$tmp/cmake-build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
  >"$tmp/cmake.log" 2>&1 || { cat "$tmp/cmake.log" >&2; fail "configure failed"; }
cmake --build "$tmp/cmake-build" >>"$tmp/cmake.log" 2>&1 ||
  { cat "$tmp/cmake.log" >&2; fail "find_package build failed"; }
check_output find_package "$("$tmp/cmake-build/consumer" "$tmp/store-cmake")"

# 2. pkg-config: static libraries, so --static for their dependencies.
libdir=$(dirname "$(find "$prefix" -name ctxkit.pc -print -quit)")
[[ -n "$libdir" ]] || fail "ctxkit.pc not installed"
export PKG_CONFIG_PATH=$libdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
# shellcheck disable=SC2046,SC2086
g++ -std=c++20 $flags "$here/consumer/consumer.cc" -o "$tmp/consumer-pc" \
  $(pkg-config --cflags --libs --static ctxkit) ||
  fail "pkg-config build failed"
out=$("$tmp/consumer-pc" "$tmp/store-pc")
check_output pkg-config "$out"

# 3. The installed binary reads the store the program wrote.
got=$("$prefix/bin/ctxkit" --home "$tmp/store-pc" --agent installer \
  --session check get greeting)
[[ "$got" == "$want" ]] || fail "ctxkit get printed '$got', want '$want'"

# 4. A build with the Python package installs it into site-packages under
# the prefix; the installed package reads the same store.
package=$(find "$prefix" -path '*-packages/ctxkit/__init__.py' -print -quit)
if grep -q '^CTXKIT_BUILD_PYTHON:BOOL=ON' "$build/CMakeCache.txt"; then
  [[ -n "$package" ]] || fail "Python package not installed"
  python=$(sed -n 's/^Python3_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt")
  got=$(cd "$tmp" && PYTHONPATH=$(dirname "$(dirname "$package")") "$python" -c "
import ctxkit
view = ctxkit.Store('$tmp/store-pc').view(agent='installer', session='check')
print(view.get('greeting').decode())")
  [[ "$got" == "$want" ]] || fail "installed Python package read '$got', want '$want'"
  echo "install test: python: $got"
fi
echo "install test: ok"
