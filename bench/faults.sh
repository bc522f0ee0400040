#!/usr/bin/env bash
# Fault tests for `pinki serve` (results go in BENCHMARKS.md; not timed tests).
#
#   bash bench/faults.sh file [SECONDS] [KILLS]
#     drive a server on the file ledger with the load generator (which logs
#     every acknowledged write: its sequence number, id and type), SIGKILL the
#     server under load KILLS times, restarting it each time; then check that
#     every acknowledged event is on its line of the ledger, and that every
#     line decodes (a torn tail is quarantined, never left in place).
#
#   bash bench/faults.sh postgres [SECONDS] [RESTARTS]
#     the same on PostgreSQL ($PINKI_BENCH_POSTGRES, default the local test
#     database, in a fresh schema), restarting PostgreSQL itself under load
#     instead: the server must recover by itself, with no restart of its own.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-file}
seconds=${2:-20}
kills=${3:-3}
work=$(mktemp -d /tmp/pinki-faults.XXXXXX)
ledger=$work/.pinki/ledger.jsonl
addr=127.0.0.1:${PINKI_FAULT_PORT:-7448}
go build -o "$work/pinki" ./cmd/pinki
go build -o "$work/load" ./bench/load
export PINKI_LEDGER=$ledger

store=()
if [ "$mode" = postgres ]; then
  base=${PINKI_BENCH_POSTGRES:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
  schema=pinki_faults_$$
  psql "${base%%\?*}" -qc "create schema $schema" >/dev/null
  url="$base&search_path=$schema"
  store=(--store "$url")
  "$work/pinki" init "${store[@]}" >/dev/null
fi

# One token per seat, written as "SEAT TOKEN" lines for the load generator.
for i in $(seq -w 1 50); do
  seat=seat-$i
  printf '%s %s\n' "$seat" "$("$work/pinki" token add "${store[@]}" --seat "$seat" 2>/dev/null)"
done >"$work/tokens.txt"

server_pid=
start_server() {
  "$work/pinki" serve "${store[@]}" --listen "$addr" >>"$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 200); do
    curl -fsS "http://$addr/healthz" >/dev/null 2>&1 && return 0
    sleep 0.05
  done
  echo "server did not come up" >&2; cat "$work/server.log" >&2; exit 1
}
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true; }
trap cleanup EXIT

start_server
"$work/load" -url "http://$addr" -tokens "$work/tokens.txt" -seats 50 \
  -duration "${seconds}s" -acked "$work/acked.txt" >"$work/load.txt" 2>&1 &
load_pid=$!
gap=$(( seconds / (kills + 2) ))
for k in $(seq 1 "$kills"); do
  sleep "$gap"
  if [ "$mode" = postgres ]; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main restart
    echo "fault $k: PostgreSQL restarted under load (the server keeps running: pid $server_pid)"
  else
    before=$(wc -l <"$ledger")
    kill -KILL "$server_pid"; wait "$server_pid" 2>/dev/null || true
    echo "fault $k: SIGKILL with $before lines in the ledger"
    sleep 0.3
    start_server
  fi
done
wait "$load_pid"
cat "$work/load.txt"
if [ "$mode" = postgres ]; then
  kill -0 "$server_pid" && echo "the server never restarted: pid $server_pid still serving"
  "$work/pinki" export "${store[@]}" --format events >"$work/events.jsonl"
  "$work/load" -verify -ledger "$work/events.jsonl" -acked "$work/acked.txt"
  psql "${base%%\?*}" -qc "set client_min_messages = warning; drop schema $schema cascade" >/dev/null
else
  "$work/load" -verify -ledger "$ledger" -acked "$work/acked.txt"
  if ls "$work/.pinki/quarantine"/* >/dev/null 2>&1; then
    echo "torn tails quarantined: $(ls "$work/.pinki/quarantine" | wc -l)"
  fi
fi
echo "work folder: $work"
