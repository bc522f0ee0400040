#!/usr/bin/env bash
# pinki's benchmarks, reproducible: the numbers in BENCHMARKS.md come from
# this script. It needs Go, hyperfine and taskwarrior (Debian: apt-get install
# hyperfine taskwarrior), and GNU time (/usr/bin/time).
#
#   bash bench/run.sh [EVENTS] [COMPARE_N]
#
# EVENTS (default 1000000) is the size of the generated ledger the pinki
# targets are measured on: 250,000 obligations over 50 seats with
# antecedents, amends, progress, acceptances, resolves and assessments
# (go run ./bench/gen). COMPARE_N (default 10000) is the number of
# obligations pinki and taskwarrior are compared on, side by side.
#
# The HTTP load and fault runs are separate: bench/load.sh and bench/faults.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
events=${1:-1000000}
compare_n=${2:-10000}
work=$(mktemp -d /tmp/pinki-bench.XXXXXX)
pinki=$work/pinki
seat=https://agents.example.org/fleet/seat-07
now=2027-06-01T00:00:00Z # after the generated ledger ends: every deadline has passed

# timed FORMAT COMMAND...: run COMMAND (output dropped), print GNU time's
# FORMAT; when COMMAND fails, the same line ends with its exit status and the
# last line it printed, so that a failure is never read as a measurement.
timed() {
  local format=$1; shift
  local status=0
  /usr/bin/time -o "$work/time.txt" -f "$format" "$@" >"$work/timed.out" 2>&1 || status=$?
  if [ "$status" -eq 0 ]; then
    cat "$work/time.txt"
  else
    # GNU time puts "Command exited with non-zero status N" before the line.
    echo "$(tail -n 1 "$work/time.txt") [FAILED: exit status $status: $(tail -n 1 "$work/timed.out")]"
  fi
}

for tool in hyperfine task /usr/bin/time; do
  command -v "$tool" >/dev/null || { echo "bench: $tool is missing" >&2; exit 1; }
done

echo "# pinki benchmarks, $(date -u +%Y-%m-%dT%H:%M:%SZ)"
echo
echo "## machine"
echo '```'
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) cores"
echo "memory: $(free -g | awk '/^Mem:/ {print $2 " GiB"}')"
echo "disk: $(df -T "$work" | awk 'NR==2 {print $2}') ($work)"
echo "kernel: $(uname -r); $(go version); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo '```'

go build -o "$pinki" ./cmd/pinki
go build -o "$work/compare" ./bench/compare
mkdir -p "$work/big/.pinki"
ledger=$work/big/.pinki/ledger.jsonl
go run ./bench/gen -events "$events" >"$ledger"
size=$(stat -c %s "$ledger")
echo
echo "## the ledger"
echo
echo "\`go run ./bench/gen -events $events\`: $events events, $size bytes ($(awk -F'"type":"' '{split($2,a,"\""); c[a[1]]++} END {for (k in c) printf "%s %d, ", k, c[k]}' "$ledger"))."

echo
echo "## Go benchmarks"
echo '```'
PINKI_BENCH_LEDGER=$ledger go test -run '^$' -bench 'BenchmarkFoldFile' -benchtime 5x ./jsonl | grep -E '^Benchmark'
go test -run '^$' -bench 'BenchmarkFold$|BenchmarkStatusAll|BenchmarkSnapshotLoad' -benchtime 10x ./fold | grep -E '^Benchmark'
go test -run '^$' -bench 'BenchmarkCreate$' -benchtime 3000x ./ledger | grep -E '^Benchmark'
go test -run '^$' -bench 'BenchmarkCreateParallel' -benchtime 20000x ./ledger | grep -E '^Benchmark'
echo '```'

repo=$PWD
cd "$work/big"
echo
echo "## the CLI on the $events-event ledger"
echo
echo "A full fold: \`pinki check\` reads and folds every line (no cache), and"
echo "\`pinki ls --open --by S\` with no cache folds every line, then saves the"
echo "fold's snapshot and the seat's view for the next run."
echo '```'
rm -rf .pinki/cache
timed "pinki check: %e s wall, %M KB peak RSS" "$pinki" check
timed "pinki ls --open --by S, cold (no cache): %e s wall, %M KB peak RSS" "$pinki" ls --open --by "$seat" --now "$now"
timed "pinki ls --open --by S, warm: %e s wall, %M KB peak RSS" "$pinki" ls --open --by "$seat" --now "$now"
timed "pinki promise (loads the fold's snapshot, appends, fsyncs): %e s wall, %M KB peak RSS" \
  "$pinki" promise "bench write" --by "$seat" --to desk/lead --until +2h
echo "open obligations of $seat: $("$pinki" ls --open --by "$seat" --now "$now" | wc -l)"
echo '```'
echo
echo '```'
hyperfine -N --warmup 3 --runs 30 --style basic \
  "$pinki ls --open --by $seat --now $now" \
  "$pinki prime --seat $seat --now $now" 2>&1 | grep -vE '^\s*$'
echo '```'

echo
echo "## side by side with taskwarrior ($compare_n obligations, 50 seats)"
echo
echo "The same obligations in both: pinki promises (a quarter resolved), and"
echo "taskwarrior tasks in the project of their debtor seat (a quarter completed)."
cd "$work"
"$work/compare" -n "$compare_n" -seats 50 -pinki events.jsonl -task tasks.json
mkdir -p cmp/.pinki cmp/task
cat >cmp/taskrc <<RC
data.location=$work/cmp/task
confirmation=off
verbose=nothing
color=off
hooks=off
recurrence=off
gc=on
RC
export TASKRC=$work/cmp/taskrc
export PINKI_LEDGER=$work/cmp/.pinki/ledger.jsonl
echo '```'
timed "pinki import of the $compare_n: %e s" "$pinki" import events.jsonl
timed "task import of the $compare_n: %e s" task import tasks.json
cmpseat=seat-07
hyperfine -N --warmup 3 --runs 20 --style basic \
  -n "pinki ls --open --by $cmpseat" "$pinki ls --open --by $cmpseat" \
  -n "task project:$cmpseat status:pending list" "task project:$cmpseat status:pending list" \
  -n "pinki ls --open --by $cmpseat --json" "$pinki ls --open --by $cmpseat --json" \
  -n "task project:$cmpseat status:pending export" "task project:$cmpseat status:pending export" 2>&1 | grep -vE '^\s*$'
hyperfine -N --warmup 2 --runs 20 --style basic \
  -n "pinki promise (append, fsync)" "$pinki promise 'one more' --by $cmpseat --to seat-01 --until +2d" \
  -n "task add" "task add project:$cmpseat due:2026-12-31 one more" 2>&1 | grep -vE '^\s*$'
echo '```'
echo
echo '```'
ids=$("$pinki" ls --open --by "$cmpseat" --json | grep -o '"id": "pnk_[0-9a-f]*"' | cut -d'"' -f4 | awk 'NR <= 50')
t0=$(date +%s.%N)
for id in $ids; do "$pinki" resolve "$id" --satisfied --evidence "https://git.example.org/c/$id" >/dev/null; done
t1=$(date +%s.%N)
uuids=$(task project:$cmpseat status:pending uuids | tr ' ' '\n' | awk 'NR <= 50')
for u in $uuids; do task "$u" done >/dev/null 2>&1; done
t2=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" -v c="$t2" 'BEGIN {printf "resolve 50 (pinki resolve --satisfied --evidence): %.1f ms each\ncomplete 50 (task UUID done): %.1f ms each\n", (b-a)*20, (c-b)*20}'
echo '```'
echo
echo "work folder: $work"
