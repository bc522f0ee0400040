package tokens

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinki-ledger/pinki"
)

// TestFileLifecycle checks what only File promises (the suite in
// suite_test.go checks the rest): the file is private, holds no secret, and
// is created by the first Add.
func TestFileLifecycle(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), ".pinki", FileName)
	f := OpenFile(path, nil)
	if list, err := f.List(ctx); err != nil || len(list) != 0 {
		t.Fatalf("a missing file: %v %v", list, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("reading created the file: %v", err)
	}
	secret, _, err := f.Add(ctx, "desk/a", "")
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
	if who, err := f.Lookup(ctx, secret); err != nil || who != (pinki.Identity{Seat: "desk/a", Role: pinki.RoleSeat}) {
		t.Fatalf("lookup: %+v %v", who, err)
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
