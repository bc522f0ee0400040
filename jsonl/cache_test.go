package jsonl

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/storetest"
)

// TestSnapshotValidity: a snapshot answers only for the ledger bytes it was
// saved from. Appends keep it valid; a replacement, a truncation, and an
// in-place rewrite that keeps the size (outside the sampled bytes of a large
// ledger) make it invalid.
func TestSnapshotValidity(t *testing.T) {
	// A ledger over the 8 MiB under which every byte is hashed, so that the
	// rewrite below falls between samples.
	var buf bytes.Buffer
	for i := 0; buf.Len() < exactBelow+(1<<20); i++ {
		e := promise("id-" + strconv.Itoa(i))
		e.Text = strings.Repeat("a long promise ", 200)
		buf.WriteString(storetest.Line(&e) + "\n")
	}
	data := buf.Bytes()
	setup := func(t *testing.T) (string, *Store, pinki.Position) {
		path := ledgerPath(t)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s := open(t, path, Options{})
		_, pos := readAll(t, s, pinki.Position{})
		if err := s.SaveSnapshot("fold", pos, func(w io.Writer) error { _, err := w.Write([]byte("state")); return err }); err != nil {
			t.Fatal(err)
		}
		return path, open(t, path, Options{}), pos
	}
	load := func(s *Store) bool {
		got, _, ok := s.LoadSnapshot("fold")
		return ok && string(got) == "state"
	}

	t.Run("unchanged and appended", func(t *testing.T) {
		path, s, pos := setup(t)
		if !load(s) {
			t.Fatal("a snapshot of the unchanged ledger is not valid")
		}
		appendBytes(path, []byte(promiseLine("later")+"\n"))
		got, at, ok := s.LoadSnapshot("fold")
		if !ok || string(got) != "state" || at != pos {
			t.Fatalf("after an append: %q %+v %v, want the snapshot at %+v", got, at, ok, pos)
		}
	})
	t.Run("rewritten in place, same size", func(t *testing.T) {
		path, s, _ := setup(t)
		edited := bytes.Clone(data)
		// Between the first 64 KiB and the first sampled block after it.
		at := 64<<10 + (int64(len(data))-128<<10)/64/2
		i := bytes.Index(edited[at:], []byte("id-")) + int(at)
		edited[i] = 'I'
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteAt(edited[i:i+1], int64(i)); err != nil {
			t.Fatal(err)
		}
		f.Close()
		later := time.Now().Add(time.Second)
		if err := os.Chtimes(path, later, later); err != nil {
			t.Fatal(err)
		}
		if load(s) {
			t.Fatal("a snapshot of a ledger rewritten in place is still valid")
		}
	})
	t.Run("truncated", func(t *testing.T) {
		path, s, _ := setup(t)
		if err := os.Truncate(path, int64(len(data)/2)); err != nil {
			t.Fatal(err)
		}
		if load(s) {
			t.Fatal("a snapshot of a truncated ledger is still valid")
		}
	})
	t.Run("replaced", func(t *testing.T) {
		path, s, _ := setup(t)
		tmp := path + ".new"
		if err := os.WriteFile(tmp, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
		if load(s) {
			t.Fatal("a snapshot of a replaced ledger is still valid")
		}
	})
}
