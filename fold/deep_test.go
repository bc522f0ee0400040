package fold_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
)

const deep = 100_000

var (
	deepStart = time.Date(2026, 9, 1, 9, 0, 0, 0, time.UTC)
	deepUntil = deepStart.Add(48 * time.Hour)
)

// chainEvent is the creation of link i of a chain: c0 has no antecedent,
// c(i) waits on c(i-1); with ring set, c0 waits on the last link.
func chainEvent(i int, ring bool) pinki.Event {
	e := pinki.Event{Type: pinki.TypePromise, ID: "c" + strconv.Itoa(i), Text: "link", By: "alice", To: "bob",
		TS: pinki.FormatTime(deepStart), At: deepStart.UnixNano(),
		Until: pinki.FormatTime(deepUntil), UntilAt: deepUntil.UnixNano()}
	switch {
	case i > 0:
		e.On = "c" + strconv.Itoa(i-1)
	case ring:
		e.On = "c" + strconv.Itoa(deep-1)
	}
	return e
}

func resolveEvent(i int, as pinki.Outcome, at time.Time) pinki.Event {
	return pinki.Event{Type: pinki.TypeResolve, Subject: "c" + strconv.Itoa(i), As: as, By: "alice",
		Evidence: []string{"x"}, TS: pinki.FormatTime(at), At: at.UnixNano()}
}

// TestDeepChains folds 100,000-long antecedent chains and evaluates every
// status, deepest first (the longest walk) and then in order, without
// recursion: an open chain, a chain whose every link was satisfied in
// reverse order, a chain whose root was cancelled, and a ring.
func TestDeepChains(t *testing.T) {
	now := deepStart.Add(time.Hour).UnixNano()
	build := func(ring bool, extra func(l *fold.Ledger, seq *int64)) *fold.Ledger {
		l := fold.New()
		var seq int64
		for i := 0; i < deep; i++ {
			e := chainEvent(i, ring)
			seq++
			l.Apply(seq, &e)
		}
		if extra != nil {
			extra(l, &seq)
		}
		return l
	}
	check := func(t *testing.T, l *fold.Ledger, want func(i int) fold.Status) {
		t.Helper()
		ev := l.At(now)
		obs := l.Obligations()
		if len(obs) != deep {
			t.Fatalf("%d obligations, want %d", len(obs), deep)
		}
		// Deepest first, so the first call walks the whole chain.
		for i := deep - 1; i >= 0; i-- {
			if got := ev.Status(obs[i]); got != want(i) {
				t.Fatalf("c%d: %+v, want %+v", i, got, want(i))
			}
		}
		// A fresh evaluator asked for the last link alone.
		if got := l.At(now).Status(obs[deep-1]); got != want(deep-1) {
			t.Fatalf("c%d alone: %+v, want %+v", deep-1, got, want(deep-1))
		}
	}

	t.Run("open", func(t *testing.T) {
		l := build(false, nil)
		check(t, l, func(i int) fold.Status {
			if i == 0 {
				return fold.Status{State: fold.Detached, Phase: pinki.PhaseAcknowledged}
			}
			return fold.Status{State: fold.Conditional}
		})
	})

	t.Run("satisfied_in_reverse", func(t *testing.T) {
		// Every link is resolved satisfied, the last link first and the root
		// last, each a second after the previous resolve: all satisfied, and
		// none late (each resolved in time, no antecedent ended unsatisfied).
		at := func(i int) time.Time { return deepStart.Add(time.Duration(deep-i) * time.Second) }
		l := build(false, func(l *fold.Ledger, seq *int64) {
			for i := deep - 1; i >= 0; i-- {
				e := resolveEvent(i, pinki.Satisfied, at(i))
				*seq++
				l.Apply(*seq, &e)
			}
		})
		check(t, l, func(i int) fold.Status {
			return fold.Status{State: fold.Satisfied, EndedAt: at(i).UnixNano()}
		})
	})

	t.Run("cancelled_root", func(t *testing.T) {
		// The root is cancelled: every other link expires, transitively, at
		// the instant the root ended.
		end := deepStart.Add(30 * time.Minute)
		l := build(false, func(l *fold.Ledger, seq *int64) {
			e := resolveEvent(0, pinki.Cancelled, end)
			e.Evidence, e.Reason = nil, "dropped"
			*seq++
			l.Apply(*seq, &e)
		})
		check(t, l, func(i int) fold.Status {
			if i == 0 {
				return fold.Status{State: fold.Cancelled, EndedAt: end.UnixNano()}
			}
			return fold.Status{State: fold.Expired, EndedAt: end.UnixNano()}
		})
	})

	t.Run("ring", func(t *testing.T) {
		// The root waits on the last link: one cycle of 100,000, all
		// conditional.
		l := build(true, nil)
		check(t, l, func(int) fold.Status { return fold.Status{State: fold.Conditional} })
	})
}
