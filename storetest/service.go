package storetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

// RunService runs the service rules of package ledger over the store: the
// same answers on every backend.
func RunService(t *testing.T, open func(t *testing.T) pinki.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s pinki.Store)
	}{
		{"CreateAndGet", testCreateAndGet},
		{"MintedID", testMintedID},
		{"IdempotentCreate", testIdempotentCreate},
		{"IDTaken", testIDTaken},
		{"CreateWithTarget", testCreateWithTarget},
		{"Resolve", testResolve},
		{"StaleRev", testStaleRev},
		{"Authority", testAuthority},
		{"NotFound", testNotFound},
		{"Agreement", testAgreement},
		{"StaleService", testStaleService},
		{"RacingServices", testRacingServices},
		{"Follow", testFollow},
		{"Events", testEvents},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, open(t))
		})
	}
}

var (
	nobody = pinki.Identity{}
	alice  = pinki.Identity{Seat: "alice", Role: pinki.RoleSeat}
	bob    = pinki.Identity{Seat: "bob", Role: pinki.RoleSeat}
)

// newService returns a service over s with the clock fixed at the epoch and
// ids minted from a source seeded with seed.
func newService(t *testing.T, s pinki.Store, seed byte, follow bool) *ledger.Service {
	svc := ledger.New(s, ledger.Options{
		Clock:  func() time.Time { return epoch },
		Random: &lockedReader{r: rand.NewChaCha8([32]byte{seed})},
		Follow: follow,
	})
	t.Cleanup(svc.Close)
	return svc
}

type lockedReader struct {
	mu sync.Mutex
	r  io.Reader
}

func (l *lockedReader) Read(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Read(p)
}

func promiseInput(id string) ledger.CreateInput {
	return ledger.CreateInput{Kind: fold.KindPromise, ID: id, Text: "write the report " + id,
		By: "alice", To: "bob", Until: "+48h"}
}

// count is the number of entries the store holds.
func count(t *testing.T, s pinki.Store) int {
	t.Helper()
	entries, _ := ReadAll(t, s, pinki.Position{})
	return len(entries)
}

func testCreateAndGet(t *testing.T, s pinki.Store) {
	svc := newService(t, s, 1, false)
	ctx := testContext(t)
	r, err := svc.Create(ctx, nobody, promiseInput("report"))
	if err != nil {
		t.Fatal(err)
	}
	if r.ID != "report" || r.Rev != 1 || r.State != fold.Detached || r.Seq != 1 || !strings.HasPrefix(r.Digest, "sha256:") || r.Idempotent {
		t.Fatalf("receipt %+v, want report at rev 1, detached, seq 1, with a digest", r)
	}
	d, err := svc.Get(ctx, nobody, ledger.Query{ID: "report"})
	if err != nil {
		t.Fatal(err)
	}
	if d.By != "alice" || d.To != "bob" || d.Digest != r.Digest || d.Until != pinki.FormatTime(epoch.Add(48*time.Hour)) {
		t.Fatalf("Get: %+v", d.Item)
	}
	// A second service over the same store reads the same.
	d2, err := newService(t, s, 2, false).Get(ctx, nobody, ledger.Query{ID: "report"})
	if err != nil || d2.Digest != d.Digest || d2.Rev != d.Rev {
		t.Fatalf("another service reads %+v, %v", d2.Item, err)
	}
}

func testMintedID(t *testing.T, s pinki.Store) {
	svc := ledger.New(s, ledger.Options{Clock: func() time.Time { return epoch },
		Random: bytes.NewReader([]byte{0x0c, 0x2b, 0x77, 0x0c, 0x2b, 0x77, 0xab, 0xcd, 0xef})})
	ctx := testContext(t)
	in := promiseInput("")
	r1, err := svc.Create(ctx, nobody, in)
	if err != nil || r1.ID != "pnk_0c2b77" {
		t.Fatalf("first minted id %q, %v; want pnk_0c2b77", r1.ID, err)
	}
	// The same draw again collides and is drawn anew.
	r2, err := svc.Create(ctx, nobody, in)
	if err != nil || r2.ID != "pnk_abcdef" {
		t.Fatalf("second minted id %q, %v; want pnk_abcdef after a collision", r2.ID, err)
	}
	if n := count(t, s); n != 2 {
		t.Fatalf("the store holds %d entries, want 2", n)
	}
}

