package reconcile_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/reconcile"
)

var now = time.Date(2026, 9, 2, 12, 0, 0, 0, time.UTC)

// golden compares got with testdata/name; PINKI_REWRITE=1 rewrites it.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if os.Getenv("PINKI_REWRITE") != "" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (PINKI_REWRITE=1 go test ./reconcile/ writes it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (PINKI_REWRITE=1 rewrites it):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

func files(t *testing.T) reconcile.Report {
	t.Helper()
	r, err := reconcile.Files(context.Background(), "testdata/author.jsonl", "testdata/reviewer.jsonl", reconcile.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestArticleCase(t *testing.T) {
	r := files(t)
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	golden(t, "author_reviewer.txt", text.Bytes())
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "author_reviewer.json", append(js, '\n'))

	byID := map[string]reconcile.Entry{}
	for _, e := range r.Entries {
		byID[e.ID] = e
	}
	want := map[string][]reconcile.Kind{
		"desk/ship-91": {reconcile.Resolution, reconcile.Contradiction},
		"desk/horizon": {reconcile.Horizon},
		"desk/only-a":  {reconcile.OnlyA},
		"desk/only-b":  {reconcile.OnlyB},
		"desk/ended":   {reconcile.Resolution, reconcile.Contradiction},
	}
	for id, kinds := range want {
		if !slices.Equal(byID[id].Kinds, kinds) {
			t.Errorf("%s: kinds %v, want %v", id, byID[id].Kinds, kinds)
		}
	}
	if _, ok := byID["desk/same"]; ok || r.Aligned != 1 {
		t.Errorf("desk/same differs only in meta, which is never compared: %+v", byID["desk/same"])
	}
	// The article's case: both records stay true, side by side.
	ship := byID["desk/ship-91"]
	if ship.A.State != "overdue" || ship.B.State != "satisfied" || !ship.B.Late || len(ship.A.Assessments) != 1 {
		t.Errorf("ship-91 sides: A %+v, B %+v", ship.A, ship.B)
	}
	found := false
	for _, d := range ship.Differences {
		found = found || strings.Contains(d, "A: https://example.org/agents/author assessed violated") &&
			strings.Contains(d, "B: https://example.org/agents/reviewer resolved it late, satisfied")
	}
	if !found {
		t.Errorf("no contradiction between the observer's violated and the debtor's late satisfied: %q", ship.Differences)
	}
}

func TestSameLedgerAligns(t *testing.T) {
	r, err := reconcile.Files(context.Background(), "testdata/reviewer.jsonl", "testdata/reviewer.jsonl", reconcile.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	// Only the contradiction the ledger holds within itself remains.
	if len(r.Entries) != 1 || r.Entries[0].ID != "desk/ended" || !slices.Equal(r.Entries[0].Kinds, []reconcile.Kind{reconcile.Contradiction}) {
		t.Errorf("a ledger joined with itself: %+v", r.Entries)
	}
	if r.Entries[0].Differences[0] != "A+B: https://example.org/agents/pm assessed kept at 2026-09-02T10:00:00Z, while A+B: it ended cancelled" {
		t.Errorf("%q", r.Entries[0].Differences)
	}
}

func TestMissingLedger(t *testing.T) {
	_, err := reconcile.Files(context.Background(), "testdata/author.jsonl", "testdata/none.jsonl", reconcile.Options{Now: now})
	if pinki.ErrorCode(err) != pinki.CodeNotFound || !strings.Contains(err.Error(), "testdata/none.jsonl") {
		t.Errorf("missing ledger: %v", err)
	}
}

func TestUnknownLinesListed(t *testing.T) {
	dir := t.TempDir()
	data, _ := os.ReadFile("testdata/author.jsonl")
	p := filepath.Join(dir, "a.jsonl")
	os.WriteFile(p, append(data, []byte(`{"ts":"2026-09-02T00:00:00Z","type":"teleport","promise":"desk/same"}`+"\n")...), 0o644)
	r, err := reconcile.Files(context.Background(), p, "testdata/author.jsonl", reconcile.Options{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Unknown) != 1 || !strings.Contains(r.Unknown[0], ":10:") || len(r.Entries) != 0 {
		t.Errorf("unknown lines: %q, entries %+v", r.Unknown, r.Entries)
	}
}

// TestFilesWritesNothing: reconciling two ledgers leaves both folders exactly
// as they were, even a ledger with a torn last line (no quarantine, no lock
// file, no snapshot cache).
func TestFilesWritesNothing(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a", "ledger.jsonl")
	b := filepath.Join(dir, "b", "ledger.jsonl")
	line := `{"ts":"2026-09-01T09:00:00Z","type":"promise","id":"p1","promise":"x","by":"alice","to":"bob","until":"2026-09-02T17:00:00Z"}` + "\n"
	for _, p := range []string{a, b} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(line), 0o644)
	}
	f, _ := os.OpenFile(b, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"ts":"2026-09-01T09:00:00Z","type":"prom`) // torn
	f.Close()
	list := func() string {
		var names []string
		filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
			if err == nil {
				names = append(names, fmt.Sprintf("%s %d", p, fi.Size()))
			}
			return nil
		})
		return strings.Join(names, "\n")
	}
	before := list()
	if _, err := reconcile.Files(context.Background(), a, b, reconcile.Options{}); err != nil {
		t.Fatal(err)
	}
	if after := list(); after != before {
		t.Fatalf("reconcile changed the folders:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
