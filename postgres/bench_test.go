package postgres

import (
	"testing"

	"github.com/pinki-ledger/pinki/storetest"
)

// BenchmarkAppend measures one-event appends: "single" one at a time (one
// transaction each), "parallel" from many goroutines at once (group commit:
// one transaction per batch).
func BenchmarkAppend(b *testing.B) {
	u := testURL(b)
	for _, bc := range []struct {
		name     string
		parallel bool
	}{{"single", false}, {"parallel", true}} {
		b.Run(bc.name, func(b *testing.B) {
			storetest.BenchAppend(b, openStore(b, u, freshSchema(b), Options{}), bc.parallel)
		})
	}
}
