#!/usr/bin/env bash
# Fault test for the HTTP server over the file ledger (results go in
# BENCHMARKS.md; this is not a timed test):
#   1. start the server, drive it with the load generator (-acked logs every
#      acknowledged write: its sequence number, id and type);
#   2. SIGKILL the server under load, KILLS times, restarting it each time;
#   3. when the load ends, check that every acknowledged event is on its line
#      of the ledger, and that every line of the ledger decodes (a torn tail
#      is quarantined, never left in place).
#
#   bash bench/faults.sh [SECONDS] [KILLS]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
kills=${2:-3}
work=$(mktemp -d /tmp/pinki-faults.XXXXXX)
ledger=$work/.pinki/ledger.jsonl
addr=127.0.0.1:${PINKI_FAULT_PORT:-7448}
go build -o "$work/server" ./bench/load/server
go build -o "$work/load" ./bench/load

server_pid=
start_server() {
  "$work/server" -ledger "$ledger" -listen "$addr" >>"$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 100); do
    curl -fsS "http://$addr/healthz" >/dev/null 2>&1 && return 0
    sleep 0.05
  done
  echo "server did not come up" >&2; cat "$work/server.log" >&2; exit 1
}
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true; }
trap cleanup EXIT

start_server
"$work/load" -url "http://$addr" -ledger "$ledger" -seats 50 -duration "${seconds}s" \
  -acked "$work/acked.txt" >"$work/load.txt" 2>&1 &
load_pid=$!
gap=$(( seconds / (kills + 2) ))
for k in $(seq 1 "$kills"); do
  sleep "$gap"
  before=$(wc -l <"$ledger")
  kill -KILL "$server_pid"; wait "$server_pid" 2>/dev/null || true
  echo "kill $k: SIGKILL with $before lines in the ledger"
  sleep 0.3
  start_server
done
wait "$load_pid"
cat "$work/load.txt"
"$work/load" -verify -ledger "$ledger" -acked "$work/acked.txt"
ls "$work/.pinki" | sed 's/^/.pinki: /'
if ls "$work/.pinki"/*quarantine* >/dev/null 2>&1; then
  echo "torn tails were quarantined (expected after SIGKILL mid-write)"
fi
echo "work folder: $work"
