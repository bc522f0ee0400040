package storetest

import (
	"flag"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/internal/foldtrace"
	"github.com/pinki-ledger/pinki/internal/trace"
)

// RunTraces runs every fold trace (fold/testdata/*.txt) with a fresh store
// per file: each "ledger" case appends its lines to the store, and each query
// folds what the store reads back. The answers must be the pure fold's. (The
// traces hold lines this version decodes; lines it does not are the stores'
// own tests and the CLI's, which check they are reported and skipped.)
func RunTraces(t *testing.T, open func(t *testing.T) pinki.Store) {
	if f := flag.Lookup("rewrite"); f != nil && f.Value.String() == "true" {
		t.Skip("-rewrite: the traces are rewritten from the pure fold, in package fold, not from a store")
	}
	trace.Run(t, traceDir(t), func(t *testing.T, path string) trace.Runner {
		return foldtrace.Runner(t, &traceBackend{store: open(t)})
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
