package onboard_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/onboard"
)

func snippets(t *testing.T, seat, path string) []onboard.Snippet {
	t.Helper()
	s, err := onboard.Snippets(seat, path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSnippets(t *testing.T) {
	s := snippets(t, "desk/a", "")
	if len(s) != len(onboard.Targets) {
		t.Fatalf("%d snippets, want one per target", len(s))
	}
	for i, sn := range s {
		if sn.Target != onboard.Targets[i] || sn.Path == "" || sn.Host == "" {
			t.Errorf("snippet %d: %+v", i, sn)
		}
	}
	para := s[0].Text
	for _, want := range []string{"`pinki prime --seat desk/a`", "`desk/a`", "pinki promise", "pinki resolve", "pinki amend"} {
		if !strings.Contains(para, want) {
			t.Errorf("paragraph lacks %q:\n%s", want, para)
		}
	}
	if n := len(para); n > 1200 {
		t.Errorf("paragraph is %d bytes: keep it short", n)
	}
	var doc struct {
		Hooks struct {
			SessionStart []struct {
				Matcher *string `json:"matcher"`
				Hooks   []struct{ Type, Command string }
			}
		}
	}
	if err := json.Unmarshal([]byte(s[1].Text), &doc); err != nil {
		t.Fatalf("Claude hook is not JSON: %v\n%s", err, s[1].Text)
	}
	g := doc.Hooks.SessionStart
	if len(g) != 1 || g[0].Matcher != nil || len(g[0].Hooks) != 1 || g[0].Hooks[0].Type != "command" ||
		g[0].Hooks[0].Command != "pinki prime --seat desk/a --tolerate-unknown" {
		t.Fatalf("hook %+v", doc)
	}
}

func TestSnippetsQuoteForTheShell(t *testing.T) {
	s := snippets(t, "https://fleet.example/seats?id=a&b='c'", "/opt/my tools/pinki")
	want := `'/opt/my tools/pinki' prime --seat 'https://fleet.example/seats?id=a&b='\''c'\'''`
	if !strings.Contains(s[0].Text, want) || !strings.Contains(s[1].Text, strings.ReplaceAll(want, `\`, `\\`)) {
		t.Fatalf("snippets do not hold %s:\n%s\n%s", want, s[0].Text, s[1].Text)
	}
	for _, seat := range []string{"", "  ", "a\nb", strings.Repeat("x", 513)} {
		if _, err := onboard.Snippets(seat, ""); pinki.ErrorCode(err) != pinki.CodeInvalid {
			t.Errorf("seat %q: %v, want %s", seat, err, pinki.CodeInvalid)
		}
	}
}

func TestWriteFresh(t *testing.T) {
	dir := t.TempDir()
	s := snippets(t, "desk/a", "")
	res, err := onboard.Write(dir, s, onboard.AgentsMD, onboard.Claude, onboard.Codex)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 {
		t.Fatalf("results %+v", res)
	}
	for i, r := range res {
		if r.Action != onboard.Created {
			t.Errorf("%s: %s, want created", r.Target, r.Action)
		}
		got, err := os.ReadFile(r.Path)
		if err != nil {
			t.Fatal(err)
		}
		if want := []onboard.Snippet{s[0], s[1], s[3]}[i].Text; string(got) != want {
			t.Errorf("%s holds\n%s\nwant\n%s", r.Path, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".claude", "settings.local.json")); !os.IsNotExist(err) {
		t.Errorf("a target that was not asked for was written: %v", err)
	}
	// Again: everything is present, nothing changes.
	res, err = onboard.Write(dir, s, onboard.AgentsMD, onboard.Claude, onboard.Codex)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Action != onboard.Present {
			t.Errorf("second write: %s %s, want present", r.Target, r.Action)
		}
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestWriteKeepsExistingContent(t *testing.T) {
	dir := t.TempDir()
	s := snippets(t, "desk/a", "")
	agents := filepath.Join(dir, "AGENTS.md")
	write(t, agents, "# Project\n\nBuild with make.") // no final newline
	settings := filepath.Join(dir, ".claude", "settings.json")
	existing := `{
  "model": "opus",
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh"}]}],
    "SessionStart": [{"matcher": "startup", "hooks": [{"type": "command", "command": "echo hi <&>"}]}]
  },
  "permissions": {"allow": ["Bash(make:*)"], "n": 1.50}
}
`
	write(t, settings, existing)

	res, err := onboard.Write(dir, s, onboard.AgentsMD, onboard.Claude)
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Action != onboard.Appended || res[1].Action != onboard.Added {
		t.Fatalf("results %+v", res)
	}
	if got := read(t, agents); got != "# Project\n\nBuild with make.\n\n"+s[0].Text {
		t.Fatalf("AGENTS.md:\n%s", got)
	}
	got := read(t, settings)
	want := `{
  "model": "opus",
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "./check.sh"
          }
        ]
      }
    ],
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [
          {
            "type": "command",
            "command": "echo hi <&>"
          }
        ]
      },
      {
        "hooks": [
          {
            "type": "command",
            "command": "pinki prime --seat desk/a --tolerate-unknown"
          }
        ]
      }
    ]
  },
  "permissions": {
    "allow": [
      "Bash(make:*)"
    ],
    "n": 1.50
  }
}
`
	if got != want {
		t.Fatalf("settings.json:\n%s\nwant\n%s", got, want)
	}
	if info, err := os.Stat(settings); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("settings.json mode %v (%v), want it kept at 0600", info.Mode(), err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(settings)); len(entries) != 1 {
		t.Fatalf("stray files beside settings.json: %v", entries)
	}
}

func TestWriteDoesNotDuplicateAHook(t *testing.T) {
	dir := t.TempDir()
	s := snippets(t, "desk/a", "")
	hooks := filepath.Join(dir, ".codex", "hooks.json")
	// The same command under another matcher, with extra fields: it is
	// the same hook, and the file stays byte for byte as it was.
	existing := `{"hooks":{"SessionStart":[{"matcher":"startup|resume","hooks":[{"type":"command","command":"pinki prime --seat desk/a --tolerate-unknown","statusMessage":"briefing"}]}]}}`
	write(t, hooks, existing)
	agents := filepath.Join(dir, "AGENTS.md")
	write(t, agents, "Run `pinki prime --seat desk/a` first.\n")
	res, err := onboard.Write(dir, s, onboard.Codex, onboard.AgentsMD)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if r.Action != onboard.Present {
			t.Errorf("%s: %s, want present", r.Target, r.Action)
		}
	}
	if read(t, hooks) != existing || read(t, agents) != "Run `pinki prime --seat desk/a` first.\n" {
		t.Fatal("a file with the hook or the command was changed")
	}
	// A seat whose name extends desk/a is another seat.
	res, err = onboard.Write(dir, snippets(t, "desk/ab", ""), onboard.AgentsMD)
	if err != nil || res[0].Action != onboard.Appended {
		t.Fatalf("desk/ab: %+v %v", res, err)
	}
	// Another seat's hook is not ours: ours is added beside it.
	res, err = onboard.Write(dir, snippets(t, "desk/b", ""), onboard.Codex)
	if err != nil || res[0].Action != onboard.Added {
		t.Fatalf("desk/b: %+v %v", res, err)
	}
	if got := read(t, hooks); !strings.Contains(got, `"pinki prime --seat desk/a --tolerate-unknown"`) ||
		!strings.Contains(got, `"pinki prime --seat desk/b --tolerate-unknown"`) {
		t.Fatalf("hooks.json:\n%s", got)
	}
}

func TestWriteRefusesMalformedSettings(t *testing.T) {
	s := snippets(t, "desk/a", "")
	for name, content := range map[string]string{
		"not json":         `{"hooks": {`,
		"not an object":    `["hooks"]`,
		"trailing text":    `{} {}`,
		"duplicate key":    `{"hooks": {}, "hooks": {}}`,
		"hooks not object": `{"hooks": []}`,
		"not an array":     `{"hooks": {"SessionStart": {"hooks": []}}}`,
		"null array":       `{"hooks": {"SessionStart": null}}`,
		"empty file":       ``,
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			settings := filepath.Join(dir, ".claude", "settings.json")
			write(t, settings, content)
			// AGENTS.md comes first and would be created: a refusal of any
			// target must leave every file as it was.
			res, err := onboard.Write(dir, s, onboard.AgentsMD, onboard.Claude)
			var pe *pinki.Error
			if err == nil || pinki.ErrorCode(err) != pinki.CodeInvalid || res != nil {
				t.Fatalf("Write: %+v %v, want a %s refusal", res, err, pinki.CodeInvalid)
			}
			if pe = pinki.AsError(err); !strings.Contains(pe.Message, settings) || pe.Hint == "" {
				t.Fatalf("refusal %+v does not name the file or hint", pe)
			}
			if got := read(t, settings); got != content {
				t.Fatalf("settings.json changed to %q", got)
			}
			if _, err := os.Stat(filepath.Join(dir, "AGENTS.md")); !os.IsNotExist(err) {
				t.Fatalf("AGENTS.md was written despite the refusal: %v", err)
			}
		})
	}
}

func TestWriteUnknownTarget(t *testing.T) {
	_, err := onboard.Write(t.TempDir(), snippets(t, "desk/a", ""), "cursor")
	if pinki.ErrorCode(err) != pinki.CodeInvalid {
		t.Fatalf("unknown target: %v", err)
	}
}

func TestWriteLeavesUnrelatedShapesAlone(t *testing.T) {
	// A SessionStart entry of a shape onboard does not know is kept as is.
	dir := t.TempDir()
	settings := filepath.Join(dir, ".claude", "settings.local.json")
	write(t, settings, `{"hooks":{"SessionStart":["odd",{"hooks":"also odd"}]}}`)
	res, err := onboard.Write(dir, snippets(t, "desk/a", ""), onboard.ClaudeLocal)
	if err != nil || res[0].Action != onboard.Added {
		t.Fatalf("%+v %v", res, err)
	}
	var doc struct {
		Hooks struct{ SessionStart []json.RawMessage }
	}
	if err := json.Unmarshal([]byte(read(t, settings)), &doc); err != nil || len(doc.Hooks.SessionStart) != 3 {
		t.Fatalf("settings.local.json: %s (%v)", read(t, settings), err)
	}
	var first, second bytes.Buffer
	json.Compact(&first, doc.Hooks.SessionStart[0])
	json.Compact(&second, doc.Hooks.SessionStart[1])
	if first.String() != `"odd"` || second.String() != `{"hooks":"also odd"}` {
		t.Fatalf("entries changed: %s %s", first.String(), second.String())
	}
}

// The hook an earlier onboard wrote (plain pinki prime, which exits 3 on a
// line this version cannot read) is reported outdated, left as it is, and
// not doubled.
func TestWriteReportsAnOutdatedHook(t *testing.T) {
	dir := t.TempDir()
	hooks := filepath.Join(dir, ".claude", "settings.json")
	existing := `{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"pinki prime --seat desk/a"}]}]}}`
	write(t, hooks, existing)
	res, err := onboard.Write(dir, snippets(t, "desk/a", ""), onboard.Claude)
	if err != nil || res[0].Action != onboard.Outdated {
		t.Fatalf("%+v %v, want outdated", res, err)
	}
	if read(t, hooks) != existing {
		t.Fatal("an outdated hook's file was changed")
	}
}

// AGENTS.md holds one seat's pinki section: the same seat's is present, and
// another seat's is refused, the file left as it was.
func TestWriteRefusesASecondSeatsSection(t *testing.T) {
	dir := t.TempDir()
	agents := filepath.Join(dir, "AGENTS.md")
	if _, err := onboard.Write(dir, snippets(t, "desk/a", ""), onboard.AgentsMD); err != nil {
		t.Fatal(err)
	}
	first := read(t, agents)
	res, err := onboard.Write(dir, snippets(t, "desk/a", "/usr/local/bin/pinki"), onboard.AgentsMD)
	if err != nil || res[0].Action != onboard.Present {
		t.Fatalf("same seat, another path to pinki: %+v %v, want present", res, err)
	}
	res, err = onboard.Write(dir, snippets(t, "desk/b", ""), onboard.AgentsMD, onboard.Codex)
	pe := pinki.AsError(err)
	if res != nil || pinki.ErrorCode(err) != pinki.CodeConflict || !strings.Contains(pe.Message, `is for seat "desk/a"`) ||
		!strings.Contains(pe.Message, agents) {
		t.Fatalf("second seat: %+v %v, want a conflict naming desk/a and the file", res, err)
	}
	if read(t, agents) != first {
		t.Fatal("AGENTS.md changed")
	}
	if _, err := os.Stat(filepath.Join(dir, ".codex")); !os.IsNotExist(err) {
		t.Fatalf("another target was written despite the refusal: %v", err)
	}
	// A hand-edited section naming no seat is refused too.
	write(t, agents, "# Rules\n\n## Promises (pinki)\n\nAsk the lead.\n")
	if _, err := onboard.Write(dir, snippets(t, "desk/b", ""), onboard.AgentsMD); pinki.ErrorCode(err) != pinki.CodeConflict {
		t.Fatalf("a section naming no seat: %v, want a conflict", err)
	}
}
