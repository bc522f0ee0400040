package jsonl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/internal/groupcommit"
	"github.com/pinki-ledger/pinki/ledger"
	"github.com/pinki-ledger/pinki/storetest"
)

// TestStore runs the suite every store passes.
func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T) pinki.Store {
		s, err := Open(filepath.Join(t.TempDir(), DirName, FileName), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

// appendBytes appends b to the file at path, as a foreign writer would.
func appendBytes(path string, b []byte) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		panic(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		panic(err)
	}
}

var epoch = time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)

var (
	promise = storetest.Promise
	amend   = storetest.Amend
	readAll = storetest.ReadAll
)

// promiseLine is promise(id) as a ledger line.
func promiseLine(id string) string {
	e := promise(id)
	return storetest.Line(&e)
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return c
}

func open(t *testing.T, path string, opts Options) *Store {
	t.Helper()
	s, err := Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func ledgerPath(t *testing.T) string {
	return filepath.Join(t.TempDir(), DirName, FileName)
}

func mustAppend(t *testing.T, s pinki.Store, events ...pinki.Event) pinki.Position {
	t.Helper()
	return storetest.MustAppend(t, s, events)
}

// quarantined returns the contents of every quarantine file beside path.
func quarantined(t *testing.T, path string) []string {
	t.Helper()
	names, _ := filepath.Glob(filepath.Join(filepath.Dir(path), QuarantineDir, "*"))
	var out []string
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

type quarantineLog struct {
	mu    sync.Mutex
	sizes []int
}

func (q *quarantineLog) record(name string, size int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.sizes = append(q.sizes, size)
}

func (q *quarantineLog) got() []int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]int(nil), q.sizes...)
}

func TestTornTailQuarantinedByReader(t *testing.T) {
	path := ledgerPath(t)
	var q quarantineLog
	s := open(t, path, Options{OnQuarantine: q.record})
	mustAppend(t, s, promise("a"))
	mustAppend(t, s, promise("b"))
	fragment := `{"ts":"2026-09-01T12:00:00Z","type":"prom`
	appendBytes(path, []byte(fragment))

	entries, end := readAll(t, s, pinki.Position{})
	if len(entries) != 2 || end.Seq != 2 {
		t.Fatalf("read %d entries up to %+v, want 2", len(entries), end)
	}
	if got := quarantined(t, path); len(got) != 1 || got[0] != fragment {
		t.Fatalf("quarantine holds %q, want the fragment", got)
	}
	if got := q.got(); len(got) != 1 || got[0] != len(fragment) {
		t.Fatalf("OnQuarantine saw sizes %v, want [%d]", got, len(fragment))
	}
	if fi, _ := os.Stat(path); fi.Size() != end.Mark {
		t.Fatalf("the ledger is %d bytes after the repair, want %d", fi.Size(), end.Mark)
	}
	pos := mustAppend(t, s, promise("c"))
	if pos.Seq != 3 {
		t.Fatalf("the append after the repair is at seq %d, want 3", pos.Seq)
	}
	entries, _ = readAll(t, s, pinki.Position{})
	for _, en := range entries {
		if en.Err != nil {
			t.Fatalf("seq %d: %v", en.Seq, en.Err)
		}
	}
	if len(entries) != 3 {
		t.Fatalf("read %d entries, want 3", len(entries))
	}
}

func TestTornTailQuarantinedByWriter(t *testing.T) {
	path := ledgerPath(t)
	var q quarantineLog
	s := open(t, path, Options{OnQuarantine: q.record})
	mustAppend(t, s, promise("a"))
	fragment := promiseLine("torn")[:50]
	appendBytes(path, []byte(fragment))
	// Another process's store appends: it repairs under the lock first.
	other := open(t, path, Options{OnQuarantine: q.record})
	if pos := mustAppend(t, other, promise("b")); pos.Seq != 2 {
		t.Fatalf("append after a torn tail at seq %d, want 2", pos.Seq)
	}
	if got := quarantined(t, path); len(got) != 1 || got[0] != fragment {
		t.Fatalf("quarantine holds %q, want the fragment", got)
	}
	if got := q.got(); len(got) != 1 {
		t.Fatalf("OnQuarantine called %d times, want once", len(got))
	}
	// The first store, which tracked the file before, carries on.
	if pos := mustAppend(t, s, promise("c")); pos.Seq != 3 {
		t.Fatalf("append at seq %d, want 3", pos.Seq)
	}
	entries, _ := readAll(t, s, pinki.Position{})
	var ids []string
	for _, en := range entries {
		if en.Err != nil {
			t.Fatalf("seq %d: %v", en.Seq, en.Err)
		}
		ids = append(ids, en.Event.ID)
	}
	if strings.Join(ids, ",") != "a,b,c" {
		t.Fatalf("ledger holds %v, want a,b,c", ids)
	}
}

