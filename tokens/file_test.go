package tokens

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
)

func TestFileLifecycle(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), ".pinki", FileName)
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	f := OpenFile(path, func() time.Time { return now })
	if _, err := f.Lookup(ctx, ""); pinki.ErrorCode(err) != pinki.CodeUnauthenticated {
		t.Fatalf("empty: %v", err)
	}
	secret, tok, err := f.Add(ctx, " desk/a ", "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, Prefix) || len(secret) != len(Prefix)+43 || tok.Seat != "desk/a" || tok.Role != pinki.RoleSeat ||
		tok.Hash != Hash(secret) || tok.ID != IDOf(tok.Hash) || tok.Created != "2030-01-01T00:00:00Z" {
		t.Fatalf("token %+v, secret %q", tok, secret)
	}
	obs, _, err := f.Add(ctx, "desk/o", pinki.RoleObserver)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v", fi.Mode(), err)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), secret) || strings.Contains(string(data), secret[len(Prefix):]) {
		t.Fatal("the file holds a secret")
	}
	who, err := f.Lookup(ctx, secret)
	if err != nil || who != (pinki.Identity{Seat: "desk/a", Role: pinki.RoleSeat}) {
		t.Fatalf("lookup: %+v %v", who, err)
	}
	if who, err := f.Lookup(ctx, obs); err != nil || who.Role != pinki.RoleObserver {
		t.Fatalf("observer: %+v %v", who, err)
	}
	for _, bad := range []string{"x", Prefix + strings.Repeat("A", 43), secret + "A"} {
		if _, err := f.Lookup(ctx, bad); pinki.ErrorCode(err) != pinki.CodeUnauthenticated {
			t.Fatalf("%q: %v", bad, err)
		}
	}
	list, err := f.List(ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("list: %v %v", list, err)
	}
	// Another process revokes by id; this one sees it at once.
	other := OpenFile(path, nil)
	if _, err := other.Revoke(ctx, tok.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Lookup(ctx, secret); pinki.ErrorCode(err) != pinki.CodeUnauthenticated || !strings.Contains(err.Error(), "revoked") {
		t.Fatalf("revoked: %v", err)
	}
	// Revoking by the secret, and twice, is fine.
	if r, err := f.Revoke(ctx, secret); err != nil || r.Revoked == "" {
		t.Fatalf("revoke again: %+v %v", r, err)
	}
	if _, err := f.Revoke(ctx, "tok_nope"); pinki.ErrorCode(err) != pinki.CodeNotFound {
		t.Fatalf("unknown: %v", err)
	}
	if _, _, err := f.Add(ctx, "", ""); pinki.ErrorCode(err) != pinki.CodeInvalid {
		t.Fatalf("no seat: %v", err)
	}
	if _, _, err := f.Add(ctx, "a", "root"); pinki.ErrorCode(err) != pinki.CodeInvalid {
		t.Fatalf("bad role: %v", err)
	}
	if who, err := f.Lookup(ctx, obs); err != nil || who.Seat != "desk/o" {
		t.Fatalf("the observer survives: %v", err)
	}
}

func TestFileCorrupt(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	os.WriteFile(path, []byte("{not json"), 0o600)
	f := OpenFile(path, nil)
	if _, err := f.Lookup(context.Background(), Prefix+strings.Repeat("A", 43)); pinki.ErrorCode(err) != pinki.CodeUnavailable {
		t.Fatalf("corrupt file: %v", err)
	}
	if _, _, err := f.Add(context.Background(), "a", ""); pinki.ErrorCode(err) != pinki.CodeUnavailable {
		t.Fatalf("add to a corrupt file: %v", err)
	}
}
