package a2a_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/a2a"
)

func TestDirectory(t *testing.T) {
	path := a2a.DirectoryPath(filepath.Join(t.TempDir(), ".pinki", "ledger.jsonl"))
	if filepath.Base(path) != "seats.json" || filepath.Base(filepath.Dir(path)) != ".pinki" {
		t.Fatalf("map path %s", path)
	}
	d, err := a2a.OpenDirectory(path)
	if err != nil {
		t.Fatal(err)
	}
	// An https:// seat is its own agent's base.
	if card, ok := d.Lookup("https://example.org/agents/reviewer/"); !ok || card != "https://example.org/agents/reviewer/.well-known/agent-card.json" {
		t.Errorf("https seat: %q %v", card, ok)
	}
	if _, ok := d.Lookup("desk/reviewer"); ok {
		t.Errorf("an unmapped seat resolved")
	}
	if _, ok := d.Lookup("http://example.org"); ok {
		t.Errorf("an http:// seat is not its own agent's base")
	}
	for seat, card := range map[string]string{
		"desk/reviewer":             "https://agents.example.org/reviewer",
		"desk/author":               "http://10.0.0.7:8080/cards/author.json",
		"https://example.org/moved": "https://elsewhere.example.org/",
	} {
		if err := d.Set(seat, card); err != nil {
			t.Fatal(err)
		}
	}
	for _, bad := range []string{"agents.example.org", "ftp://x/y", "https://user:pw@x.example/"} {
		if err := d.Set("desk/x", bad); pinki.ErrorCode(err) != pinki.CodeInvalid {
			t.Errorf("card %q: %v", bad, err)
		}
	}
	if err := d.Set(" ", "https://x.example"); pinki.ErrorCode(err) != pinki.CodeInvalid {
		t.Errorf("empty seat: %v", err)
	}
	again, err := a2a.OpenDirectory(path)
	if err != nil {
		t.Fatal(err)
	}
	for seat, want := range map[string]string{
		"desk/reviewer":             "https://agents.example.org/reviewer/.well-known/agent-card.json",
		"desk/author":               "http://10.0.0.7:8080/cards/author.json",
		"https://example.org/moved": "https://elsewhere.example.org/.well-known/agent-card.json", // a mapping overrides the rule
	} {
		if got, ok := again.Lookup(seat); !ok || got != want {
			t.Errorf("%s: %q, want %q", seat, got, want)
		}
	}
	if l := again.List(); len(l) != 3 || l[0].Seat != "desk/author" {
		t.Errorf("list: %+v", l)
	}
	if err := again.Remove("desk/author"); err != nil {
		t.Fatal(err)
	}
	if err := again.Remove("desk/never"); err != nil {
		t.Fatal(err)
	}
	third, _ := a2a.OpenDirectory(path)
	if _, ok := third.Lookup("desk/author"); ok || len(third.List()) != 2 {
		t.Errorf("remove did not stick: %+v", third.List())
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `"format": "pinki-seats/1"`) {
		t.Errorf("file: %s", data)
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".seats.json.*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
	for _, bad := range []string{`{`, `{"format":"other","seats":{}}`, `{"format":"pinki-seats/1","seats":{"a":{"card":"nope"}}}`, `{"format":"pinki-seats/1","extra":1}`} {
		os.WriteFile(path, []byte(bad), 0o644)
		if _, err := a2a.OpenDirectory(path); pinki.ErrorCode(err) != pinki.CodeInvalid || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// A refused card URL is named without its password.
func TestCardURLRedactsCredentials(t *testing.T) {
	for raw, want := range map[string]string{
		"https://u:secret@example.org/":          `card "https://u:xxxxx@example.org/" carries credentials: seat maps hold no secrets`,
		"ftp://u:secret@example.org/card.json":   `card "ftp://u:xxxxx@example.org/card.json" is not an absolute http(s) URL`,
		"http://u:secret@example.org:port/x":     `card "http://xxxxx@example.org:port/x" is not an absolute http(s) URL`,
		"http://example.org:port/u:secret@x":     `card "http://example.org:port/u:secret@x" is not an absolute http(s) URL`,
		"https://example.org/a@b/card.json#frag": "",
	} {
		_, err := a2a.CardURL(raw)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("CardURL(%q): %q, want %q", raw, got, want)
		}
	}
}