func testIdempotentCreate(t *testing.T, s pinki.Store) {
	svc := newService(t, s, 1, false)
	ctx := testContext(t)
	in := promiseInput("same")
	in.Until = pinki.FormatTime(epoch.Add(time.Hour))
	first, err := svc.Create(ctx, nobody, in)
	if err != nil {
		t.Fatal(err)
	}
	again, err := svc.Create(ctx, nobody, in)
	if err != nil || !again.Idempotent || again.Digest != first.Digest {
		t.Fatalf("repeated creation: %+v, %v; want an idempotent success", again, err)
	}
	// From another service (a retry from another process) too.
	again, err = newService(t, s, 2, false).Create(ctx, nobody, in)
	if err != nil || !again.Idempotent {
		t.Fatalf("repeated creation from another service: %+v, %v", again, err)
	}
	if n := count(t, s); n != 1 {
		t.Fatalf("the store holds %d entries, want 1", n)
	}
}

func testIDTaken(t *testing.T, s pinki.Store) {
	svc := newService(t, s, 1, false)
	ctx := testContext(t)
	if _, err := svc.Create(ctx, nobody, promiseInput("taken")); err != nil {
		t.Fatal(err)
	}
	in := promiseInput("taken")
	in.Text = "something else"
	_, err := svc.Create(ctx, nobody, in)
	wantCode(t, err, pinki.CodeInvalid, "creation with a taken id and different content")
	if n := count(t, s); n != 1 {
		t.Fatalf("the store holds %d entries, want 1", n)
	}
}

// testCreateWithTarget creates and binds in one append: both events, in
// order, consecutive.
func testCreateWithTarget(t *testing.T, s pinki.Store) {
	svc := newService(t, s, 1, false)
	in := promiseInput("bound")
	in.Target = json.RawMessage(`{"kind":"todo","item":"7"}`)
	r, err := svc.Create(testContext(t), nobody, in)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := ReadAll(t, s, pinki.Position{})
	if len(entries) != 2 || entries[0].Event.Type != pinki.TypePromise || entries[1].Event.Type != pinki.TypeBind ||
		entries[1].Seq != entries[0].Seq+1 || r.Seq != entries[1].Seq || r.Rev != 2 {
		t.Fatalf("creation with a target: receipt %+v, %d entries", r, len(entries))
	}
}

func testResolve(t *testing.T, s pinki.Store) {
	svc := newService(t, s, 1, false)
	ctx := testContext(t)
	if _, err := svc.Create(ctx, nobody, promiseInput("res")); err != nil {
		t.Fatal(err)
	}
	in := ledger.ResolveInput{ID: "res", As: pinki.Satisfied, Evidence: []string{"https://example.org/r"}}
	r, err := svc.Resolve(ctx, alice, in)
	if err != nil || r.State != fold.Satisfied || r.Rev != 2 || r.Idempotent {
		t.Fatalf("resolve: %+v, %v", r, err)
	}
	r, err = svc.Resolve(ctx, alice, in)
	if err != nil || !r.Idempotent || r.Rev != 2 {
		t.Fatalf("identical resolve: %+v, %v; want an idempotent success", r, err)
	}
	_, err = svc.Resolve(ctx, alice, ledger.ResolveInput{ID: "res", As: pinki.Cancelled, Reason: "changed my mind"})
	wantCode(t, err, pinki.CodeConflict, "a different second resolve")
	_, err = svc.Resolve(ctx, alice, ledger.ResolveInput{ID: "res", As: pinki.Satisfied})
	wantCode(t, err, pinki.CodeInvalid, "satisfied without evidence")
	if n := count(t, s); n != 2 {
		t.Fatalf("the store holds %d entries, want 2", n)
	}
}

