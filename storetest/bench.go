package storetest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/pinki-ledger/pinki"
)

// BenchAppend is the body of a backend's BenchmarkAppend: b.N appends of one
// promise each (distinct ids, no fences) to s, one at a time (the latency of
// one durable write), or, with parallel, from 16×GOMAXPROCS goroutines at
// once (what group commit makes of concurrent writers).
func BenchAppend(b *testing.B, s pinki.Store, parallel bool) {
	var n atomic.Int64
	appendOne := func() {
		e := Promise(fmt.Sprintf("bench-%d", n.Add(1)))
		if _, err := s.Append(context.Background(), []pinki.Event{e}, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	if !parallel {
		for i := 0; i < b.N; i++ {
			appendOne()
		}
		return
	}
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			appendOne()
		}
	})
}
