// Package tokenstest is the suite every tokens.Store passes: minting,
// lookup, listing, revocation by id and by secret, and a revocation made
// through one handle refusing the token at once through another (two
// processes sharing a store).
package tokenstest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/tokens"
)

// Open returns two handles on one new, empty token storage, both stamping
// with clock, as two processes sharing it would hold them.
type Open func(t *testing.T, clock func() time.Time) (tokens.Store, tokens.Store)

// Run runs the suite, each test on storage from open.
func Run(t *testing.T, open Open) {
	t.Run("Lifecycle", func(t *testing.T) { lifecycle(t, open) })
	t.Run("Refusals", func(t *testing.T) { refusals(t, open) })
	t.Run("Order", func(t *testing.T) { order(t, open) })
}

var start = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

func lifecycle(t *testing.T, open Open) {
	ctx := context.Background()
	now := start
	f, other := open(t, func() time.Time { return now })
	if _, err := f.Lookup(ctx, ""); pinki.ErrorCode(err) != pinki.CodeUnauthenticated {
		t.Fatalf("empty: %v", err)
	}
	secret, tok, err := f.Add(ctx, " desk/a ", "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, tokens.Prefix) || len(secret) != len(tokens.Prefix)+43 || tok.Seat != "desk/a" ||
		tok.Role != pinki.RoleSeat || tok.Hash != tokens.Hash(secret) || tok.ID != tokens.IDOf(tok.Hash) ||
		tok.Created != "2030-01-01T00:00:00Z" || tok.Revoked != "" {
		t.Fatalf("token %+v, secret %q", tok, secret)
	}
	obs, _, err := f.Add(ctx, "desk/o", pinki.RoleObserver)
	if err != nil {
		t.Fatal(err)
	}
	who, err := f.Lookup(ctx, secret)
	if err != nil || who != (pinki.Identity{Seat: "desk/a", Role: pinki.RoleSeat}) {
		t.Fatalf("lookup: %+v %v", who, err)
	}
	if who, err := other.Lookup(ctx, obs); err != nil || who != (pinki.Identity{Seat: "desk/o", Role: pinki.RoleObserver}) {
		t.Fatalf("observer through the other handle: %+v %v", who, err)
	}
	for _, bad := range []string{"x", tokens.Prefix + strings.Repeat("A", 43), secret + "A", secret[:len(secret)-1]} {
		if _, err := f.Lookup(ctx, bad); pinki.ErrorCode(err) != pinki.CodeUnauthenticated {
			t.Fatalf("%q: %v", bad, err)
		}
	}
	list, err := other.List(ctx)
	if err != nil || len(list) != 2 || list[0] != tok || list[1].Seat != "desk/o" {
		t.Fatalf("list: %+v %v", list, err)
	}
	for _, l := range list {
		if strings.Contains(l.Hash+l.ID+l.Seat, secret[len(tokens.Prefix):]) {
			t.Fatal("a listed token holds its secret")
		}
	}
	// The other handle revokes by id; this one refuses the token at once.
	now = start.Add(time.Hour)
	r, err := other.Revoke(ctx, tok.ID)
	if err != nil || r.ID != tok.ID || r.Revoked != "2030-01-01T01:00:00Z" {
		t.Fatalf("revoke: %+v %v", r, err)
	}
	if _, err := f.Lookup(ctx, secret); pinki.ErrorCode(err) != pinki.CodeUnauthenticated ||
		!strings.Contains(err.Error(), "revoked at 2030-01-01T01:00:00Z") {
		t.Fatalf("revoked: %v", err)
	}
	// Revoking by the secret, and twice, is fine and keeps the first time.
	now = start.Add(2 * time.Hour)
	if r, err := f.Revoke(ctx, " "+secret+" "); err != nil || r.Revoked != "2030-01-01T01:00:00Z" {
		t.Fatalf("revoke again: %+v %v", r, err)
	}
	if who, err := f.Lookup(ctx, obs); err != nil || who.Seat != "desk/o" {
		t.Fatalf("the observer survives: %v", err)
	}
	list, err = f.List(ctx)
	if err != nil || len(list) != 2 || list[0].Revoked == "" || list[1].Revoked != "" {
		t.Fatalf("list after revoke: %+v %v", list, err)
	}
}

func refusals(t *testing.T, open Open) {
	ctx := context.Background()
	f, _ := open(t, nil)
	if _, err := f.Revoke(ctx, "tok_nope"); pinki.ErrorCode(err) != pinki.CodeNotFound {
		t.Fatalf("unknown: %v", err)
	}
	if _, err := f.Revoke(ctx, " "); pinki.ErrorCode(err) != pinki.CodeInvalid {
		t.Fatalf("empty ref: %v", err)
	}
	if _, _, err := f.Add(ctx, "", ""); pinki.ErrorCode(err) != pinki.CodeInvalid {
		t.Fatalf("no seat: %v", err)
	}
	if _, _, err := f.Add(ctx, "a\x00b", ""); pinki.ErrorCode(err) != pinki.CodeInvalid {
		t.Fatalf("control character: %v", err)
	}
	if _, _, err := f.Add(ctx, "a", "root"); pinki.ErrorCode(err) != pinki.CodeInvalid {
		t.Fatalf("bad role: %v", err)
	}
	if list, err := f.List(ctx); err != nil || len(list) != 0 {
		t.Fatalf("a refused add stored something: %+v %v", list, err)
	}
}

// order checks that List returns tokens in creation order, also for tokens
// created in the same second.
func order(t *testing.T, open Open) {
	ctx := context.Background()
	f, _ := open(t, func() time.Time { return start })
	var want []string
	for _, seat := range []string{"c", "a", "b", "a"} {
		_, tok, err := f.Add(ctx, seat, pinki.RoleVerifier)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, tok.ID)
	}
	list, err := f.List(ctx)
	if err != nil || len(list) != len(want) {
		t.Fatalf("list: %+v %v", list, err)
	}
	for i, tok := range list {
		if tok.ID != want[i] || tok.Role != pinki.RoleVerifier {
			t.Fatalf("list[%d] = %+v, want id %s", i, tok, want[i])
		}
	}
}
