package ledger_test

import (
	"bytes"
	"context"
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

// ledgerFile opens a file ledger in a temporary directory and returns its
// path with a function opening one more service over it.
func ledgerFile(t *testing.T) (string, func() *ledger.Service) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	now := time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)
	return path, func() *ledger.Service {
		st, err := jsonl.Open(path, jsonl.Options{})
		if err != nil {
			t.Fatal(err)
		}
		svc := ledger.New(st, ledger.Options{Clock: func() time.Time { return now }})
		t.Cleanup(func() { svc.Close(); st.Close() })
		return svc
	}
}

func lineCount(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0 // the file ledger creates its file with the first line
	}
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte("\n"))
}

// TestWritesKeepPrivacy: a seat acting on an obligation it is no party to
// learns nothing, not even that it exists: every act answers not found,
// exactly as for an id nobody declared, and nothing is appended. The one
// exception is SPEC §1's: anyone may assess, and the receipt then carries
// the id only.
func TestWritesKeepPrivacy(t *testing.T) {
	ctx := context.Background()
	path, open := ledgerFile(t)
	svc := open()
	alice := pinki.Identity{Seat: "alice", Role: pinki.RoleSeat}
	mallory := pinki.Identity{Seat: "mallory", Role: pinki.RoleSeat}
	observer := pinki.Identity{Seat: "audit", Role: pinki.RoleObserver}
	if _, err := svc.Create(ctx, alice, ledger.CreateInput{Kind: fold.KindPromise, ID: "p1", Text: "x",
		By: "alice", To: "bob", Until: "+1h"}); err != nil {
		t.Fatal(err)
	}
	before := lineCount(t, path)
	for _, id := range []string{"p1", "nobody-declared-this"} {
		acts := map[string]func() error{
			"amend": func() error {
				_, err := svc.Amend(ctx, mallory, ledger.AmendInput{ID: id, Until: "+2h"})
				return err
			},
			"progress": func() error {
				_, err := svc.Progress(ctx, mallory, ledger.ProgressInput{ID: id, Phase: pinki.PhaseInProgress})
				return err
			},
			"resolve": func() error {
				_, err := svc.Resolve(ctx, mallory, ledger.ResolveInput{ID: id, As: pinki.Released})
				return err
			},
			"bind": func() error {
				_, err := svc.Bind(ctx, mallory, ledger.BindInput{ID: id, Target: []byte(`{"kind":"todo","id":"1"}`)})
				return err
			},
		}
		for name, act := range acts {
			err := act()
			if pinki.ErrorCode(err) != pinki.CodeNotFound {
				t.Errorf("%s of %s by a third seat: %v, want not found", name, id, err)
				continue
			}
			if want := `nothing in the ledger declares "` + id + `"`; err.Error() != want && !bytes.Contains([]byte(err.Error()), []byte(want)) {
				t.Errorf("%s of %s by a third seat: %q does not read like an unknown id", name, id, err)
			}
		}
	}
	if n := lineCount(t, path); n != before {
		t.Fatalf("refused writes appended %d lines", n-before)
	}
	if _, err := svc.Assess(ctx, mallory, ledger.AssessInput{ID: "nobody-declared-this", State: "violated"}); pinki.ErrorCode(err) != pinki.CodeNotFound {
		t.Fatalf("an assessment of an unknown id: %v, want not found", err)
	}
	r, err := svc.Assess(ctx, mallory, ledger.AssessInput{ID: "p1", State: "violated", Note: "saw it slip"})
	if err != nil || r.ID != "p1" || r.State != "" || r.Rev != 0 || r.Late {
		t.Fatalf("a third seat's assessment: %+v, %v; want a receipt with the id only", r, err)
	}
	if again, err := svc.Assess(ctx, mallory, ledger.AssessInput{ID: "p1", State: "violated", Note: "saw it slip"}); err != nil || !again.Idempotent || again.State != "" {
		t.Fatalf("the same assessment again: %+v, %v; want idempotent, the id only", again, err)
	}
	for _, rev := range []int{1, 7} { // the right one and a wrong one: the same answer
		if _, err := svc.Assess(ctx, mallory, ledger.AssessInput{ID: "p1", State: "kept", Rev: &rev}); pinki.ErrorCode(err) != pinki.CodeInvalid ||
			strings.Contains(err.Error(), "now at rev") {
			t.Fatalf("a third seat's assessment at rev %d: %v; want it refused whatever the rev", rev, err)
		}
	}
	if _, err := svc.Get(ctx, mallory, ledger.Query{ID: "p1"}); pinki.ErrorCode(err) != pinki.CodeNotFound {
		t.Fatalf("the third seat reading what it assessed: %v, want not found", err)
	}
	// An observer reads everything, and its receipt says so.
	if r, err := svc.Assess(ctx, observer, ledger.AssessInput{ID: "p1", State: "kept"}); err != nil || r.Rev != 1 || r.State == "" {
		t.Fatalf("an observer's assessment: %+v, %v", r, err)
	}
}

