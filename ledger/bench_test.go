package ledger_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/jsonl"
	"github.com/pinki-ledger/pinki/ledger"
)

// BenchmarkCreate declares promises one after another through the service
// on the file ledger, each fsync'd before it returns, and reports the
// latency percentiles of one acknowledged append (p50-ms, p99-ms).
func BenchmarkCreate(b *testing.B) {
	st, err := jsonl.Open(filepath.Join(b.TempDir(), "ledger.jsonl"), jsonl.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	svc := ledger.New(st, ledger.Options{})
	ctx := context.Background()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		_, err := svc.Create(ctx, pinki.Identity{}, ledger.CreateInput{Kind: fold.KindPromise,
			ID: fmt.Sprintf("bench-%d", i), Text: "ship the build", By: "alice", To: "bob", Until: "+2h"})
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(lat[len(lat)/2]), "p50-ms")
	b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
}

// BenchmarkCreateParallel declares promises from many goroutines at once:
// the store commits concurrent appends together (one write, one fsync).
func BenchmarkCreateParallel(b *testing.B) {
	svc, ctx := parallelService(b)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := svc.Create(ctx, pinki.Identity{}, ledger.CreateInput{Kind: fold.KindPromise,
				Text: "ship the build", By: "alice", To: "bob", Until: "+2h"}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkLifecycleParallel runs whole lifecycles from many goroutines at
// once, as the HTTP load does: create, progress, resolve.
func BenchmarkLifecycleParallel(b *testing.B) {
	svc, ctx := parallelService(b)
	b.RunParallel(func(pb *testing.PB) {
		who := pinki.Identity{Seat: "alice", Role: pinki.RoleSeat}
		for pb.Next() {
			r, err := svc.Create(ctx, who, ledger.CreateInput{Kind: fold.KindPromise,
				Text: "ship the build", By: "alice", To: "bob", Until: "+2h"})
			if err == nil {
				_, err = svc.Progress(ctx, who, ledger.ProgressInput{ID: r.ID, Phase: pinki.PhaseInProgress})
			}
			if err == nil {
				_, err = svc.Resolve(ctx, who, ledger.ResolveInput{ID: r.ID, As: pinki.Satisfied, Evidence: []string{"https://example.org/x"}})
			}
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// parallelService is a following service over a fresh file ledger, for 32
// goroutines per core, with the timer reset.
func parallelService(b *testing.B) (*ledger.Service, context.Context) {
	st, err := jsonl.Open(filepath.Join(b.TempDir(), "ledger.jsonl"), jsonl.Options{})
	if err != nil {
		b.Fatal(err)
	}
	svc := ledger.New(st, ledger.Options{Follow: true})
	b.Cleanup(func() { svc.Close(); st.Close() })
	b.SetParallelism(32)
	b.ResetTimer()
	return svc, context.Background()
}
