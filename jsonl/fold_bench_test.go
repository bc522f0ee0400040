package jsonl_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/internal/ledgergen"
	"github.com/pinki-ledger/pinki/jsonl"
)

// BenchmarkFoldFile reads a whole ledger file through the store and folds
// it: the full fold a reader without a cache does, in MB/s of ledger. It
// folds $PINKI_BENCH_LEDGER when set (bench/run.sh sets it to the generated
// 1,000,000-event ledger), else a generated 200,000-event one.
func BenchmarkFoldFile(b *testing.B) {
	path := os.Getenv("PINKI_BENCH_LEDGER")
	if path == "" {
		path = filepath.Join(b.TempDir(), "ledger.jsonl")
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		if err := ledgergen.Write(f, 200_000, 50, 1); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		st, err := jsonl.Open(path, jsonl.Options{ReadOnly: true})
		if err != nil {
			b.Fatal(err)
		}
		l := fold.New()
		if _, err := st.Read(context.Background(), pinki.Position{}, func(en pinki.Entry) error {
			l.ApplyEntry(&en)
			return nil
		}); err != nil {
			b.Fatal(err)
		}
		st.Close()
	}
}