// TestTornTailWhileLocked checks that a reader leaves an unterminated line
// alone while a writer holds the lock (it may be mid-write), and that Wait
// does not take it for a new entry.
func TestTornTailWhileLocked(t *testing.T) {
	path := ledgerPath(t)
	s := open(t, path, Options{})
	pos := mustAppend(t, s, promise("a"))
	unlock, err := lockFile(path+".lock", true, 5*time.Second) // the committer unlocks just after it answers
	if err != nil {
		t.Fatal(err)
	}
	appendBytes(path, []byte(`{"ts":"2026`))
	entries, _ := readAll(t, s, pinki.Position{})
	if len(entries) != 1 || len(quarantined(t, path)) != 0 {
		t.Fatalf("read %d entries and quarantined %d fragments while the lock was held", len(entries), len(quarantined(t, path)))
	}
	c, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
	defer cancel()
	if err := s.Wait(c, pos); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait with only a partial line after the position = %v, want the deadline", err)
	}
	unlock()
	readAll(t, s, pinki.Position{})
	if got := quarantined(t, path); len(got) != 1 || got[0] != `{"ts":"2026` {
		t.Fatalf("after unlock, quarantine holds %q", got)
	}
}

func TestReplacedByRename(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ledger.jsonl")
	s := open(t, path, Options{})
	svc := ledger.New(s, ledger.Options{Clock: func() time.Time { return epoch }})
	mustAppend(t, s, promise("old-1"), promise("old-2"))
	if _, err := svc.Get(ctx(t), pinki.Identity{}, ledger.Query{ID: "old-1"}); err != nil {
		t.Fatal(err)
	}
	_, pos := readAll(t, s, pinki.Position{})

	other := open(t, filepath.Join(dir, "other.jsonl"), Options{})
	mustAppend(t, other, promise("new-1"), promise("new-2"), promise("new-3"))
	if err := os.Rename(other.Path(), path); err != nil {
		t.Fatal(err)
	}
	_, err := s.Read(ctx(t), pos, func(pinki.Entry) error { return nil })
	if !errors.Is(err, pinki.ErrReplaced) {
		t.Fatalf("Read from a position in the replaced file = %v, want ErrReplaced", err)
	}
	// A position without its byte mark (a fold part way through a catch-up)
	// is checked against the file's identity all the same: a fence taken on
	// the old file fails, though the new one holds as many lines.
	_, err = s.Append(ctx(t), []pinki.Event{amend("new-1", 1)}, []pinki.Fence{{Subject: "new-1", Version: 1, Seen: pinki.Position{Seq: pos.Seq}}})
	if !errors.Is(err, pinki.ErrReplaced) {
		t.Fatalf("append fenced at an unmarked position of the replaced file = %v, want ErrReplaced", err)
	}
	// The service folds the new file from the start.
	if _, err := svc.Get(ctx(t), pinki.Identity{}, ledger.Query{ID: "new-3"}); err != nil {
		t.Fatalf("after the replacement: %v", err)
	}
	if _, err := svc.Get(ctx(t), pinki.Identity{}, ledger.Query{ID: "old-1"}); pinki.ErrorCode(err) != pinki.CodeNotFound {
		t.Fatalf("old-1 after the replacement: %v, want not found", err)
	}
	if entries, _ := readAll(t, s, pinki.Position{}); len(entries) != 3 {
		t.Fatalf("the new file reads %d entries, want 3", len(entries))
	}
}

