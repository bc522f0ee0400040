package main

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var (
	update    = flag.Bool("update", false, "rewrite the expected files inside the scripts")
	keepGoing = flag.Bool("continue", false, "run each script to its end after a failure")
)

// TestMain makes the test binary double as the pinki command: the scripts
// drive the real binary, one process per invocation.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"pinki": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// TestScripts runs testdata/script/*.txtar. Besides the standard commands,
// the scripts have:
//
//	exits CODE pinki ARGS...      run, and require that exit status
//	refuse CODE MESSAGE pinki ARGS...
//	                              run, and require that exit status, nothing on
//	                              stdout, "pinki: error: MESSAGE" as the first
//	                              line of stderr (only hint and detail lines
//	                              after it), and the ledger (./.pinki/ledger.jsonl
//	                              or $PINKI_LEDGER) byte for byte as it was
//	capture VAR [FIELD|REGEXP]    set VAR to a field (1-based, default 1) of the
//	                              first line of the last stdout, or to the group
//	                              of REGEXP's first match in it
//	size-under N FILE             require FILE (or stdout) shorter than N bytes
//	chop FILE                     remove FILE's final newline (a torn line)
//	pad FILE N                    write FILE: the JSON object {"pad":"xx…"},
//	                              exactly N bytes long
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *update,
		ContinueOnError:     *keepGoing,
		Setup: func(env *testscript.Env) error {
			// A race-enabled binary sleeps a second at exit by default so
			// that goroutines still running can report; every invocation
			// here is a process, so keep that short (a -race run of the
			// scripts takes seconds instead of minutes).
			if v := os.Getenv("GORACE"); v != "" {
				env.Setenv("GORACE", v)
			} else {
				env.Setenv("GORACE", "atexit_sleep_ms=50")
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits":      cmdExits,
			"refuse":     cmdRefuse,
			"capture":    cmdCapture,
			"size-under": cmdSizeUnder,
			"pad":        cmdPad,
			"chop":       cmdChop,
		},
	})
}

// status runs a command and returns its exit status.
func status(ts *testscript.TestScript, args []string) int {
	err := ts.Exec(args[0], args[1:]...)
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		ts.Fatalf("%v", err)
	}
	return ee.ExitCode()
}

func wantCode(ts *testscript.TestScript, arg string) int {
	code, err := strconv.Atoi(arg)
	if err != nil {
		ts.Fatalf("exit status %q is not a number", arg)
	}
	return code
}

func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE command [args...]")
	}
	want := wantCode(ts, args[0])
	if got := status(ts, args[1:]); got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}

func cmdRefuse(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: refuse CODE MESSAGE command [args...]")
	}
	want := wantCode(ts, args[0])
	path := ts.Getenv("PINKI_LEDGER")
	if path == "" {
		path = ".pinki/ledger.jsonl"
	}
	path = ts.MkAbs(path)
	before, errBefore := os.ReadFile(path)
	got := status(ts, args[2:])
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
	if out := ts.ReadFile("stdout"); out != "" {
		ts.Fatalf("stdout is not empty on a refusal:\n%s", out)
	}
	lines := strings.Split(strings.TrimSuffix(ts.ReadFile("stderr"), "\n"), "\n")
	if first := "pinki: error: " + args[1]; lines[0] != first {
		ts.Fatalf("stderr's first line is\n\t%s\nwant\n\t%s", lines[0], first)
	}
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l, "pinki: hint: ") && !strings.HasPrefix(l, "  ") {
			ts.Fatalf("stderr has more than the error, a hint and details: %q", l)
		}
	}
	after, errAfter := os.ReadFile(path)
	switch {
	case errBefore != nil && errAfter == nil:
		ts.Fatalf("a refusal created the ledger %s", path)
	case errBefore == nil && !bytes.Equal(before, after):
		ts.Fatalf("a refusal changed the ledger %s:\nbefore:\n%s\nafter:\n%s", path, before, after)
	}
}

func cmdCapture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: capture VAR [FIELD|REGEXP]")
	}
	out := ts.ReadFile("stdout")
	if len(args) == 2 {
		if _, err := strconv.Atoi(args[1]); err != nil {
			re, err := regexp.Compile(args[1])
			ts.Check(err)
			m := re.FindStringSubmatch(out)
			if len(m) != 2 {
				ts.Fatalf("stdout has no match for %s with one group", args[1])
			}
			ts.Setenv(args[0], m[1])
			return
		}
	}
	field := 1
	if len(args) == 2 {
		field = wantCode(ts, args[1])
	}
	first, _, _ := strings.Cut(out, "\n")
	fields := strings.Fields(first)
	if field < 1 || field > len(fields) {
		ts.Fatalf("stdout's first line %q has no field %d", first, field)
	}
	ts.Setenv(args[0], fields[field-1])
}

func cmdSizeUnder(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: size-under N FILE")
	}
	n := wantCode(ts, args[0])
	if size := len(ts.ReadFile(args[1])); size >= n {
		ts.Fatalf("%s is %d bytes, want under %d", filepath.Base(args[1]), size, n)
	}
}

func cmdPad(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: pad FILE N")
	}
	n := wantCode(ts, args[1])
	const frame = len(`{"pad":""}`)
	if n < frame {
		ts.Fatalf("pad: %d bytes is too short", n)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(`{"pad":"`+strings.Repeat("x", n-frame)+`"}`), 0o644))
}

func cmdChop(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: chop FILE")
	}
	path := ts.MkAbs(args[0])
	b, err := os.ReadFile(path)
	ts.Check(err)
	ts.Check(os.WriteFile(path, bytes.TrimSuffix(b, []byte("\n")), 0o644))
}