// TestBindRetryWithReorderedTarget: a retried binding whose target has its
// keys in another order is the same write.
func TestBindRetryWithReorderedTarget(t *testing.T) {
	ctx := context.Background()
	path, open := ledgerFile(t)
	svc := open()
	if _, err := svc.Create(ctx, pinki.Identity{}, ledger.CreateInput{Kind: fold.KindPromise, ID: "p1", Text: "x",
		By: "alice", To: "bob", Until: "+1h"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Bind(ctx, pinki.Identity{}, ledger.BindInput{ID: "p1",
		Target: []byte(`{"kind":"todo","list":"l","id":"7"}`)}); err != nil {
		t.Fatal(err)
	}
	n := lineCount(t, path)
	r, err := svc.Bind(ctx, pinki.Identity{}, ledger.BindInput{ID: "p1",
		Target: []byte(`{ "id": "7", "list": "l", "kind": "todo" }`)})
	if err != nil || !r.Idempotent {
		t.Fatalf("retried bind with reordered keys: %+v, %v; want idempotent", r, err)
	}
	if lineCount(t, path) != n {
		t.Fatal("the retried bind appended a line")
	}
}

// TestWriteThatWouldNotReadBack: a value the ledger's reader refuses (a
// number no double holds) is refused at the write, never acknowledged and
// then unreadable.
func TestWriteThatWouldNotReadBack(t *testing.T) {
	ctx := context.Background()
	path, open := ledgerFile(t)
	svc := open()
	_, err := svc.Create(ctx, pinki.Identity{}, ledger.CreateInput{Kind: fold.KindPromise, ID: "p1", Text: "x",
		By: "alice", To: "bob", Until: "+1h", Meta: []byte(`{"n":1e400}`)})
	if pinki.ErrorCode(err) != pinki.CodeInvalid {
		t.Fatalf("a meta with 1e400: %v, want invalid", err)
	}
	if n := lineCount(t, path); n != 0 {
		t.Fatalf("the refused write appended %d lines", n)
	}
	if err := svc.Sync(ctx); err != nil {
		t.Fatal(err)
	}
}

// cutShort is a store whose next Read is cancelled after n entries, as a
// caller that stops waiting would.
type cutShort struct {
	pinki.Store
	n      int
	cancel context.CancelFunc
}

func (c *cutShort) Read(ctx context.Context, from pinki.Position, fn func(pinki.Entry) error) (pinki.Position, error) {
	return c.Store.Read(ctx, from, func(en pinki.Entry) error {
		if c.n == 0 && c.cancel != nil {
			c.cancel()
			c.cancel = nil
		}
		c.n--
		if err := ctx.Err(); err != nil {
			return err
		}
		return fn(en)
	})
}

// TestCatchUpCutShort: a catch-up cancelled part way keeps what it folded at
// a position the next catch-up resumes from: nothing applied twice, nothing
// skipped.
func TestCatchUpCutShort(t *testing.T) {
	ctx := context.Background()
	path, open := ledgerFile(t)
	writer := open()
	for i := range 40 {
		id := "p" + string(rune('a'+i%26)) + string(rune('a'+i/26))
		if _, err := writer.Create(ctx, pinki.Identity{}, ledger.CreateInput{Kind: fold.KindPromise, ID: id, Text: "x",
			By: "alice", To: "bob", Until: "+1h"}); err != nil {
			t.Fatal(err)
		}
		if i%3 == 0 {
			if _, err := writer.Amend(ctx, pinki.Identity{}, ledger.AmendInput{ID: id, Until: "+2h"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	st, err := jsonl.Open(path, jsonl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, n := range []int{0, 1, 17, 53} {
		cctx, cancel := context.WithCancel(ctx)
		cs := &cutShort{Store: st, n: n, cancel: cancel}
		reader := ledger.New(cs, ledger.Options{Clock: writer.Now})
		if err := reader.Sync(cctx); err == nil {
			t.Fatalf("cut after %d entries: the catch-up did not fail", n)
		}
		if got := reader.Position().Seq; got != int64(n) {
			t.Fatalf("cut after %d entries: the fold is at line %d", n, got)
		}
		cs.n = -1 // no more cuts
		want, _ := writer.List(ctx, pinki.Identity{}, ledger.Filter{Scope: ledger.ScopeAll})
		got, err := reader.List(ctx, pinki.Identity{}, ledger.Filter{Scope: ledger.ScopeAll})
		if err != nil {
			t.Fatal(err)
		}
		if reader.Position() != writer.Position() || len(got.Items) != len(want.Items) {
			t.Fatalf("cut after %d entries, then caught up: at %+v with %d obligations, want %+v with %d",
				n, reader.Position(), len(got.Items), writer.Position(), len(want.Items))
		}
		for i := range want.Items {
			if got.Items[i].ID != want.Items[i].ID || got.Items[i].Rev != want.Items[i].Rev || got.Items[i].Until != want.Items[i].Until {
				t.Fatalf("cut after %d entries: item %d is %+v, want %+v", n, i, got.Items[i], want.Items[i])
			}
		}
		reader.Close()
	}
}

// raceBeforeAppend is a file store that runs race once, just before the
// next append: another writer's line landing between a decision and its
// append.
type raceBeforeAppend struct {
	*jsonl.Store
	race func()
}

func (r *raceBeforeAppend) Append(ctx context.Context, events []pinki.Event, fences []pinki.Fence) (pinki.Position, error) {
	if race := r.race; race != nil {
		r.race = nil
		race()
	}
	return r.Store.Append(ctx, events, fences)
}

// TestChainChangeFailsTheWrite: an obligation's state depends on its whole
// chain of antecedents, so a write decided while another process ends any
// of them (the one it names, or one further up) must not land on the stale
// decision: it is decided again, and refused, and nothing is appended.
func TestChainChangeFailsTheWrite(t *testing.T) {
	for _, ended := range []string{"mid", "root"} {
		t.Run(ended, func(t *testing.T) {
			ctx := context.Background()
			path, open := ledgerFile(t)
			other := open()
			who := pinki.Identity{}
			for _, in := range []ledger.CreateInput{
				{Kind: fold.KindPromise, ID: "root", Text: "x", By: "carol", To: "alice", Until: "+1h"},
				{Kind: fold.KindPromise, ID: "mid", Text: "y", By: "alice", To: "bob", On: "root", Until: "+2h"},
				{Kind: fold.KindPromise, ID: "child", Text: "z", By: "bob", To: "dave", On: "mid", Until: "+3h"},
			} {
				if _, err := other.Create(ctx, who, in); err != nil {
					t.Fatal(err)
				}
			}
			st, err := jsonl.Open(path, jsonl.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			racy := &raceBeforeAppend{Store: st}
			svc := ledger.New(racy, ledger.Options{Clock: other.Now})
			defer svc.Close()
			var n int
			racy.race = func() {
				if _, err := other.Resolve(ctx, who, ledger.ResolveInput{ID: ended, As: pinki.Cancelled, Reason: "dropped"}); err != nil {
					t.Fatal(err)
				}
				n = lineCount(t, path)
			}
			_, err = svc.Amend(ctx, who, ledger.AmendInput{ID: "child", Until: "+1d"})
			if pinki.ErrorCode(err) != pinki.CodeConflict {
				t.Fatalf("amend of child while %s was cancelled: %v, want a conflict (child has ended)", ended, err)
			}
			if got := lineCount(t, path); got != n {
				t.Fatalf("the amend decided before %s was cancelled was appended", ended)
			}
		})
	}
}

// swapAfterFetch is a file store that, right after its first Fetch, has its
// ledger replaced by another file (a checkout landing between a read of the
// history and the decision).
type swapAfterFetch struct {
	*jsonl.Store
	path, other string
	done        bool
}

func (s *swapAfterFetch) Fetch(ctx context.Context, refs []pinki.LineRef) ([]pinki.Entry, error) {
	entries, err := s.Store.Fetch(ctx, refs)
	if !s.done {
		s.done = true
		if rerr := os.Rename(s.other, s.path); rerr != nil {
			return nil, rerr
		}
	}
	return entries, err
}

// TestReplacedBetweenFetchAndDecision: lines fetched from a ledger that was
// then replaced are not compared with the new ledger's fold. Here the old
// ledger's latest progress is the one being retried, the new one's is
// another phase: the retry is a new write on the new ledger, not an
// idempotent success that appends nothing.
func TestReplacedBetweenFetchAndDecision(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	now := time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	write := func(path string, phase pinki.Phase) {
		st, err := jsonl.Open(path, jsonl.Options{})
		if err != nil {
			t.Fatal(err)
		}
		svc := ledger.New(st, ledger.Options{Clock: clock})
		if _, err := svc.Create(ctx, pinki.Identity{}, ledger.CreateInput{Kind: fold.KindPromise, ID: "p1", Text: "x",
			By: "alice", To: "bob", Until: "+1h"}); err != nil {
			t.Fatal(err)
		}
		if _, err := svc.Progress(ctx, pinki.Identity{}, ledger.ProgressInput{ID: "p1", Phase: phase}); err != nil {
			t.Fatal(err)
		}
		svc.Close()
		st.Close()
	}
	path, other := filepath.Join(dir, "ledger.jsonl"), filepath.Join(dir, "other.jsonl")
	write(path, pinki.PhaseInProgress)
	write(other, pinki.PhaseBlocked)
	st, err := jsonl.Open(path, jsonl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := ledger.New(&swapAfterFetch{Store: st, path: path, other: other}, ledger.Options{Clock: clock})
	defer svc.Close()
	r, err := svc.Progress(ctx, pinki.Identity{}, ledger.ProgressInput{ID: "p1", Phase: pinki.PhaseInProgress})
	if err != nil {
		t.Fatal(err)
	}
	if r.Idempotent {
		t.Fatal("the retry was taken as idempotent on lines of the replaced ledger")
	}
	d, err := svc.Get(ctx, pinki.Identity{}, ledger.Query{ID: "p1"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Phase != pinki.PhaseInProgress {
		t.Fatalf("p1 is %s on the new ledger, want in_progress", d.Phase)
	}
}
