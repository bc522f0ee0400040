package fold_test

import (
	"testing"

	"github.com/pinki-ledger/pinki/internal/foldtrace"
	"github.com/pinki-ledger/pinki/internal/trace"
)

// TestTraces runs every trace in testdata against the pure fold.
func TestTraces(t *testing.T) {
	trace.Run(t, "testdata", func(t *testing.T, path string) trace.Runner {
		return foldtrace.Runner(t, foldtrace.NewPure())
	})
}
