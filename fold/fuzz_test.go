package fold_test

import (
	"bytes"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/internal/foldtrace"
)

// FuzzFold folds arbitrary bytes as a ledger (every line that decodes is
// applied, the rest skipped, as a reader does) and checks that the fold never
// panics, that evaluating every status at every instant the ledger names
// terminates and gives a coherent status, that the order of evaluation does
// not matter, and that mutating every meta changes nothing. The seed corpus
// (run by plain `go test`) is every trace's ledger, every compat ledger and a
// few generated ledgers.
func FuzzFold(f *testing.F) {
	for _, path := range traceFiles(f) {
		var lines []string
		for _, b := range traceLedgers(f, path) {
			lines = append(lines, b...)
		}
		f.Add([]byte(strings.Join(lines, "\n")))
	}
	compat, _ := filepath.Glob(filepath.Join("..", "testdata", "compat", "*.jsonl"))
	for _, path := range compat {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	r := rand.New(rand.NewSource(3))
	for i := 0; i < 8; i++ {
		f.Add([]byte(strings.Join(genLedger(r, 40), "\n")))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var events []pinki.Event
		for _, line := range bytes.Split(data, []byte("\n")) {
			if e, err := pinki.DecodeLine(line); err == nil {
				events = append(events, e)
			}
			if len(events) == 400 {
				break
			}
		}
		l := foldEvents(events)
		nows := instants(events)
		if len(nows) > 48 {
			// Keep each input fast: the far ends and an even sample.
			step := len(nows) / 46
			var sample []int64
			for i := 0; i < len(nows); i += step {
				sample = append(sample, nows[i])
			}
			nows = append(sample, nows[len(nows)-1])
		}
		mutated := make([]*fold.Ledger, len(metaMutations))
		for i, m := range metaMutations {
			mutated[i] = foldEvents(withMeta(events, m.meta))
		}
		n := l.Len()
		reverse := make([]int, n)
		for i := range reverse {
			reverse[i] = n - 1 - i
		}
		for _, now := range nows {
			ev := l.At(now)
			listing := make(map[string]fold.Status, n)
			for _, o := range l.Obligations() {
				s := ev.Status(o)
				coherent(t, o, s, now)
				listing[o.ID()] = s
			}
			if got := statusesInOrder(l, now, reverse); describe(got) != describe(listing) {
				t.Fatalf("at %d the evaluation order changes statuses:\n%s---\n%s", now, describe(listing), describe(got))
			}
			want := foldtrace.Snapshot(l, now)
			for i, m := range metaMutations {
				if got := foldtrace.Snapshot(mutated[i], now); got != want {
					t.Fatalf("at %d meta %s changes the fold:\n%s---\n%s", now, m.name, want, got)
				}
			}
		}
	})
}

// coherent checks what must hold of any status (SPEC §1–2).
func coherent(t *testing.T, o *fold.Obligation, s fold.Status, now int64) {
	t.Helper()
	_, horizon := o.Horizon()
	fail := func(why string) { t.Fatalf("%s at %d: %+v: %s", o.ID(), now, s, why) }
	switch {
	case !s.State.Valid():
		fail("not a state")
	case s.Late && s.State != fold.Satisfied:
		fail("late on a state other than satisfied")
	case (s.Phase != "") != s.State.Owed():
		fail("a phase on a state that is not owed, or none on one that is")
	case s.State.Open() && s.EndedAt != 0:
		fail("an open state with an end")
	case s.State == fold.Proposed && o.Kind != fold.KindAgreement:
		fail("proposed, but not an agreement")
	case s.State == fold.Overdue && now <= horizon:
		fail("overdue at or before the horizon")
	case s.State == fold.Detached && now > horizon:
		fail("detached past the horizon")
	case o.Rev < 1 || o.Rev > o.Version:
		fail("rev outside 1..version")
	}
	if r := o.Resolution; r != nil {
		if s.State != fold.State(r.As) {
			fail("resolved " + string(r.As) + " but computed otherwise")
		}
		if s.EndedAt != r.At {
			fail("ended other than at the resolve's ts")
		}
	} else if !s.State.Open() && s.State != fold.Expired {
		fail("an outcome without a resolve")
	}
}
