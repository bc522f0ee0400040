package ledger_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/jsonl"
	"github.com/pinki-ledger/pinki/ledger"
)

var cacheNow = time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)

// process is one CLI-like run: a fresh store and service over path, asking
// one question. SnapshotEvery is small so that the test's ledgers get cached.
func process(t *testing.T, path string, ask func(*ledger.Service) any) string {
	t.Helper()
	st, err := jsonl.Open(path, jsonl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var unknown []string
	svc := ledger.New(st, ledger.Options{Clock: func() time.Time { return cacheNow }, SnapshotEvery: 4,
		OnUnknownLine: func(seq int64, _ []byte, err error) { unknown = append(unknown, fmt.Sprintf("line %d: %v", seq, err)) }})
	out, err := json.Marshal(ask(svc))
	if err != nil {
		t.Fatal(err)
	}
	return string(out) + fmt.Sprint(unknown)
}

func seatOpen(seat string) func(*ledger.Service) any {
	return func(svc *ledger.Service) any {
		p, err := svc.List(context.Background(), pinki.Identity{}, ledger.Filter{By: seat})
		if err != nil {
			return err.Error()
		}
		p.Total = 0 // a view does not count the ledger; compare the items
		return p
	}
}

func all(svc *ledger.Service) any {
	p, err := svc.List(context.Background(), pinki.Identity{}, ledger.Filter{Scope: ledger.ScopeAll})
	if err != nil {
		return err.Error()
	}
	return p
}

func briefing(seat string) func(*ledger.Service) any {
	return func(svc *ledger.Service) any {
		b, err := svc.Prime(context.Background(), pinki.Identity{}, ledger.Query{Seat: seat})
		if err != nil {
			return err.Error()
		}
		return b
	}
}

// uncached answers the same question with the cache removed first.
func uncached(t *testing.T, path string, ask func(*ledger.Service) any) string {
	t.Helper()
	os.RemoveAll(filepath.Join(filepath.Dir(path), jsonl.CacheDir))
	return process(t, path, ask)
}

func lines(n int, seat string, extra ...string) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"ts":"2026-09-01T09:00:00Z","type":"promise","id":"p%d","promise":"task %d","by":"%s","to":"boss","until":"2026-09-0%dT17:00:00Z"}`+"\n", i, i, seat, 1+i%3)
	}
	for _, e := range extra {
		b.WriteString(e + "\n")
	}
	return b.String()
}

// TestCacheNeverChangesAnAnswer: answers with a warm cache are the answers
// without one — after appends by another writer, after the file is replaced
// (as by git checkout), after it is rewritten in place, with the cache
// corrupted, and with lines the fold does not understand.
func TestCacheNeverChangesAnAnswer(t *testing.T) {
	questions := map[string]func(*ledger.Service) any{
		"ls --open --by alice": seatOpen("alice"), "ls --all": all, "prime alice": briefing("alice"),
	}
	resolve := `{"ts":"2026-09-01T10:00:00Z","type":"resolve","promise":"p1","as":"satisfied","by":"alice","evidence":["e"]}`
	garbage := `{"ts":"2026-09-01T10:00:00Z","type":"teleport","promise":"p2"}`
	steps := []struct {
		name   string
		change func(t *testing.T, path string)
	}{
		{"first read builds the cache", func(t *testing.T, path string) {}},
		{"warm cache", func(t *testing.T, path string) {}},
		{"another writer appends", func(t *testing.T, path string) {
			f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString(resolve + "\n" + lines(1, "alice")[0:0] + `{"ts":"2026-09-01T10:00:00Z","type":"promise","id":"q1","promise":"new","by":"alice","to":"bob","on":"p0","until":"2026-09-03T17:00:00Z"}` + "\n")
			f.Close()
		}},
		{"replaced by a checkout (new inode, other content)", func(t *testing.T, path string) {
			tmp := path + ".new"
			os.WriteFile(tmp, []byte(lines(7, "alice")), 0o644)
			os.Rename(tmp, path)
		}},
		{"rewritten in place, same length", func(t *testing.T, path string) {
			data, _ := os.ReadFile(path)
			s := strings.Replace(string(data), `"by":"alice"`, `"by":"bobby"`, 1)
			os.WriteFile(path, []byte(s), 0o644) // truncates and writes: same inode
		}},
		{"cache corrupted", func(t *testing.T, path string) {
			matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), jsonl.CacheDir, "*.snap"))
			for _, m := range matches {
				data, _ := os.ReadFile(m)
				os.WriteFile(m, data[:len(data)/2], 0o600)
			}
		}},
		{"a line it does not understand", func(t *testing.T, path string) {
			f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			f.WriteString(garbage + "\n")
			f.Close()
		}},
		{"warm again after the unknown line", func(t *testing.T, path string) {}},
	}
	path := filepath.Join(t.TempDir(), ".pinki", "ledger.jsonl")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(lines(9, "alice")), 0o644)
	for _, step := range steps {
		step.change(t, path)
		for name, ask := range questions {
			warm := process(t, path, ask)
			// Once more warm: the first process may have just written the cache.
			again := process(t, path, ask)
			cold := uncached(t, path, ask)
			if warm != cold || again != cold {
				t.Errorf("%s, %s:\nwith the cache: %s\n      again:    %s\nwithout:        %s", step.name, name, warm, again, cold)
			}
			process(t, path, ask) // leave a cache behind for the next step
		}
	}
	// Whatever question ran last, a seat's question leaves both snapshots.
	process(t, path, seatOpen("alice"))
	matches, _ := filepath.Glob(filepath.Join(filepath.Dir(path), jsonl.CacheDir, "*.snap"))
	if len(matches) < 2 {
		t.Fatalf("the test never exercised a cache: %v", matches)
	}
}

// TestViewUsed: a seat's question on a ledger with a warm cache is answered
// without folding the whole ledger (the answer says so: it cannot count the
// rest).
func TestViewUsed(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".pinki", "ledger.jsonl")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte(lines(30, "alice")), 0o644)
	total := func(svc *ledger.Service) any {
		p, _ := svc.List(context.Background(), pinki.Identity{}, ledger.Filter{By: "alice", States: []fold.State{fold.Detached}})
		return p.Total
	}
	if got := process(t, path, total); got != "30[]" {
		t.Fatalf("cold: %s", got)
	}
	if got := process(t, path, total); got != "-1[]" {
		t.Fatalf("warm: %s, want the view's -1", got)
	}
}
