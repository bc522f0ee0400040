package fold_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/internal/foldtrace"
)

// snapTraces folds the input of every `ledger` command of every trace into
// one ledger per file, returning them with the snapInstants their `state`
// commands name.
func snapTraces(t *testing.T) map[string][]pinki.Event {
	t.Helper()
	files, _ := filepath.Glob("testdata/*.txt")
	out := map[string][]pinki.Event{}
	for _, path := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var evs []pinki.Event
		for _, line := range strings.Split(string(data), "\n") {
			if !strings.HasPrefix(line, "{") {
				continue
			}
			e, err := pinki.DecodeLine([]byte(line))
			if err != nil {
				continue
			}
			evs = append(evs, e)
		}
		out[filepath.Base(path)] = evs
	}
	return out
}

func fromEvents(evs []pinki.Event) *fold.Ledger {
	l := fold.New()
	for i := range evs {
		l.Apply(int64(i+1), &evs[i])
	}
	return l
}

var snapInstants = []string{"2026-08-01T00:00:00Z", "2026-09-01T09:00:00Z", "2026-09-01T12:00:00Z",
	"2026-09-01T17:00:00Z", "2026-09-01T17:00:01Z", "2026-09-02T12:00:00Z", "2027-01-01T00:00:00Z"}

// TestSnapshotRoundTrip: a ledger loaded from its snapshot answers every
// question exactly as the ledger did, and encodes to the same bytes.
func TestSnapshotRoundTrip(t *testing.T) {
	for name, evs := range snapTraces(t) {
		l := fromEvents(evs)
		data := l.Snapshot()
		back, err := fold.LoadSnapshot(bytes.Clone(data))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, at := range snapInstants {
			now, _ := pinki.ParseInstant(at)
			if a, b := foldtrace.States(l, now, nil), foldtrace.States(back, now, nil); a != b {
				t.Errorf("%s at %s:\n%s\nafter the round trip:\n%s", name, at, a, b)
			}
		}
		if !bytes.Equal(back.Snapshot(), data) && len(back.Ignored()) == 0 {
			t.Errorf("%s: a second encoding differs", name)
		}
		if len(back.Ignored()) != len(l.Ignored()) || len(back.Unknown()) != len(l.Unknown()) {
			t.Errorf("%s: ignored or unknown lines lost", name)
		}
	}
}

// TestSnapshotRejectsGarbage: truncated or corrupted snapshots are refused,
// never loaded half-way, and never panic.
func TestSnapshotRejectsGarbage(t *testing.T) {
	evs := snapTraces(t)["article_lifecycle.txt"]
	data := fromEvents(evs).Snapshot()
	for i := 0; i < len(data); i++ {
		if _, err := fold.LoadSnapshot(data[:i]); err == nil {
			t.Fatalf("a snapshot cut at %d of %d bytes loaded", i, len(data))
		}
	}
	bad := bytes.Clone(data)
	bad[len("pinki-fold\x00")] ^= 0xff
	if _, err := fold.LoadSnapshot(bad); err == nil {
		t.Fatal("a snapshot of another version loaded")
	}
}

