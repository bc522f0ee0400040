package jsonl

import (
	"path/filepath"
	"testing"

	"github.com/pinki-ledger/pinki/storetest"
)

// BenchmarkAppend measures one-event appends: "single" one at a time (each
// pays its own lock, write and fsync), "parallel" from many goroutines at
// once (group commit shares them), and "nosync" one at a time without fsync
// (everything but the disk).
func BenchmarkAppend(b *testing.B) {
	for _, bc := range []struct {
		name     string
		parallel bool
		opts     Options
	}{
		{"single", false, Options{}},
		{"parallel", true, Options{}},
		{"nosync", false, Options{NoSync: true}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s, err := Open(filepath.Join(b.TempDir(), DirName, FileName), bc.opts)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			storetest.BenchAppend(b, s, bc.parallel)
		})
	}
}
