#!/usr/bin/env bash
# Installs what ctxkit needs to build and test on Debian 12: the apt packages
# below (only those missing) and the pinned npm data/test peers from
# package-lock.json. Safe to run again; does nothing when all is present.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  build-essential cmake ninja-build pkg-config git
  lld  # the linker (faster than GNU ld for the many test programs)
  ccache  # compiles reused across builds and clones (CMakeLists.txt)
  libsqlite3-dev libssl-dev nlohmann-json3-dev libcli11-dev
  nettle-dev  # SHA-256, HMAC, base64 (no start-up cost, unlike libcrypto's EVP)
  libre2-dev libyaml-cpp-dev libcurl4-openssl-dev
  libxxhash-dev  # blob chunk checksums (header-only use)
  libcpp-httplib-dev  # ctxkit serve (MCP Streamable HTTP); pulls zlib/brotli dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang-format clang-tidy ripgrep nodejs npm
  clang  # scripts/thread_safety_check.sh: clang++ -Wthread-safety (a test)
  libclang-rt-14-dev  # make fuzz: clang's libFuzzer and sanitizer runtimes
  jq  # tests/cli/docs_examples_test.cc runs the docs' `ctxkit ... | jq` example
  time  # bench/large_values.py: a child's own peak RSS (/usr/bin/time -f %M)
  sqlite3  # bench/process_start.py, bench/scale.py: the sqlite3 CLI anchors
  wordnet-base  # find widens queries with WordNet's related words (docs/index.md)
  # The Python package (python/): Debian's interpreter, headers and pybind11;
  # venv for `pip install .`; pytest for its tests.
  python3 python3-dev python3-venv pybind11-dev python3-pytest
  bubblewrap  # the Python REPL's sandbox for model-written code
  # The PostgreSQL storage backend: libpq to build it; the server for its
  # tests (tests/pg/server.sh runs a throwaway one for `make test`).
  postgresql-15 libpq-dev
  # The web inspector (docs/inspector.md): Chart.js, embedded into the
  # binary at build time; dtl for its version diffs; Chromium for the
  # page's browser test (driven by playwright-core from package-lock.json).
  libjs-chart.js libdtl-dev chromium
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
    missing+=("$p")
  fi
done
# A machine may carry its own node/npm outside apt; that one is fine.
if command -v node >/dev/null && command -v npm >/dev/null; then
  filtered=()
  for p in "${missing[@]}"; do
    [[ "$p" == nodejs || "$p" == npm ]] || filtered+=("$p")
  done
  missing=("${filtered[@]}")
fi

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Pinned npm packages (tokenizer ranks, protocol test peers), when the
# project declares any. Re-run only when the lock file changed.
if [[ -f package-lock.json ]]; then
  stamp=node_modules/.ctxkit-lock.sha256
  want=$(sha256sum package-lock.json | cut -d' ' -f1)
  if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
    echo "setup: npm ci"
    npm ci --no-audit --no-fund --loglevel=error
    echo "$want" > "$stamp"
  fi
fi
