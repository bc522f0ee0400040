// Package storetest is the one suite every pinki.Store adapter runs: the
// store contract (round trip, positions, fences, atomic batches, Wait,
// concurrency, Close), the fold traces of package fold replayed through the
// store, and the service rules of package ledger over the store. A backend's
// test calls Run with a function that opens a fresh, empty store.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
)

// Run runs the whole suite. open must return a new, empty store each time it
// is called (it may register its own cleanup with t); the suite closes every
// store it opens, so Close must be idempotent.
func Run(t *testing.T, open func(t *testing.T) pinki.Store) {
	t.Helper()
	opener := func(t *testing.T) pinki.Store {
		t.Helper()
		s := open(t)
		t.Cleanup(func() { s.Close() })
		return s
	}
	t.Run("Store", func(t *testing.T) { RunStore(t, opener) })
	t.Run("Traces", func(t *testing.T) { RunTraces(t, opener) })
	t.Run("Service", func(t *testing.T) { RunService(t, opener) })
}

// timeout bounds every wait in the suite; no test should come near it. It
// turns a hang into a failure, and is not a performance assertion.
const timeout = 20 * time.Second

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	return ctx
}

// ReadAll reads every entry after from, failing the test on error, and
// returns them with the position Read ended at.
func ReadAll(t *testing.T, s pinki.Store, from pinki.Position) ([]pinki.Entry, pinki.Position) {
	t.Helper()
	var out []pinki.Entry
	end, err := s.Read(testContext(t), from, func(en pinki.Entry) error {
		out = append(out, en)
		return nil
	})
	if err != nil {
		t.Fatalf("Read(%+v): %v", from, err)
	}
	return out, end
}

// MustAppend appends events with fences, failing the test on error.
func MustAppend(t *testing.T, s pinki.Store, events []pinki.Event, fences ...pinki.Fence) pinki.Position {
	t.Helper()
	pos, err := s.Append(testContext(t), events, fences)
	if err != nil {
		t.Fatalf("Append(%s): %v", describe(events), err)
	}
	return pos
}

// wantCode fails the test unless err carries code.
func wantCode(t *testing.T, err error, code pinki.Code, what string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: succeeded, want a %s error", what, code)
	}
	var pe *pinki.Error
	if !errors.As(err, &pe) {
		t.Fatalf("%s: error %v (%T) is not a *pinki.Error, want code %s", what, err, err, code)
	}
	if pe.Code != code {
		t.Fatalf("%s: error code %s (%v), want %s", what, pe.Code, err, code)
	}
}

// race runs fn(0) … fn(n-1) in goroutines released at the same moment and
// returns their errors.
func race(n int, fn func(i int) error) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = fn(i)
		}()
	}
	close(start)
	wg.Wait()
	return errs
}

func describe(events []pinki.Event) string {
	if len(events) == 1 {
		return fmt.Sprintf("%s %s", events[0].Type, events[0].Key())
	}
	return fmt.Sprintf("%d events", len(events))
}

// Line renders an event as the ledger line (without its newline) a store
// must hand back.
func Line(e *pinki.Event) string {
	b := pinki.AppendLine(nil, e)
	return string(b[:len(b)-1])
}
