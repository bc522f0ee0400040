#!/usr/bin/env bash
# HTTP load on `pinki serve` (results go in BENCHMARKS.md; not timed tests):
# many concurrent seats (one token each, keep-alive connections) creating,
# progressing, resolving and reading over HTTP, on the file ledger and on
# PostgreSQL ($PINKI_BENCH_POSTGRES, default the local test database, in a
# fresh schema).
#
#   bash bench/load.sh [SECONDS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
work=$(mktemp -d /tmp/pinki-load.XXXXXX)
addr=127.0.0.1:${PINKI_LOAD_PORT:-7449}
go build -o "$work/pinki" ./cmd/pinki
go build -o "$work/load" ./bench/load
base=${PINKI_BENCH_POSTGRES:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
server_pid=
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true; }
trap cleanup EXIT

run() { # run NAME STORE-ARGS...
  local name=$1; shift
  local dir=$work/$name
  mkdir -p "$dir"
  export PINKI_LEDGER=$dir/.pinki/ledger.jsonl
  for i in $(seq -w 1 50); do
    printf 'seat-%s %s\n' "$i" "$("$work/pinki" token add "$@" --seat "seat-$i" 2>/dev/null)"
  done >"$dir/tokens.txt"
  "$work/pinki" serve "$@" --listen "$addr" >"$dir/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 200); do curl -fsS "http://$addr/healthz" >/dev/null 2>&1 && break; sleep 0.05; done
  echo "### $name"
  echo '```'
  for mix in create=40,progress=40,resolve=20 create=30,progress=30,resolve=20,read=20 create=1,read=99 create=1,list=99; do
    # Every line, the errors included; a failing load generator says so.
    "$work/load" -url "http://$addr" -tokens "$dir/tokens.txt" -seats 50 -duration "${seconds}s" -mix "$mix" \
      -acked "$dir/acked-$mix.txt" || echo "load: exit status $? (mix $mix)"
  done
  echo '```'
  kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
  server_pid=
}

echo "# pinki serve under load, $(date -u +%Y-%m-%dT%H:%M:%SZ): $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "(the load generator runs on the same 2 cores as the server)"
run file
schema=pinki_load_$$
psql "${base%%\?*}" -qc "create schema $schema"
run postgres --store "$base&search_path=$schema"
psql "${base%%\?*}" -qc "set client_min_messages = warning; drop schema $schema cascade"
echo "work folder: $work"
