package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// failingWriter fails every write, the way /dev/full does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) {
	return 0, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}
}

// runWith runs pinki with stdout and ctx given, and returns the exit status
// and stderr.
func runWith(t *testing.T, ctx context.Context, stdout *bytes.Buffer, args ...string) (int, string) {
	t.Helper()
	var errs bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stderr: &errs, ctx: ctx, getenv: func(string) string { return "" }}
	a.stdout = failingWriter{}
	if stdout != nil {
		a.stdout = stdout
	}
	return a.run(args), errs.String()
}

// An error that is not pinki's own and not cobra's parsing of the command
// line is an operational failure: exit 1, no usage hint. Cobra's own
// refusals stay usage errors (exit 2, the hint names --help).
func TestExitStatusOfFailures(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	var out bytes.Buffer
	if code, errs := runWith(t, context.Background(), &out, "--ledger", path, "promise", "ship it", "--id", "p1", "--by", "a", "--to", "b", "--until", "+1h"); code != 0 {
		t.Fatalf("promise: exit %d\n%s", code, errs)
	}

	// stdout on a full disk (pinki ls > /dev/full).
	code, errs := runWith(t, context.Background(), nil, "--ledger", path, "ls")
	if code != 1 || !strings.HasPrefix(errs, "pinki: error: write /dev/stdout: no space left on device\n") || strings.Contains(errs, "hint") {
		t.Errorf("ls to a full disk: exit %d, stderr %q; want 1, the write error, no hint", code, errs)
	}
	for _, args := range [][]string{{"version"}, {"ls", "--json"}, {"show", "p1"}} {
		if code, _ := runWith(t, context.Background(), nil, append([]string{"--ledger", path}, args...)...); code != 1 {
			t.Errorf("%v to a full disk: exit %d, want 1", args, code)
		}
	}

	// A context that ended.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out.Reset()
	if code, errs := runWith(t, ctx, &out, "--ledger", path, "ls"); code != 1 || strings.Contains(errs, "hint") {
		t.Errorf("ls with its context ended: exit %d, stderr %q; want 1, no hint", code, errs)
	}

	// Cobra's own refusals: an unknown verb, an unknown flag.
	for _, args := range [][]string{{"bogus"}, {"ls", "--bogus"}} {
		out.Reset()
		code, errs := runWith(t, context.Background(), &out, append([]string{"--ledger", path}, args...)...)
		if code != 2 || !strings.Contains(errs, "pinki: hint: `pinki") {
			t.Errorf("%v: exit %d, stderr %q; want 2 with the --help hint", args, code, errs)
		}
	}
}
