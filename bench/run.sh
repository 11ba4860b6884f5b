#!/usr/bin/env bash
# Builds the release preset and runs the ctxkit benchmarks with fixed flags.
#
#   bash bench/run.sh            # or: make bench
#   bash bench/run.sh store_bench  # only the named benchmark programs
#
# Writes Google Benchmark JSON to build/bench/results/<program>.json and the
# markdown tables (bench/report.py) to build/bench/results/benchmarks.md,
# which docs/benchmarks.md quotes. Stores live in temporary directories
# under $CTXKIT_BENCH_TMPDIR (else $TMPDIR, else /tmp), removed afterwards;
# that directory must be on a real disk, not tmpfs, or fsync costs nothing.
#
# Environment:
#   CTXKIT_BENCH_REPETITIONS  repetitions per benchmark (default 5)
#   CTXKIT_BENCH_BIN          use the programs already built in this build
#                             directory instead of building the release preset
set -euo pipefail
cd "$(dirname "$0")/.."

reps=${CTXKIT_BENCH_REPETITIONS:-5}
out=build/bench/results
if (($#)); then
  programs=("$@")
else
  # Ours first, in a fixed order; then any other bench/*_bench.cc program.
  programs=(store_bench memory_ceiling_bench)
  for src in bench/*_bench.cc; do
    name=$(basename "$src" .cc)
    [[ " ${programs[*]} " == *" $name "* ]] || programs+=("$name")
  done
fi

bin=${CTXKIT_BENCH_BIN:-}
if [[ -z "$bin" ]]; then
  bin=build/release
  # The release preset (RelWithDebInfo: -O2 -g -DNDEBUG); only the benchmark
  # programs, so a fresh checkout does not compile the whole test suite first.
  cmake --preset release >/dev/null
  cmake --build --preset release --target "${programs[@]}"
fi

mkdir -p "$out"
failed=()
start=$SECONDS
for name in "${programs[@]}"; do
  flags=(--benchmark_out="$out/$name.json" --benchmark_out_format=json
         --benchmark_counters_tabular=true)
  case "$name" in
    store_bench)
      # Repetitions interleaved in random order, so slow drifts of a shared
      # machine hit ctxkit and its anchors alike. Iteration counts are fixed
      # in the program.
      flags+=(--benchmark_repetitions="$reps"
              --benchmark_enable_random_interleaving=true) ;;
    memory_ceiling_bench)
      # One process, one run: VmHWM is per process.
      ;;
    *)
      # Other engineers' programs: their own defaults.
      ;;
  esac
  rm -f "$out/$name.json"
  echo "== $bin/$name ${flags[*]}"
  rc=0
  "$bin/$name" "${flags[@]}" || rc=$?
  if ((rc != 0)); then
    echo "== $name failed (exit $rc); its table will be missing" >&2
    failed+=("$name")
  fi
done

python3 bench/report.py "$out" | tee "$out/benchmarks.md"
echo "== tables written to $out/benchmarks.md ($((SECONDS - start)) s of benchmarks)"
if ((${#failed[@]})); then
  echo "== failed: ${failed[*]}" >&2
  exit 1
fi
