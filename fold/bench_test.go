package fold_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/internal/ledgergen"
)

var (
	benchOnce  sync.Once
	benchLines [][]byte
	benchBytes int64
)

// benchLedger is a generated ledger of 200,000 events (50,000 obligations
// over 50 seats), split into lines.
func benchLedger(b *testing.B) [][]byte {
	benchOnce.Do(func() {
		var buf bytes.Buffer
		if err := ledgergen.Write(&buf, 200_000, 50, 1); err != nil {
			b.Fatal(err)
		}
		benchBytes = int64(buf.Len())
		for _, line := range bytes.SplitAfter(buf.Bytes(), []byte("\n")) {
			if len(line) > 1 {
				benchLines = append(benchLines, line[:len(line)-1])
			}
		}
	})
	return benchLines
}

// BenchmarkFold decodes and folds a whole ledger from memory: the fold's
// throughput in bytes of ledger per second (MB/s).
func BenchmarkFold(b *testing.B) {
	lines := benchLedger(b)
	b.SetBytes(benchBytes)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var dec pinki.Decoder
		l := fold.New()
		for j, line := range lines {
			e, err := dec.Decode(line)
			if err != nil {
				b.Fatal(err)
			}
			l.Apply(int64(j+1), &e)
		}
	}
}

// BenchmarkStatusAll computes every obligation's status once.
func BenchmarkStatusAll(b *testing.B) {
	lines := benchLedger(b)
	var dec pinki.Decoder
	l := fold.New()
	for j, line := range lines {
		e, _ := dec.Decode(line)
		l.Apply(int64(j+1), &e)
	}
	now, _ := pinki.ParseInstant("2026-06-01T00:00:00Z")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev := l.At(now)
		for _, o := range l.Obligations() {
			ev.Status(o)
		}
	}
}

// BenchmarkSnapshotLoad decodes a snapshot of the whole fold.
func BenchmarkSnapshotLoad(b *testing.B) {
	lines := benchLedger(b)
	var dec pinki.Decoder
	l := fold.New()
	for j, line := range lines {
		e, _ := dec.Decode(line)
		l.Apply(int64(j+1), &e)
	}
	data := l.Snapshot()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := fold.LoadSnapshot(data); err != nil {
			b.Fatal(err)
		}
	}
}