// TestSubsetAnswersAsTheWhole: for every trace and every seat, a seat's view
// gives each of its open obligations the status the whole ledger gives, at
// every instant; folding lines after the view was taken keeps it exact, or
// marks it incomplete.
func TestSubsetAnswersAsTheWhole(t *testing.T) {
	compared, views, incomplete := 0, 0, 0
	for name, evs := range snapTraces(t) {
		for cut := 0; cut <= len(evs); cut++ {
			whole := fromEvents(evs[:cut])
			seats := map[string]bool{}
			for _, e := range evs {
				seats[e.By], seats[e.To] = true, true
			}
			for seat := range seats {
				if seat == "" {
					continue
				}
				view, err := fold.LoadSnapshot(whole.Subset(seat).Snapshot())
				if err != nil {
					t.Fatal(err)
				}
				full := fromEvents(evs[:cut])
				for i := cut; i < len(evs); i++ {
					view.Apply(int64(i+1), &evs[i])
					full.Apply(int64(i+1), &evs[i])
				}
				views++
				if view.Incomplete() {
					incomplete++
					continue
				}
				for _, at := range snapInstants {
					now, _ := pinki.ParseInstant(at)
					ev, fv := full.At(now), view.At(now)
					for _, o := range full.Obligations() {
						if !o.Party(seat) {
							continue
						}
						want := ev.Status(o)
						vo := view.Get(o.ID())
						if vo == nil {
							if want.State.Open() {
								t.Errorf("%s cut %d seat %s at %s: %s is open (%s) but not in the view", name, cut, seat, at, o.ID(), want.State)
							}
							continue
						}
						compared++
						if got := fv.Status(vo); (want.State.Open() || got.State.Open()) && got != want {
							t.Errorf("%s cut %d seat %s at %s: %s is %s in the view, %s in the ledger", name, cut, seat, at, o.ID(), got.State, want.State)
						}
					}
				}
			}
		}
	}
	t.Logf("%d views (%d incomplete), %d statuses compared", views, incomplete, compared)
	if compared < 1000 || incomplete*2 > views {
		t.Fatalf("the test compared too little: %d views, %d incomplete, %d statuses", views, incomplete, compared)
	}
}

// TestSubsetRedeclaredID: a line after the view declaring, for the view's
// seat, an id the ledger already holds among what the view left out (a
// resolved obligation, another seat's) is ignored by the whole fold; the view
// must not count it, so it gives up. A new id keeps the view usable.
func TestSubsetRedeclaredID(t *testing.T) {
	dec := func(s string) pinki.Event {
		e, err := pinki.DecodeLine([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	base := []pinki.Event{
		dec(`{"type":"promise","ts":"2026-09-01T09:00:00Z","id":"done","promise":"x","by":"alice","to":"bob","until":"2026-09-02T00:00:00Z"}`),
		dec(`{"type":"resolve","ts":"2026-09-01T10:00:00Z","promise":"done","as":"satisfied","by":"alice","evidence":["e"]}`),
		dec(`{"type":"promise","ts":"2026-09-01T09:00:00Z","id":"carols","promise":"y","by":"carol","to":"dave","until":"2026-09-02T00:00:00Z"}`),
	}
	for _, tc := range []struct {
		line           string
		wantIncomplete bool
	}{
		{`{"type":"promise","ts":"2026-09-01T11:00:00Z","id":"done","promise":"again","by":"alice","to":"bob","until":"2026-09-03T00:00:00Z"}`, true},
		{`{"type":"request","ts":"2026-09-01T11:00:00Z","id":"carols","promise":"z","by":"erin","to":"alice","until":"2026-09-03T00:00:00Z"}`, true},
		{`{"type":"promise","ts":"2026-09-01T11:00:00Z","id":"fresh","promise":"new","by":"alice","to":"bob","until":"2026-09-03T00:00:00Z"}`, false},
	} {
		whole := fromEvents(base)
		view, err := fold.LoadSnapshot(whole.Subset("alice").Snapshot())
		if err != nil {
			t.Fatal(err)
		}
		e := dec(tc.line)
		seq := int64(len(base) + 1)
		whole.Apply(seq, &e)
		view.Apply(seq, &e)
		if view.Incomplete() != tc.wantIncomplete {
			t.Errorf("%s: incomplete %v, want %v", e.ID, view.Incomplete(), tc.wantIncomplete)
		}
		if view.Incomplete() {
			continue
		}
		now, _ := pinki.ParseInstant("2026-09-01T12:00:00Z")
		want, got := whole.At(now).Status(whole.Get(e.ID)), view.At(now).Status(view.Get(e.ID))
		if got != want {
			t.Errorf("%s: %s in the view, %s in the ledger", e.ID, got.State, want.State)
		}
	}
}
