#!/usr/bin/env bash
# Proves cmake/check_layers.cmake enforces the layer graph: on small trees
# with a three-layer graph (base <- mid <- top), a clean tree passes and each
# kind of wrong include fails the check, naming file, line and the allowed
# layers; on a five-layer graph with a sealed layer (make_sealed_tree), the
# seal does the same.
#
#   tests/layer_check/run.sh [path/to/check_layers.cmake]
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
checker=${1:-$here/../../cmake/check_layers.cmake}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ctxkit-layer-check-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failures=0

# A clean tree in $1: base owns include/ctxkit/base.h, top owns top.h.
make_tree() {
  local t=$1
  mkdir -p "$t/src/base" "$t/src/mid" "$t/src/top" "$t/include/ctxkit"
  cat >"$t/graph.cmake" <<'G'
set(CTXKIT_LAYERS base mid top)
set(CTXKIT_ALLOWED_INCLUDES src/mid/legacy.cc:top/top.h)
set(CTXKIT_ALLOWED_GETENV src/base/pg.cc)
set(CTXKIT_ENVIRONMENT_LAYER top)
set(CTXKIT_REF_TEXT_LAYERS base)
set(CTXKIT_LAYER_DEPS_base)
set(CTXKIT_LAYER_HEADERS_base base.h)
set(CTXKIT_LAYER_DEPS_mid base)
set(CTXKIT_LAYER_HEADERS_mid)
set(CTXKIT_LAYER_DEPS_top mid)
set(CTXKIT_LAYER_HEADERS_top top.h)
G
  printf '#include <string>\n' >"$t/include/ctxkit/base.h"
  printf '#include "ctxkit/base.h"\n' >"$t/include/ctxkit/top.h"
  printf '#include "ctxkit/base.h"\n#include "base/util.h"\n' >"$t/src/base/util.h"
  # Semicolons and brackets must not shift line numbers.
  printf 'int a[2] = {1, 2}; // [x;y]\n\n#include "mid/mid.h"\n' >"$t/src/mid/mid.cc"
  printf '#include "base/util.h"\n' >"$t/src/mid/mid.h"
  printf '#include "top/top.h"\n' >"$t/src/mid/legacy.cc"
  printf '#include "mid/mid.h"\n#include "ctxkit/top.h"\n' >"$t/src/top/top.h"
}

# check NAME WANT_STATUS [EXPECTED_MESSAGE]: runs the checker on $tmp/NAME.
check() {
  local name=$1 want=$2 message=${3:-} out status=0
  out=$(cmake -DGRAPH="$tmp/$name/graph.cmake" -DROOT="$tmp/$name" \
    -P "$checker" 2>&1) || status=$?
  # CMake wraps long messages; compare on one line.
  out=$(tr -s ' \n' ' ' <<<"$out")
  if [[ "$want" == pass && $status -ne 0 ]]; then
    echo "FAIL $name: expected the check to pass; it said: $out"
    failures=$((failures + 1))
  elif [[ "$want" == fail && $status -eq 0 ]]; then
    echo "FAIL $name: expected the check to fail; it passed"
    failures=$((failures + 1))
  elif [[ -n "$message" && "$out" != *"$message"* ]]; then
    echo "FAIL $name: expected '$message' in: $out"
    failures=$((failures + 1))
  else
    echo "ok   $name"
  fi
}

make_tree "$tmp/clean"
check clean pass

make_tree "$tmp/upward"  # a lower layer reaching up
printf '#include "base/util.h"\n\n#include "top/top.h"\n' >"$tmp/upward/src/base/up.cc"
check upward fail "src/base/up.cc:3: #include \"top/top.h\" reaches layer 'top'; layer 'base' may include only: base"

make_tree "$tmp/public"  # a lower layer reaching up through a public header
printf '\n#include "ctxkit/top.h"\n' >"$tmp/public/src/mid/uses_top.cc"
check public fail "src/mid/uses_top.cc:2: #include \"ctxkit/top.h\" reaches layer 'top'; layer 'mid' may include only: mid base"

make_tree "$tmp/header"  # a public header including a higher layer's
printf '#include "ctxkit/top.h"\n' >"$tmp/header/include/ctxkit/base.h"
check header fail "include/ctxkit/base.h:1: #include \"ctxkit/top.h\" reaches layer 'top'; layer 'base' may include only: base"

make_tree "$tmp/unowned"  # a public header no layer owns
printf '#pragma once\n' >"$tmp/unowned/include/ctxkit/stray.h"
check unowned fail "include/ctxkit/stray.h: owned by no layer"

make_tree "$tmp/folder"  # a folder under src/ that is not a layer
mkdir -p "$tmp/folder/src/extra"
check folder fail "src/extra/: not a declared layer"

make_tree "$tmp/bare"  # an include without its layer folder
printf '#include "util.h"\n' >"$tmp/bare/src/base/bare.cc"
check bare fail "src/base/bare.cc:1: #include \"util.h\""

make_tree "$tmp/nolayer"  # an include naming a folder that is no layer
printf '#include "tests/helper.h"\n' >"$tmp/nolayer/src/top/t.cc"
check nolayer fail "src/top/t.cc:1: #include \"tests/helper.h\": 'tests' is not a layer"

make_tree "$tmp/getenv"  # the environment read outside its layer
printf '// getenv( in a comment is fine\nint x = 0;\nconst char* h = std::getenv("HOME");\n' >"$tmp/getenv/src/mid/env.cc"
check getenv fail "src/mid/env.cc:3: getenv: only layer 'top' reads the environment"

