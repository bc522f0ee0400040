package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pinki-ledger/pinki/a2a/a2atest"
	"github.com/pinki-ledger/pinki/mcp"
)

// The verbs that talk to other processes or run until stopped (mcp, verify
// --watch, a2a watch) are tested here rather than in scripts.

// syncBuffer is a buffer a running verb writes to while the test reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// pinkiIn runs one command line in-process with a (its streams are
// replaced) and returns its stdout; a status other than 0 fails the test.
func pinkiIn(t *testing.T, a *app, args ...string) string {
	t.Helper()
	var out, errs bytes.Buffer
	a.stdin, a.stdout, a.stderr = strings.NewReader(""), &out, &errs
	if a.ctx == nil {
		a.ctx = context.Background()
	}
	if code := a.run(args); code != 0 {
		t.Fatalf("pinki %s: exit %d\n%s", strings.Join(args, " "), code, errs.String())
	}
	return out.String()
}

// waitFor waits until out holds want, failing after a generous deadline.
func waitFor(t *testing.T, out *syncBuffer, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(out.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the output:\n%s", want, out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestMCPStdio starts `pinki mcp` as a child process (the test binary,
// which testscript.Main put on PATH as pinki) and drives it with the SDK's
// client over stdin and stdout: initialize, tools/list, one tool call.
// Anything else on stdout would break the protocol.
func TestMCPStdio(t *testing.T) {
	bin, err := exec.LookPath("pinki")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	cmd := exec.Command(bin, "mcp", "--seat", "desk/dev")
	cmd.Env = append(os.Environ(), "PINKI_LEDGER="+path, "PINKI_SEAT=")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	ctx := context.Background()
	c := sdk.NewClient(&sdk.Implementation{Name: "pinki-cli-test", Version: "v0"}, nil)
	cs, err := c.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("initialize: %v\n%s", err, stderr.String())
	}
	if got := cs.InitializeResult().ServerInfo; got.Name != "pinki" || got.Version != version {
		t.Errorf("server %s %s, want pinki %s", got.Name, got.Version, version)
	}
	checkTools(t, cs)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "make_promise", Arguments: map[string]any{
		"promise": "write the runbook", "to": "desk/ops", "until": "2099-01-01T00:00:00Z", "id": "doc-1"}})
	if err != nil || res.IsError {
		t.Fatalf("make_promise: %v %+v", err, res)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"id":"doc-1","promise":"write the runbook","by":"desk/dev","to":"desk/ops"`)) {
		t.Errorf("the ledger holds:\n%s", data)
	}
	if s := stderr.String(); s != "" {
		t.Errorf("stderr: %s", s)
	}
}

// checkTools fails unless tools/list on cs answers exactly the server's
// tools.
func checkTools(t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, mcp.ToolNames()) {
		t.Errorf("tools %v, want %v", names, mcp.ToolNames())
	}
}

// TestVerifyWatch runs `pinki verify --watch` until cancelled: the item's
// completion, made while it watches, is resolved; a line is printed when it
// changes, not on every pass.
func TestVerifyWatch(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".pinki", "ledger.jsonl")
	todos := filepath.Join(dir, "todos.json")
	write := func(status string) {
		t.Helper()
		if err := os.WriteFile(todos, []byte(`[{"content":"Water the plants","status":"`+status+`"}]`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pending")
	pinkiIn(t, &app{}, "--ledger", path, "promise", "water the plants", "--id", "p1", "--by", "desk/dev",
		"--to", "desk/ops", "--until", "+1h", "--bind-todo", todos, "--item", "Water the plants")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errs syncBuffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errs, ctx: ctx}
	done := make(chan int)
	go func() { done <- a.run([]string{"--ledger", path, "verify", "--watch", "--interval", "10ms"}) }()
	waitFor(t, &out, "p1 todo:"+todos+"#Water the plants: pending: pending [none]\n")
	write("completed")
	waitFor(t, &out, "p1 todo:"+todos+"#Water the plants: delivered (pending -> completed) [resolved]\n")
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d\n%s", code, errs.String())
	}
	if n := strings.Count(out.String(), "pending [none]"); n != 1 {
		t.Errorf("the pending line was printed %d times, want once:\n%s", n, out.String())
	}
	if show := pinkiIn(t, &app{}, "--ledger", path, "show", "p1"); !strings.Contains(show, "resolution   satisfied at ") ||
		!strings.Contains(show, " by pinki/verifier\n") {
		t.Errorf("show:\n%s", show)
	}
}

// TestA2AWatch runs `pinki a2a watch` against a live A2A agent: the seat is
// its own agent (an https:// URL) or mapped with `pinki seat set`; a task
// completed with an artifact is a verified delivery, a failed one an
// assessment, a seat with no agent an error on its line; a second pass
// appends nothing.
func TestA2AWatch(t *testing.T) {
	ag := a2atest.New(t)
	path := filepath.Join(t.TempDir(), ".pinki", "ledger.jsonl")
	deliver, fail, mapped := ag.Start(t, "deliver"), ag.Start(t, "fail"), ag.Start(t, "deliver")
	promise := func(id, by, task string) {
		pinkiIn(t, &app{}, "--ledger", path, "promise", "hand back a reviewed schema", "--id", id, "--by", by,
			"--to", "desk/author", "--until", "+1d", "--task", task)
	}
	promise("p-deliver", ag.URL(), deliver)
	promise("p-fail", ag.URL(), fail)
	promise("p-mapped", "desk/reviewer", mapped)
	promise("p-nobody", "desk/nobody", "task-1")
	pinkiIn(t, &app{}, "--ledger", path, "seat", "set", "desk/reviewer", "--card", ag.URL())

	var out, errs bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errs, ctx: context.Background(), httpClient: ag.HTTPClient()}
	if code := a.run([]string{"--ledger", path, "a2a", "watch"}); code != 0 {
		t.Fatalf("exit %d\n%s", code, errs.String())
	}
	got := out.String()
	for _, want := range []string{
		"p-deliver a2a-task:" + deliver + ": delivered (",
		"p-fail a2a-task:" + fail + ": task-failed: ",
		"p-mapped a2a-task:" + mapped + ": delivered (",
		`p-nobody a2a-task:task-1: not observed [error]: no agent is known for seat "desk/nobody"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	if show := pinkiIn(t, &app{}, "--ledger", path, "show", "p-deliver"); !strings.Contains(show, "/artifacts/review-91\n") {
		t.Errorf("show p-deliver:\n%s", show)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	a = &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errs, ctx: context.Background(), httpClient: ag.HTTPClient()}
	if code := a.run([]string{"--ledger", path, "a2a", "watch"}); code != 0 {
		t.Fatalf("second pass: exit %d\n%s", code, errs.String())
	}
	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Errorf("a second pass appended:\n%s", after[len(before):])
	}
	if strings.Contains(out.String(), "p-deliver") || !strings.Contains(out.String(), "[on_record]") {
		t.Errorf("second pass:\n%s", out.String())
	}
}
