package a2a_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/jsonl"
	"github.com/pinki-ledger/pinki/ledger"
)

// testNow is the fixed clock of every ledger in these tests.
var testNow = time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)

// fileLedger is a file ledger in a temporary folder with a fixed clock.
type fileLedger struct {
	path string
	svc  *ledger.Service
}

func newFileLedger(t *testing.T) *fileLedger {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".pinki", "ledger.jsonl")
	st, err := jsonl.Open(path, jsonl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc := ledger.New(st, ledger.Options{Clock: func() time.Time { return testNow }})
	t.Cleanup(func() { svc.Close(); st.Close() })
	return &fileLedger{path: path, svc: svc}
}

// lines returns the ledger's lines.
func (l *fileLedger) lines(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(l.path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

func (l *fileLedger) get(t *testing.T, id string) ledger.Detail {
	t.Helper()
	d, err := l.svc.Get(context.Background(), pinki.Identity{}, ledger.Query{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	return d
}