make_tree "$tmp/getenv_ok"  # in its layer, or a file allowed with a reason
printf 'const char* h = getenv("HOME");\n' >"$tmp/getenv_ok/src/top/env.cc"
printf 'const char* t = getenv("PGCONNECT_TIMEOUT");\n' >"$tmp/getenv_ok/src/base/pg.cc"
check getenv_ok pass

make_tree "$tmp/refprefix"  # a ref's "ck:" prefix tested above the ref layers
printf '// s.starts_with("ck:") in a comment is fine\nbool r = s.starts_with("ck:");\n' >"$tmp/refprefix/src/top/target.cc"
check refprefix fail "src/top/target.cc:2: tests for the \"ck:\" prefix: only layers base read a ref's text form"

for form in 's.rfind("ck:", 0) == 0' 's.substr(0, 3) == "ck:"' \
    's.compare(0, 3, "ck:") == 0' '"ck:" != s.substr(0, 3)'; do
  make_tree "$tmp/refprefix_forms"
  printf 'bool r = %s;\n' "$form" >"$tmp/refprefix_forms/src/mid/t.cc"
  check refprefix_forms fail "src/mid/t.cc:1: tests for the \"ck:\" prefix"
  rm -rf "$tmp/refprefix_forms"
done

make_tree "$tmp/refprefix_ok"  # in a ref layer, or a "ck:" literal in text
printf 'bool r = s.starts_with("ck:");\n' >"$tmp/refprefix_ok/src/base/ref.cc"
printf 'const char* help = "a ref such as \\"ck:2s:3:t:9:g:k\\"";\n' >"$tmp/refprefix_ok/src/top/help.cc"
check refprefix_ok pass

# A tree whose engine layer is sealed above mid (as storage/ and the
# engines are above store/): base <- eng <- mid <- top <- app; eng/files.h
# is open to every layer above mid, eng/db.h to top alone, and
# mid/engine_of.h (mid's own) to none.
make_sealed_tree() {
  local t=$1
  make_tree "$t"
  mkdir -p "$t/src/eng" "$t/src/app"
  cat >"$t/graph.cmake" <<'G'
set(CTXKIT_LAYERS base eng mid top app)
set(CTXKIT_ALLOWED_INCLUDES src/mid/legacy.cc:top/top.h)
set(CTXKIT_ALLOWED_GETENV)
set(CTXKIT_ENVIRONMENT_LAYER top)
set(CTXKIT_REF_TEXT_LAYERS base)
set(CTXKIT_SEAL_ABOVE mid)
set(CTXKIT_SEALED_LAYERS eng)
set(CTXKIT_SEALED_HEADERS mid/engine_of.h)
set(CTXKIT_SEALED_OPEN eng/files.h)
set(CTXKIT_SEALED_OPEN_TO eng/db.h:top)
set(CTXKIT_LAYER_DEPS_base)
set(CTXKIT_LAYER_HEADERS_base base.h)
set(CTXKIT_LAYER_DEPS_eng base)
set(CTXKIT_LAYER_HEADERS_eng)
set(CTXKIT_LAYER_DEPS_mid eng)
set(CTXKIT_LAYER_HEADERS_mid)
set(CTXKIT_LAYER_DEPS_top mid)
set(CTXKIT_LAYER_HEADERS_top top.h)
set(CTXKIT_LAYER_DEPS_app top)
set(CTXKIT_LAYER_HEADERS_app)
G
  printf '#include "base/util.h"\n' >"$t/src/eng/engine.h"
  printf '#include "base/util.h"\n' >"$t/src/eng/files.h"
  printf '#include "base/util.h"\n' >"$t/src/eng/db.h"
  # mid, the layer the seal is above, uses its engine freely.
  printf '#include "eng/engine.h"\n#include "eng/db.h"\n' >"$t/src/mid/engine_of.h"
  printf '#include "mid/engine_of.h"\n' >"$t/src/mid/mid_engine.cc"
}

make_sealed_tree "$tmp/sealed_ok"  # open headers, each where it is open
printf '#include "eng/files.h"\n#include "eng/db.h"\n#include "mid/mid.h"\n' >"$tmp/sealed_ok/src/top/cache.cc"
printf '#include "eng/files.h"\n#include "top/top.h"\n' >"$tmp/sealed_ok/src/app/app.cc"
check sealed_ok pass

make_sealed_tree "$tmp/sealed"  # a sealed layer's header above the seal
printf '#include "mid/mid.h"\n\n#include "eng/engine.h"\n' >"$tmp/sealed/src/top/back_door.cc"
check sealed fail "src/top/back_door.cc:3: #include \"eng/engine.h\" is sealed: layers above 'mid' reach the store's bytes only through it"

make_sealed_tree "$tmp/sealed_header"  # a sealed header of the seal layer
printf '#include "mid/engine_of.h"\n' >"$tmp/sealed_header/src/app/a.cc"
check sealed_header fail "src/app/a.cc:1: #include \"mid/engine_of.h\" is sealed"

make_sealed_tree "$tmp/sealed_other"  # a header open to top, not to app
printf '#include "eng/db.h"\n' >"$tmp/sealed_other/src/app/a.cc"
check sealed_other fail "src/app/a.cc:1: #include \"eng/db.h\" is sealed"

if ((failures)); then
  echo "layer check test: $failures case(s) failed"
  exit 1
fi
echo "layer check test: ok"