func testStaleRev(t *testing.T, s pinki.Store) {
	svc := newService(t, s, 1, false)
	ctx := testContext(t)
	if _, err := svc.Create(ctx, nobody, promiseInput("rev")); err != nil {
		t.Fatal(err)
	}
	one, two := 1, 2
	r, err := svc.Amend(ctx, nobody, ledger.AmendInput{ID: "rev", Until: "+72h", Reason: "more time", Rev: &one})
	if err != nil || r.Rev != 2 {
		t.Fatalf("amend at rev 1: %+v, %v", r, err)
	}
	_, err = svc.Amend(ctx, nobody, ledger.AmendInput{ID: "rev", Until: "+96h", Reason: "even more", Rev: &one})
	wantCode(t, err, pinki.CodeConflict, "amend at a stale rev")
	_, err = svc.Resolve(ctx, nobody, ledger.ResolveInput{ID: "rev", As: pinki.Failed, Reason: "no", Rev: &one})
	wantCode(t, err, pinki.CodeConflict, "resolve at a stale rev")
	if n := count(t, s); n != 2 {
		t.Fatalf("the store holds %d entries after stale writes, want 2", n)
	}
	if _, err := svc.Resolve(ctx, nobody, ledger.ResolveInput{ID: "rev", As: pinki.Failed, Reason: "no", Rev: &two}); err != nil {
		t.Fatalf("resolve at the current rev: %v", err)
	}
}

func testAuthority(t *testing.T, s pinki.Store) {
	svc := newService(t, s, 1, false)
	ctx := testContext(t)
	if _, err := svc.Create(ctx, alice, promiseInput("auth")); err != nil {
		t.Fatal(err)
	}
	_, err := svc.Create(ctx, bob, promiseInput("auth2"))
	wantCode(t, err, pinki.CodeForbidden, "a promise made as its debtor by someone else")
	_, err = svc.Resolve(ctx, bob, ledger.ResolveInput{ID: "auth", As: pinki.Satisfied, Evidence: []string{"x"}})
	wantCode(t, err, pinki.CodeForbidden, "the creditor resolving as satisfied")
	_, err = svc.Resolve(ctx, nobody, ledger.ResolveInput{ID: "auth", As: pinki.Satisfied, By: "bob", Evidence: []string{"x"}})
	wantCode(t, err, pinki.CodeForbidden, "a claimed by that is not the debtor")
	_, err = svc.Amend(ctx, alice, ledger.AmendInput{ID: "auth", Until: "+72h", By: "bob"})
	wantCode(t, err, pinki.CodeForbidden, "a by that contradicts the identity")
	if n := count(t, s); n != 1 {
		t.Fatalf("the store holds %d entries after refused writes, want 1", n)
	}
	r, err := svc.Resolve(ctx, bob, ledger.ResolveInput{ID: "auth", As: pinki.Released})
	if err != nil || r.State != fold.Released {
		t.Fatalf("the creditor releasing: %+v, %v", r, err)
	}
}

func testNotFound(t *testing.T, s pinki.Store) {
	svc := newService(t, s, 1, false)
	ctx := testContext(t)
	_, err := svc.Amend(ctx, nobody, ledger.AmendInput{ID: "ghost", Until: "+1h"})
	wantCode(t, err, pinki.CodeNotFound, "amend of an unknown id")
	_, err = svc.Get(ctx, nobody, ledger.Query{ID: "ghost"})
	wantCode(t, err, pinki.CodeNotFound, "get of an unknown id")
	if n := count(t, s); n != 0 {
		t.Fatalf("the store holds %d entries, want none", n)
	}
}

func testAgreement(t *testing.T, s pinki.Store) {
	svc := newService(t, s, 1, false)
	ctx := testContext(t)
	r, err := svc.Create(ctx, alice, ledger.CreateInput{Kind: fold.KindAgreement, ID: "deal", Text: "terms",
		By: "alice", To: "bob", Until: "+24h"})
	if err != nil || r.State != fold.Proposed {
		t.Fatalf("propose: %+v, %v", r, err)
	}
	if r, err = svc.Accept(ctx, bob, ledger.AcceptInput{ID: "deal", Rev: 1}); err != nil || r.Rev != 2 {
		t.Fatalf("bob accepts: %+v, %v", r, err)
	}
	_, err = svc.Accept(ctx, alice, ledger.AcceptInput{ID: "deal", Rev: 1})
	wantCode(t, err, pinki.CodeConflict, "accept at a stale rev")
	if r, err = svc.Accept(ctx, alice, ledger.AcceptInput{ID: "deal", Rev: 2}); err != nil || r.State != fold.Detached {
		t.Fatalf("alice accepts: %+v, %v; want detached", r, err)
	}
}

