#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests (cmake/pg_tests.cmake runs it as
# the CTest fixture pg_server):
#   server.sh start DIR   a fresh cluster in DIR/data, listening only on a Unix
#                         socket in DIR (no TCP); database ctxkit, superuser
#                         ctxkit, trust auth; writes its URL to DIR/url
#   server.sh stop DIR    stops it and removes DIR (fine if none is running)
#   server.sh crash-restart DIR
#                         stops it the way a crash would (immediate: no
#                         checkpoint, WAL replayed on start) and starts it
#                         again, for fault tests
# The socket path DIR/.s.PGSQL.5432 must fit in 107 bytes: keep DIR short.
# The server refuses to run as root, so as root it runs as the user postgres
# (made by Debian's postgresql-15 package).
set -euo pipefail

if [[ $# -ne 2 || ( "$1" != start && "$1" != stop && "$1" != crash-restart ) ]]; then
  echo "usage: $0 start|stop|crash-restart DIR" >&2
  exit 2
fi
dir=$(realpath -m -- "$2")
# DIR goes unquoted into the server's options and the URL.
if [[ ! "$dir" =~ ^[A-Za-z0-9/._+-]+$ ]]; then
  echo "server.sh: DIR may hold only [A-Za-z0-9/._+-]: $dir" >&2
  exit 2
fi
bin=${CTXKIT_PG_BIN:-/usr/lib/postgresql/15/bin}
cd /  # the server's user may not be allowed into the caller's directory

# Runs a command as USER (from root) or as ourselves.
as() {
  local user=$1
  shift
  if [[ $(id -u) -eq 0 ]]; then
    runuser -u "$user" -- "$@"
  else
    "$@"
  fi
}

# Stops a server running from $dir, as the user owning its data.
stop_server() {
  [[ -f "$dir/data/postmaster.pid" ]] || return 0
  local owner
  owner=$(stat -c %U "$dir/data")
  if ! as "$owner" "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop; then
    # A stale postmaster.pid (the server died) is fine: exit 3 = not running.
    local rc=0
    as "$owner" "$bin/pg_ctl" -D "$dir/data" status >/dev/null || rc=$?
    [[ $rc -eq 3 ]] || return 1
  fi
}

fail() {
  echo "server.sh: $*" >&2
  if [[ -f "$dir/log" ]]; then
    echo "--- $dir/log:" >&2
    cat "$dir/log" >&2
  fi
  exit 1
}

if [[ "$1" == stop ]]; then
  stop_server || fail "could not stop the server in $dir"
  rm -rf -- "$dir"
  exit 0
fi

if [[ "$1" == crash-restart ]]; then
  owner=$(stat -c %U "$dir/data")
  # Recovery replays the WAL since the last checkpoint (checkpoint_timeout
  # bounds it to ~30 s of the suites' writes), slow on a loaded machine.
  as "$owner" "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 300 -l "$dir/log" \
    restart >/dev/null || fail "pg_ctl restart failed"
  exit 0
fi

# start: a server left over from an earlier run goes first.
stop_server || fail "could not stop the old server in $dir"
rm -rf -- "$dir"
mkdir -p -- "$dir"
user=$(id -un)
if [[ $(id -u) -eq 0 ]]; then
  user=postgres
  chown postgres: "$dir"
  runuser -u postgres -- test -w "$dir" ||
    fail "user postgres cannot write $dir (a parent directory not o+x?)"
fi

as "$user" "$bin/initdb" -D "$dir/data" -U ctxkit --auth=trust --no-sync \
  -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
  { cat "$dir/initdb.log" >&2; fail "initdb failed"; }
as "$user" "$bin/pg_ctl" -D "$dir/data" -w -t 60 -l "$dir/log" \
  -o "-k $dir -c listen_addresses= -c fsync=on -c max_connections=200 -c checkpoint_timeout=30s" \
  start >/dev/null || fail "pg_ctl start failed"
as "$user" "$bin/createdb" -h "$dir" -U ctxkit ctxkit || fail "createdb failed"
echo "postgresql:///ctxkit?host=$dir&user=ctxkit" >"$dir/url"
echo "server.sh: PostgreSQL running, $(cat "$dir/url")"
