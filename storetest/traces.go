package storetest

import (
	"flag"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/internal/foldtrace"
	"github.com/pinki-ledger/pinki/internal/trace"
)

// RunTraces runs every fold trace (fold/testdata/*.txt) with a fresh store
// per file: each "ledger" case appends its lines to the store, and each query
// folds what the store reads back. The answers must be the pure fold's.
//
// A trace with a line this version cannot decode needs a store that holds raw
// lines (RawAppender); for any other store it is skipped, saying so.
func RunTraces(t *testing.T, open func(t *testing.T) pinki.Store) {
	if f := flag.Lookup("rewrite"); f != nil && f.Value.String() == "true" {
		t.Skip("-rewrite: the traces are rewritten from the pure fold, in package fold, not from a store")
	}
	trace.Run(t, traceDir(t), func(t *testing.T, path string) trace.Runner {
		b := &traceBackend{store: open(t)}
		inner := foldtrace.Runner(t, b)
		return func(c *trace.Case) string {
			if c.Cmd == "ledger" {
				if raw, bad, err := undecodable(c.Input); bad > 0 {
					ra, ok := b.store.(RawAppender)
					if !ok {
						t.Skipf("%s: input line %d does not decode (%v), and %T holds decoded events only: this trace cannot run against it", c.Pos, bad, err, b.store)
					}
					if _, err := ra.AppendRaw(testContext(t), raw); err != nil {
						t.Fatalf("%s: AppendRaw: %v", c.Pos, err)
					}
					return ""
				}
			}
			return inner(c)
		}
	})
}

// traceDir is fold/testdata, found from this source file.
func traceDir(t *testing.T) string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		t.Fatal("storetest: cannot locate its source to find fold/testdata")
	}
	return filepath.Join(filepath.Dir(file), "..", "fold", "testdata")
}

// undecodable splits a case's input into lines and reports the first (1-based)
// that does not decode, or 0.
func undecodable(input string) (lines [][]byte, bad int, err error) {
	for i, l := range strings.Split(strings.TrimSuffix(input, "\n"), "\n") {
		lines = append(lines, []byte(l))
		if _, derr := pinki.DecodeLine([]byte(l)); derr != nil && bad == 0 {
			bad, err = i+1, derr
		}
	}
	return lines, bad, err
}

// traceBackend is a foldtrace.Backend over a store.
type traceBackend struct {
	store pinki.Store
}

// Append appends the events in one Append and checks they read back
// byte-identical.
func (b *traceBackend) Append(t *testing.T, events []pinki.Event) {
	t.Helper()
	_, before := ReadAll(t, b.store, pinki.Position{})
	MustAppend(t, b.store, events)
	got, _ := ReadAll(t, b.store, before)
	if len(got) != len(events) {
		t.Fatalf("appended %d events, read back %d", len(events), len(got))
	}
	for i := range events {
		if got[i].Err != nil || Line(&got[i].Event) != Line(&events[i]) {
			t.Fatalf("event %d changed in the store:\n got %s\nwant %s", i, Line(&got[i].Event), Line(&events[i]))
		}
	}
}

// Ledger folds everything the store holds.
func (b *traceBackend) Ledger(t *testing.T) *fold.Ledger {
	t.Helper()
	l := fold.New()
	end, err := b.store.Read(testContext(t), pinki.Position{}, func(en pinki.Entry) error {
		l.ApplyEntry(&en)
		return nil
	})
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	l.SetPosition(end)
	return l
}
