#!/usr/bin/env bash
# The thread-safety check: compiles src/**/*.cc with
#   clang++ -fsyntax-only -std=c++20 -Wthread-safety -Werror
# and the include paths and definitions CMake uses for it (from
# compile_commands.json), so a field marked GUARDED_BY(mu) that is touched
# without `mu` held, or a REQUIRES/EXCLUDES contract broken, fails the
# build's tests (see src/core/thread_annotations.h, src/core/mutex.h).
# GCC does not implement the analysis; the project builds with GCC, so this
# check is the one place it runs. Files are checked in parallel.
#
# Only files that can see an annotation are compiled: those that include
# core/thread_annotations.h, directly or through src/ and include/ headers
# (an #include "..." closure). A file that sees none cannot fail the
# analysis, and skipping them keeps the check fast. --all compiles every
# file (also a check that clang accepts them).
#
# Usage: scripts/thread_safety_check.sh [--all] [BUILD_DIR]
#        (BUILD_DIR: default build/release)
# Exits 0 when every file passes, 1 when one fails (its diagnostics are
# printed), 77 (a skipped ctest) when clang++ is not installed.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
all=false
if [[ ${1:-} == --all ]]; then
  all=true
  shift
fi
build=${1:-$root/build/release}
db=$build/compile_commands.json
clangxx=${CLANGXX:-clang++}

if ! command -v "$clangxx" >/dev/null; then
  echo "thread_safety_check: $clangxx not found (scripts/setup.sh installs" \
       "clang); skipped"
  exit 77
fi
if [[ ! -f $db ]]; then
  echo "thread_safety_check: no $db; configure first (cmake --preset release)"
  exit 1
fi
if ! command -v jq >/dev/null; then
  echo "thread_safety_check: jq not found (scripts/setup.sh installs it)"
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The files that see the annotations: grow the set of headers that include
# one already in it until nothing changes, then take the .cc files that
# include one of them.
seen=$work/includes
echo '#include "core/thread_annotations.h"' >"$seen"
while true; do
  before=$(wc -l <"$seen")
  (cd "$root" && grep -rlF -f "$seen" --include='*.h' src include || true) |
    sed -E 's,^(src|include)/,#include ",; s,$,",' |
    sort -u - "$seen" >"$seen.new"
  mv "$seen.new" "$seen"
  (($(wc -l <"$seen") == before)) && break
done
wanted=$work/wanted
(cd "$root" && grep -rlF -f "$seen" --include='*.cc' src || true) |
  sed "s,^,$root/," >"$wanted"

# "file<TAB>command" for each src/**/*.cc in the compilation database. A
# unity build compiles a target's files through generated unity_N_cxx.cxx
# files that #include them: each of those files gets the unity file's
# command.
translation_units() {
  jq -r '.[] | "\(.file)\t\(.command)"' "$db" |
    while IFS=$'\t' read -r file command; do
      if [[ $file == */Unity/unity_*_cxx.cxx ]]; then
        sed -nE 's,^#include "([^"]+)"$,\1,p' "$file" |
          while read -r unit; do
            if [[ $unit == "$root/src/"*.cc ]]; then
              printf '%s\t%s\n' "$unit" "$command"
            fi
          done
      elif [[ $file == "$root/src/"*.cc ]]; then
        printf '%s\t%s\n' "$file" "$command"
      fi
    done
}

# One response file per translation unit under src/: its -I/-isystem/-D
# flags, then the file. The compiler, warning and optimization flags of the
# build are left out: they are GCC's.
n=0
while IFS=$'\t' read -r file command; do
  if [[ $all == false ]] && ! grep -qxF "$file" "$wanted"; then continue; fi
  args=$work/$n.args
  : >"$args"
  read -r -a words <<<"$command"
  for ((i = 0; i < ${#words[@]}; ++i)); do
    case ${words[i]} in
      -I* | -D* | -iquote* | -include*) echo "${words[i]}" >>"$args" ;;
      -isystem) echo "-isystem ${words[i + 1]}" >>"$args"; ((++i)) ;;
      -isystem*) echo "${words[i]}" >>"$args" ;;
    esac
  done
  echo "$file" >>"$args"
  n=$((n + 1))
done < <(translation_units | sort -u)

if ((n == 0)); then
  echo "thread_safety_check: no src/ files in $db"
  exit 1
fi

export clangxx
find "$work" -name '*.args' -print0 |
  xargs -0 -P "$(nproc)" -n 1 sh -c \
    '"$clangxx" -fsyntax-only -std=c++20 -Wthread-safety -Werror @"$1" \
       >"$1.log" 2>&1 || echo "$1" >"$1.failed"' sh

failed=0
for f in "$work"/*.failed; do
  [[ -e $f ]] || continue
  failed=$((failed + 1))
  cat "$(cat "$f").log"
done
if ((failed > 0)); then
  echo "thread_safety_check: $failed of $n files failed"
  exit 1
fi
echo "thread_safety_check: $n files pass clang -Wthread-safety" \
  "($(wc -l <"$wanted") see annotations)"
