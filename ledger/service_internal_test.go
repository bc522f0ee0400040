package ledger

import (
	"testing"

	"github.com/pinki-ledger/pinki"
)

// TestReadsBack: the last guard before an append refuses an event whose
// line the decoder would refuse, whatever field let it through.
func TestReadsBack(t *testing.T) {
	good := pinki.Event{Type: pinki.TypePromise, TS: "2026-09-01T12:00:00Z", ID: "p1", Text: "x",
		By: "alice", To: "bob", Until: "2026-09-02T12:00:00Z"}
	if err := readsBack([]pinki.Event{good}); err != nil {
		t.Fatalf("a well-formed promise: %v", err)
	}
	for name, mutate := range map[string]func(e *pinki.Event){
		"meta not finite": func(e *pinki.Event) { e.Meta = `{"n":1e400}` },
		"meta not json":   func(e *pinki.Event) { e.Meta = `{"n":` },
		"ts without zone": func(e *pinki.Event) { e.TS = "2026-09-01T12:00:00" },
		"unknown lapse":   func(e *pinki.Event) { e.Lapse = "linger" },
		"invalid utf-8":   func(e *pinki.Event) { e.Text = "\xff" },
	} {
		e := good
		mutate(&e)
		err := readsBack([]pinki.Event{good, e})
		if pinki.ErrorCode(err) != pinki.CodeInvalid {
			t.Errorf("%s: %v, want invalid", name, err)
		}
	}
}