// testStaleService writes through a service whose fold is behind the store:
// the fence catches the change it did not see.
func testStaleService(t *testing.T, s pinki.Store) {
	ctx := testContext(t)
	a, b := newService(t, s, 1, false), newService(t, s, 2, false)
	if _, err := a.Create(ctx, nobody, promiseInput("stale")); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(ctx, nobody, ledger.Query{ID: "stale"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Resolve(ctx, nobody, ledger.ResolveInput{ID: "stale", As: pinki.Satisfied, Evidence: []string{"a"}}); err != nil {
		t.Fatal(err)
	}
	_, err := b.Resolve(ctx, nobody, ledger.ResolveInput{ID: "stale", As: pinki.Failed, Reason: "b"})
	wantCode(t, err, pinki.CodeConflict, "resolve from a service that had not seen the first resolve")
	if n := count(t, s); n != 2 {
		t.Fatalf("the store holds %d entries, want 2", n)
	}
}

// testRacingServices races services (as separate processes or replicas
// would be) resolving one obligation differently: exactly one wins.
func testRacingServices(t *testing.T, s pinki.Store) {
	ctx := testContext(t)
	const n = 8
	svcs := make([]*ledger.Service, n)
	for i := range svcs {
		svcs[i] = newService(t, s, byte(i), false)
	}
	if _, err := svcs[0].Create(ctx, nobody, promiseInput("contested")); err != nil {
		t.Fatal(err)
	}
	for _, svc := range svcs {
		if err := svc.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	errs := race(n, func(i int) error {
		_, err := svcs[i].Resolve(ctx, nobody, ledger.ResolveInput{ID: "contested", As: pinki.Satisfied,
			Evidence: []string{fmt.Sprintf("https://example.org/%d", i)}})
		return err
	})
	wins := 0
	for i, err := range errs {
		if err == nil {
			wins++
			continue
		}
		wantCode(t, err, pinki.CodeConflict, fmt.Sprintf("service %d", i))
	}
	if wins != 1 {
		t.Fatalf("%d services resolved one obligation, want exactly 1", wins)
	}
	if n := count(t, s); n != 2 {
		t.Fatalf("the store holds %d entries, want 2", n)
	}
}

// testFollow checks that a following service sees another writer's appends
// (through the store's Wait).
func testFollow(t *testing.T, s pinki.Store) {
	ctx := testContext(t)
	follower := newService(t, s, 1, true)
	writer := newService(t, s, 2, false)
	if _, err := follower.List(ctx, nobody, ledger.Filter{}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		id := fmt.Sprintf("followed-%d", i)
		if _, err := writer.Create(ctx, nobody, promiseInput(id)); err != nil {
			t.Fatal(err)
		}
		for {
			if _, err := follower.Get(ctx, nobody, ledger.Query{ID: id}); err == nil {
				break
			} else if pinki.ErrorCode(err) != pinki.CodeNotFound {
				t.Fatal(err)
			}
			select {
			case <-ctx.Done():
				t.Fatalf("the follower never saw %s", id)
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
}

// testEvents pages through the store by sequence number, as the event stream
// does.
func testEvents(t *testing.T, s pinki.Store) {
	svc := newService(t, s, 1, false)
	ctx := testContext(t)
	for i := 0; i < 5; i++ {
		if _, err := svc.Create(ctx, nobody, promiseInput(fmt.Sprintf("ev-%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	after := int64(0)
	for {
		page, next, err := svc.Events(ctx, nobody, after, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		for _, r := range page {
			var e struct{ ID string }
			if err := json.Unmarshal(r.Event, &e); err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("%d:%s", r.Seq, e.ID))
		}
		after = next
	}
	if want := "1:ev-0 2:ev-1 3:ev-2 4:ev-3 5:ev-4"; strings.Join(got, " ") != want {
		t.Fatalf("events paged: %s, want %s", strings.Join(got, " "), want)
	}
}
