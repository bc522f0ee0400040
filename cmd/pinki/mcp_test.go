package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// A host that pipes initialize and a tool call to pinki mcp and closes
// stdin at once gets both answers, and the call is recorded.
func TestMCPAnswersWhenStdinClosesAtOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"make_promise","arguments":{"promise":"write the runbook","to":"desk/ops","until":"+1d","id":"doc-1"}}}
`
	var out, errs bytes.Buffer
	a := &app{stdin: strings.NewReader(in), stdout: &out, stderr: &errs, ctx: context.Background(),
		getenv: func(string) string { return "" }}
	if code := a.run([]string{"--ledger", path, "mcp", "--seat", "desk/dev"}); code != 0 {
		t.Fatalf("exit %d\n%s", code, errs.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"jsonrpc":"2.0","id":1,"result":`) ||
		!strings.HasPrefix(lines[1], `{"jsonrpc":"2.0","id":2,"result":`) || !strings.Contains(lines[1], `\"id\":\"doc-1\"`) {
		t.Fatalf("stdout:\n%s", out.String())
	}
	if show := pinkiIn(t, &app{}, "--ledger", path, "show", "doc-1"); !strings.Contains(show, "write the runbook") {
		t.Errorf("show:\n%s", show)
	}
}
