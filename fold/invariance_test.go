package fold_test

import (
	"math/rand"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/internal/foldtrace"
	"github.com/pinki-ledger/pinki/internal/trace"
)

// TestMetaInvarianceTraces replays every trace with every meta mutated
// (removed, replaced by a different object, added where absent) beside the
// original, and requires the same output for every command and the same
// snapshot (states, late flags, phases, ends, revs, versions, horizons,
// acceptances, ignored events) at the trace's nows and at every instant the
// ledger names (SPEC §2: mutate every meta and every state is identical).
func TestMetaInvarianceTraces(t *testing.T) {
	for _, path := range traceFiles(t) {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			trace.RunFile(t, path, metaRunner(t))
		})
	}
}

func metaRunner(t *testing.T) trace.Runner {
	orig := foldtrace.NewPure()
	run := foldtrace.Runner(t, orig)
	variants := make([]*foldtrace.Pure, len(metaMutations))
	runs := make([]trace.Runner, len(metaMutations))
	for i := range metaMutations {
		variants[i] = foldtrace.NewPure()
		runs[i] = foldtrace.Runner(t, variants[i])
	}
	var events []pinki.Event
	n := 0
	return func(c *trace.Case) string {
		var lines []string
		if c.Cmd == "ledger" {
			lines = strings.Split(strings.TrimSuffix(c.Input, "\n"), "\n")
			events = append(events, decodeAll(t, lines)...)
		}
		out := run(c)
		for i, m := range metaMutations {
			mc := *c
			if c.Cmd == "ledger" {
				var in strings.Builder
				for j, line := range lines {
					e := events[len(events)-len(lines)+j]
					in.WriteString(mutateLine(t, line, m.meta(n+j, e.Meta)))
					in.WriteByte('\n')
				}
				mc.Input = in.String()
			}
			if got := runs[i](&mc); got != out {
				t.Errorf("%s: %s with meta %s:\n--- original\n%s--- mutated\n%s", c.Pos, c.Cmd, m.name, out, got)
			}
		}
		n += len(lines)
		nows := instants(events)
		if now, err := pinki.ParseInstant(c.Arg("now", "")); err == nil {
			nows = append(nows, now)
		}
		for _, now := range nows {
			want := foldtrace.Snapshot(orig.Ledger(t), now)
			for i, m := range metaMutations {
				if got := foldtrace.Snapshot(variants[i].Ledger(t), now); got != want {
					t.Fatalf("%s: after %s, at %d, meta %s changes the fold:\n--- original\n%s--- mutated\n%s",
						c.Pos, c.Cmd, now, m.name, want, got)
				}
			}
		}
		return out
	}
}

// TestMetaInvarianceGenerated checks the same invariance on generated
// ledgers, which mix every event type, antecedent shape and outcome.
func TestMetaInvarianceGenerated(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for round := 0; round < 30; round++ {
		lines := genLedger(r, 70)
		events := decodeAll(t, lines)
		l := foldEvents(events)
		mutated := make([]*fold.Ledger, len(metaMutations))
		for i, m := range metaMutations {
			mutated[i] = foldEvents(withMeta(events, m.meta))
		}
		for _, now := range instants(events) {
			want := foldtrace.Snapshot(l, now)
			for i, m := range metaMutations {
				if got := foldtrace.Snapshot(mutated[i], now); got != want {
					t.Fatalf("round %d, at %d, meta %s changes the fold:\n--- original\n%s--- mutated\n%s\nledger:\n%s",
						round, now, m.name, want, got, strings.Join(lines, "\n"))
				}
			}
		}
	}
}

// TestEvaluationOrder checks that a status does not depend on which
// obligations were evaluated before it with the same evaluator (SPEC §2:
// every implementation computes the same answer): creation order, reverse
// order and random orders agree, on generated ledgers and on every trace.
func TestEvaluationOrder(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	check := func(t *testing.T, name string, events []pinki.Event) {
		l := foldEvents(events)
		n := l.Len()
		forward := make([]int, n)
		reverse := make([]int, n)
		for i := range forward {
			forward[i], reverse[n-1-i] = i, i
		}
		for _, now := range instants(events) {
			want := describe(statusesInOrder(l, now, forward))
			orders := [][]int{reverse, r.Perm(n), r.Perm(n)}
			for _, order := range orders {
				if got := describe(statusesInOrder(l, now, order)); got != want {
					t.Fatalf("%s at %d: order %v changes statuses:\n--- creation order\n%s--- that order\n%s", name, now, order, want, got)
				}
			}
			// A fresh evaluator per obligation agrees too.
			listing := statusesInOrder(l, now, forward)
			for _, o := range l.Obligations() {
				if alone := l.At(now).Status(o); alone != listing[o.ID()] {
					t.Fatalf("%s at %d: %s alone is %+v, in a listing %+v", name, now, o.ID(), alone, listing[o.ID()])
				}
			}
		}
	}
	for round := 0; round < 60; round++ {
		lines := genLedger(r, 60)
		check(t, "generated", decodeAll(t, lines))
	}
	for _, path := range traceFiles(t) {
		var lines []string
		for _, b := range traceLedgers(t, path) {
			lines = append(lines, b...)
		}
		check(t, path, decodeAll(t, lines))
	}
}
