// Command gen writes a realistic, deterministic pinki ledger for benchmarks:
// by default 1,000,000 events, 250,000 obligations over 50 seats, with
// antecedents, amends, progress, acceptances, resolves and assessments, in
// time order over a year.
//
//	go run ./bench/gen -events 1000000 -seed 1 > /tmp/bench.jsonl
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/pinki-ledger/pinki/internal/ledgergen"
)

func main() {
	total := flag.Int("events", 1_000_000, "number of events to write")
	seats := flag.Int("seats", 50, "number of seats")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if err := ledgergen.Write(os.Stdout, *total, *seats, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