// TestReplacedInPlace rewrites the file in place (same inode) with other
// content whose line boundaries fall where the old ones did, under positions
// from a Read and from an Append.
func TestReplacedInPlace(t *testing.T) {
	for _, from := range []string{"read", "append"} {
		t.Run(from, func(t *testing.T) {
			path := ledgerPath(t)
			s := open(t, path, Options{})
			mustAppend(t, s, promise("aa-1"))
			pos := mustAppend(t, s, promise("aa-2"), promise("aa-3"))
			if from == "read" {
				_, pos = readAll(t, s, pinki.Position{})
			}
			var rewrite bytes.Buffer
			for _, id := range []string{"bb-1", "bb-2", "bb-3", "bb-4"} {
				rewrite.WriteString(promiseLine(id) + "\n")
			}
			if err := os.WriteFile(path, rewrite.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := s.Read(ctx(t), pos, func(pinki.Entry) error { return nil })
			if !errors.Is(err, pinki.ErrReplaced) {
				t.Fatalf("Read after an in-place rewrite = %v, want ErrReplaced", err)
			}
			// A fence taken before the rewrite fails too, though the new
			// file is longer and has a line boundary where the old one had.
			_, err = s.Append(ctx(t), []pinki.Event{amend("bb-1", 1)}, []pinki.Fence{{Subject: "bb-1", Version: 1, Seen: pos}})
			if !errors.Is(err, pinki.ErrReplaced) {
				t.Fatalf("append fenced at a position of the replaced file = %v, want ErrReplaced", err)
			}
			if n := bytes.Count(mustRead(t, path), []byte("\n")); n != 4 {
				t.Fatalf("the rewritten file holds %d lines after the refused append, want 4", n)
			}
			// Beyond the new file's end, likewise.
			_, err = s.Append(ctx(t), []pinki.Event{amend("bb-4", 1)}, []pinki.Fence{{Subject: "bb-4", Version: 0, Seen: pinki.Position{Seq: 9, Mark: pos.Mark * 3}}})
			if pinki.ErrorCode(err) != pinki.CodeConflict {
				t.Fatalf("append fenced beyond the rewritten file's end = %v, want a conflict", err)
			}
		})
	}
}

func TestReplacedShorterOrGone(t *testing.T) {
	path := ledgerPath(t)
	s := open(t, path, Options{})
	mustAppend(t, s, promise("a"), promise("b"), promise("c"))
	_, pos := readAll(t, s, pinki.Position{})
	if err := os.WriteFile(path, []byte(promiseLine("z")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, from := range []pinki.Position{pos, {Seq: pos.Seq}} {
		if _, err := s.Read(ctx(t), from, func(pinki.Entry) error { return nil }); !errors.Is(err, pinki.ErrReplaced) {
			t.Fatalf("Read(%+v) from beyond a shortened file = %v, want ErrReplaced", from, err)
		}
	}
	if err := s.Wait(ctx(t), pos); err != nil {
		t.Fatalf("Wait on a position the file no longer holds = %v, want nil (Read reports it)", err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read(ctx(t), pos, func(pinki.Entry) error { return nil }); !errors.Is(err, pinki.ErrReplaced) {
		t.Fatalf("Read from a position in a deleted file = %v, want ErrReplaced", err)
	}
}

func TestLockTimeout(t *testing.T) {
	path := ledgerPath(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	unlock, err := lockFile(path+".lock", true, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := open(t, path, Options{LockTimeout: 50 * time.Millisecond})
	_, err = s.Append(ctx(t), []pinki.Event{promise("a")}, nil)
	var pe *pinki.Error
	if !errors.As(err, &pe) || pe.Code != pinki.CodeUnavailable || pe.Hint == "" {
		t.Fatalf("append while another holds the lock = %v, want CodeUnavailable with a hint", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the refused append left a ledger file: %v", err)
	}
	unlock()
	if pos := mustAppend(t, s, promise("a")); pos.Seq != 1 {
		t.Fatalf("append after the lock was freed at seq %d", pos.Seq)
	}
}

// TestBlankLinesAndCRLF reads a hand-edited file: blank and whitespace lines
// count as lines (sequence numbers are line numbers) but are not entries, and
// CRLF line ends read like LF.
func TestBlankLinesAndCRLF(t *testing.T) {
	path := ledgerPath(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	content := promiseLine("one") + "\r\n" + "\n" + " \t \n" + promiseLine("two") + "\n" + "\r\n" + promiseLine("three") + "\r\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	s := open(t, path, Options{})
	entries, end := readAll(t, s, pinki.Position{})
	var got []string
	for _, en := range entries {
		if en.Err != nil {
			t.Fatalf("seq %d: %v", en.Seq, en.Err)
		}
		got = append(got, fmt.Sprintf("%d:%s", en.Seq, en.Event.ID))
	}
	if strings.Join(got, " ") != "1:one 4:two 6:three" || end.Seq != 6 || end.Mark != int64(len(content)) {
		t.Fatalf("read %v up to %+v", got, end)
	}
	_, err := s.Append(ctx(t), []pinki.Event{amend("two", 1)}, []pinki.Fence{{Subject: "two", Version: 0, Seen: pinki.Position{Seq: 3}}})
	if pinki.ErrorCode(err) != pinki.CodeConflict {
		t.Fatalf("fence before line 4 on its subject = %v, want a conflict", err)
	}
	pos, err := s.Append(ctx(t), []pinki.Event{amend("two", 1)}, []pinki.Fence{{Subject: "two", Version: 1, Seen: pinki.Position{Seq: 4}}})
	if err != nil || pos.Seq != 7 {
		t.Fatalf("append after the hand-edited lines: %+v, %v; want seq 7", pos, err)
	}
	more, _ := readAll(t, s, end)
	if len(more) != 1 || more[0].Seq != 7 {
		t.Fatalf("read on from the end: %+v", more)
	}
	if more, _ := readAll(t, s, pinki.Position{Seq: 5}); len(more) != 2 || more[0].Seq != 6 {
		t.Fatalf("read from line 5 (blank) by seq: %+v", more)
	}
}

// TestPagingBySeq pages through a hand-edited file (blank lines between
// entries) as the Events API does: a few entries per Read, each Read from the
// sequence number the last one stopped at, without a mark.
func TestPagingBySeq(t *testing.T) {
	path := ledgerPath(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var content strings.Builder
	for i := 0; i < 20; i++ {
		content.WriteString(promiseLine(fmt.Sprintf("p%d", i)) + "\n")
		if i%3 == 0 {
			content.WriteString("\n")
		}
	}
	if err := os.WriteFile(path, []byte(content.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s := open(t, path, Options{})
	all, _ := readAll(t, s, pinki.Position{})
	errFull := errors.New("page full")
	var paged []pinki.Entry
	after := int64(0)
	for {
		var page []pinki.Entry
		_, err := s.Read(ctx(t), pinki.Position{Seq: after}, func(en pinki.Entry) error {
			if len(page) == 3 {
				return errFull
			}
			page = append(page, en)
			return nil
		})
		if err != nil && !errors.Is(err, errFull) {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		paged = append(paged, page...)
		after = page[len(page)-1].Seq
	}
	if len(paged) != len(all) {
		t.Fatalf("paging read %d entries, a whole read %d", len(paged), len(all))
	}
	for i := range all {
		if paged[i].Seq != all[i].Seq || paged[i].Event.ID != all[i].Event.ID {
			t.Fatalf("page entry %d is seq %d %s, want seq %d %s", i, paged[i].Seq, paged[i].Event.ID, all[i].Seq, all[i].Event.ID)
		}
	}
}

func TestMissingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "deep", "er", DirName, FileName)
	s := open(t, path, Options{})
	entries, end := readAll(t, s, pinki.Position{})
	if len(entries) != 0 || end != (pinki.Position{}) {
		t.Fatalf("a missing file reads %d entries up to %+v", len(entries), end)
	}
	if _, err := os.Stat(filepath.Dir(path)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("reading created the ledger's folder")
	}
	if _, err := s.Read(ctx(t), pinki.Position{Seq: 2}, func(pinki.Entry) error { return nil }); !errors.Is(err, pinki.ErrReplaced) {
		t.Fatalf("Read from seq 2 of a missing file = %v, want ErrReplaced", err)
	}
	c, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := s.Wait(c, pinki.Position{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait on a missing file = %v, want the deadline", err)
	}
	if pos := mustAppend(t, s, promise("first")); pos.Seq != 1 {
		t.Fatalf("first append at seq %d", pos.Seq)
	}
}

// TestUnknownLines reads lines this version does not understand as entries
// with Err and the raw line, and keeps appending after them.
func TestUnknownLines(t *testing.T) {
	path := ledgerPath(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	unknown := `{"ts":"2026-09-01T12:00:00Z","type":"teleport","promise":"x"}`
	broken := `{"ts":"2026-09-01T12:00:00Z","type":"promise",`
	content := promiseLine("x") + "\n" + unknown + "\n" + broken + "\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	s := open(t, path, Options{})
	pos, err := s.Append(ctx(t), []pinki.Event{amend("x", 1)}, []pinki.Fence{{Subject: "x", Version: 1, Seen: pinki.Position{Seq: 1}}})
	if err != nil || pos.Seq != 4 {
		t.Fatalf("append fenced over undecodable lines: %+v, %v", pos, err)
	}
	entries, _ := readAll(t, s, pinki.Position{})
	if len(entries) != 4 || entries[1].Err == nil || string(entries[1].Raw) != unknown ||
		entries[2].Err == nil || string(entries[2].Raw) != broken || entries[3].Err != nil {
		t.Fatalf("entries: %+v", entries)
	}
	if got := quarantined(t, path); len(got) != 0 {
		t.Fatalf("whole lines were quarantined: %q", got)
	}
}

// TestGroupCommitBatch commits one batch directly: requests are decided in
// order, and a request fenced on a subject an earlier request of the same
// batch touched conflicts while the others land.
func TestGroupCommitBatch(t *testing.T) {
	s := open(t, ledgerPath(t), Options{})
	p := mustAppend(t, s, promise("x"))
	req := func(events []pinki.Event, fences ...pinki.Fence) *request {
		return groupcommit.NewRequest(events, fences)
	}
	r1 := req([]pinki.Event{amend("x", 1)}, pinki.Fence{Subject: "x", Version: 1, Seen: p})
	r2 := req([]pinki.Event{amend("x", 2)}, pinki.Fence{Subject: "x", Version: 1, Seen: p})
	r3 := req([]pinki.Event{promise("y")}, pinki.Fence{Subject: "y", Version: 0, Seen: p})
	r4 := req([]pinki.Event{promise("y")}, pinki.Fence{Subject: "y", Version: 0, Seen: p})
	r5 := req([]pinki.Event{promise("z"), amend("z", 1)})
	s.commit([]*request{r1, r2, r3, r4, r5})
	got := func(r *request) string {
		res := r.Wait()
		if res.Err != nil {
			return string(pinki.ErrorCode(res.Err))
		}
		return fmt.Sprint(res.Pos.Seq)
	}
	if g := strings.Join([]string{got(r1), got(r2), got(r3), got(r4), got(r5)}, " "); g != "2 conflict 3 conflict 5" {
		t.Fatalf("batch answers %q, want %q", g, "2 conflict 3 conflict 5")
	}
	entries, _ := readAll(t, s, pinki.Position{})
	if len(entries) != 5 {
		t.Fatalf("the ledger holds %d entries, want 5", len(entries))
	}
}

// TestFencesAcrossStores checks fences between stores on one file, as
// between processes: a store must see what another appended, including lines
// from before it started tracking the file.
func TestFencesAcrossStores(t *testing.T) {
	path := ledgerPath(t)
	a, b := open(t, path, Options{}), open(t, path, Options{})
	p1 := mustAppend(t, a, promise("x"))
	mustAppend(t, a, promise("y"))
	mustAppend(t, b, amend("x", 1))
	_, err := a.Append(ctx(t), []pinki.Event{amend("x", 2)}, []pinki.Fence{{Subject: "x", Version: 1, Seen: p1}})
	if pinki.ErrorCode(err) != pinki.CodeConflict {
		t.Fatalf("fence over another store's append = %v, want a conflict", err)
	}
	// A third store starts tracking late (at its first fence), then gets a
	// fence from before that: it must look at the lines in between.
	c := open(t, path, Options{})
	_, end := readAll(t, c, pinki.Position{})
	if _, err := c.Append(ctx(t), []pinki.Event{promise("v")}, []pinki.Fence{{Subject: "v", Version: 0, Seen: end}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.Append(ctx(t), []pinki.Event{amend("x", 3)}, []pinki.Fence{{Subject: "x", Version: 1, Seen: p1}})
	if pinki.ErrorCode(err) != pinki.CodeConflict {
		t.Fatalf("fence from before the store tracked the file = %v, want a conflict", err)
	}
	_, err = c.Append(ctx(t), []pinki.Event{amend("y", 3)}, []pinki.Fence{{Subject: "y", Version: 0, Seen: p1}})
	if pinki.ErrorCode(err) != pinki.CodeConflict {
		t.Fatalf("creation fence from before y was created = %v, want a conflict", err)
	}
	if _, err := c.Append(ctx(t), []pinki.Event{amend("y", 4)}, []pinki.Fence{{Subject: "y", Version: 1, Seen: end}}); err != nil {
		t.Fatalf("fence on y, unchanged since %+v: %v", end, err)
	}
}

func TestReopen(t *testing.T) {
	path := ledgerPath(t)
	s := open(t, path, Options{})
	for i := 0; i < 5; i++ {
		mustAppend(t, s, promise(fmt.Sprintf("r%d", i)))
	}
	s.Close()
	again := open(t, path, Options{})
	entries, end := readAll(t, again, pinki.Position{})
	if len(entries) != 5 || end.Seq != 5 {
		t.Fatalf("after reopening: %d entries up to %+v", len(entries), end)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestMakeDirs: the directories created for a ledger are reported deepest
// first, so that each parent is fsynced; existing ones are not.
func TestMakeDirs(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a", "b", ".pinki")
	got, err := makeDirs(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{dir, filepath.Join(root, "a", "b"), filepath.Join(root, "a")}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("makeDirs created %q, want %q", got, want)
	}
	if err := syncParents(got); err != nil {
		t.Fatal(err)
	}
	if got, err := makeDirs(dir); err != nil || got != nil {
		t.Fatalf("makeDirs of an existing directory = %q, %v", got, err)
	}
}
