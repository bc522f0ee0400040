// Command pinki is the promise ledger's command line: a thin surface over
// ledger.API. Every verb reaches the ledger through one value made in one
// place (app.api, backend.go); none of them validates, mints ids or decides
// anything the service decides.
//
// Exit statuses (SPEC §4): 0 success; 1 operational failure; 2 refused input
// or usage; 3 a read succeeded but the ledger holds lines this version does
// not understand; 4 conflict.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/httpapi"
	"github.com/pinki-ledger/pinki/ledger"
)

// version is the binary's version; a release build may set it with
// -ldflags "-X main.version=…".
var version = "0.3.0"

// ledgerFormat names the ledger format this binary writes and reads.
const ledgerFormat = "pinki events v1; reads pinki 0.1/0.2 ledgers"

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// app is one invocation: the streams, the global flags, and the ledger API
// once it is opened.
type app struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	ctx    context.Context

	// Global flags.
	ledgerFlag string
	storeFlag  string
	serverFlag string
	asFlag     string
	nowFlag    string
	tolerate   bool
	jsonOut    bool

	now   time.Time // the clock: --now, else the wall clock at start
	fixed bool      // --now was given
	seat  string    // --as, else $PINKI_SEAT

	cmd     *cobra.Command // the verb being run
	at      location       // where the ledger is: a file, PostgreSQL, a server
	url     string         // the PostgreSQL or server URL (not inFile)
	backend *backend       // opened on first use
	client  *httpapi.Client
	unknown int // lines the ledger holds that this version cannot read

	// getenv, when set, replaces os.Getenv for pinki's variables (tests).
	getenv func(string) string

	// httpClient, when set, is the client for other agents (a2a watch,
	// verify): tests set it to trust their agent. Nil: a2a's default.
	httpClient *http.Client
}

// usageError marks an error as a usage error (exit 2) without a field.
func usageError(format string, args ...any) *pinki.Error {
	return &pinki.Error{Code: pinki.CodeInvalid, Message: fmt.Sprintf(format, args...)}
}

// run executes one command line and returns its exit status. Errors are
// printed once, here: `pinki: error: …`, then the hint and details.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, ctx: context.Background()}
	return a.run(args)
}

// run executes one command line with the app's streams and context, and
// returns its exit status.
func (a *app) run(args []string) int {
	stdin, stdout, stderr := a.stdin, a.stdout, a.stderr
	root := a.rootCommand()
	markRunErrors(root)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	cmd, err := root.ExecuteC()
	defer a.close()
	if err != nil {
		return a.fail(cmd, err)
	}
	if n := a.unknownLines(); isRead(cmd) && n > 0 && !a.tolerate {
		fmt.Fprintf(stderr, "pinki: warning: the output leaves out %d line(s) this version does not understand (exit 3; --tolerate-unknown exits 0)\n", n)
		return pinki.CodePartial.ExitStatus()
	}
	return 0
}

// fail prints err and returns its exit status. A *pinki.Error keeps its
// code. Any other error a verb returned (a write to stdout that failed, a
// context that ended) is an operational failure: exit 1, with no usage hint
// (see operational). Only what cobra itself refuses while parsing the command
// line (an unknown verb or flag, a flag group) is a usage error, exit 2, with
// the hint naming --help.
func (a *app) fail(cmd *cobra.Command, err error) int {
	var pe *pinki.Error
	var re *runError
	switch {
	case errors.As(err, &pe):
	case errors.As(err, &re):
		pe = operational(re.err)
	default:
		hint := "`pinki help` lists the verbs and their flags"
		if cmd != nil && cmd.HasParent() {
			hint = "`" + cmd.CommandPath() + " --help` lists its flags"
		}
		pe = &pinki.Error{Code: pinki.CodeInvalid, Message: err.Error(), Hint: hint}
	}
	fmt.Fprintf(a.stderr, "pinki: error: %s\n", pe.Message)
	if pe.Hint != "" {
		fmt.Fprintf(a.stderr, "pinki: hint: %s\n", pe.Hint)
	}
	for _, d := range pe.Details {
		fmt.Fprintf(a.stderr, "  %s\n", d)
	}
	return pe.Code.ExitStatus()
}

// runError marks an error returned by a verb's own code (its RunE, or the
// setup before it), as opposed to cobra's parsing of the command line.
type runError struct{ err error }

func (e *runError) Error() string { return e.err.Error() }
func (e *runError) Unwrap() error { return e.err }

// markRunErrors wraps the RunE and PersistentPreRunE of cmd and every
// command beneath it, so that fail tells their errors from cobra's own.
func markRunErrors(cmd *cobra.Command) {
	wrap := func(f func(*cobra.Command, []string) error) func(*cobra.Command, []string) error {
		if f == nil {
			return nil
		}
		return func(c *cobra.Command, args []string) error {
			if err := f(c, args); err != nil {
				return &runError{err}
			}
			return nil
		}
	}
	cmd.RunE = wrap(cmd.RunE)
	cmd.PersistentPreRunE = wrap(cmd.PersistentPreRunE)
	for _, c := range cmd.Commands() {
		markRunErrors(c)
	}
}

// operational maps an error a verb returned that is not a *pinki.Error onto
// one with exit status 1: CodeUnavailable for an ended context and for I/O
// failures (writing to a full disk or a closed pipe), CodeInternal for
// anything else (a bug).
func operational(err error) *pinki.Error {
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return &pinki.Error{Code: pinki.CodeUnavailable, Message: "interrupted: " + err.Error()}
	case errors.Is(err, io.ErrShortWrite), errors.Is(err, io.ErrClosedPipe), isIOError(err):
		return &pinki.Error{Code: pinki.CodeUnavailable, Message: err.Error()}
	}
	return &pinki.Error{Code: pinki.CodeInternal, Message: err.Error()}
}

// isIOError reports whether err came from the operating system: a failed
// read or write of a file, a pipe or a terminal.
func isIOError(err error) bool {
	var pathErr *fs.PathError
	var errno syscall.Errno
	return errors.As(err, &pathErr) || errors.As(err, &errno)
}

// interruptible returns the app's context, ended also by SIGINT or SIGTERM:
// for the verbs that run until stopped (mcp, verify --watch, a2a watch
// --follow), which then exit 0.
func (a *app) interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(a.ctx, os.Interrupt, syscall.SIGTERM)
}

// warn prints a warning on stderr.
func (a *app) warn(format string, args ...any) {
	fmt.Fprintf(a.stderr, "pinki: warning: "+format+"\n", args...)
}

// note prints a note on stderr (an empty listing, a created file).
func (a *app) note(format string, args ...any) {
	fmt.Fprintf(a.stderr, "pinki: "+format+"\n", args...)
}

// readAnnotation marks read verbs: they exit 3 when the ledger holds lines
// this version does not understand.
const readAnnotation = "pinki.read"

func isRead(cmd *cobra.Command) bool {
	return cmd != nil && cmd.Annotations[readAnnotation] == "true"
}

func readVerb(cmd *cobra.Command) *cobra.Command {
	annotate(cmd, readAnnotation)
	return cmd
}

// writeAnnotation marks write verbs: against a server they refuse --now,
// since the server stamps writes with its own clock.
const writeAnnotation = "pinki.write"

func writeVerb(cmd *cobra.Command) *cobra.Command {
	annotate(cmd, writeAnnotation)
	return cmd
}

// verifierAnnotation marks the verifiers (verify, a2a watch): they act as
// --as only, never $PINKI_SEAT.
const verifierAnnotation = "pinki.verifier"

// identity is who the invocation acts as: --as / $PINKI_SEAT, else unknown.
// Locally the role is empty: the seat's authority is checked on writes, and
// it reads everything.
func (a *app) identity() pinki.Identity {
	return pinki.Identity{Seat: a.seat}
}

// queryNow is the instant reads compute states at when --now was given; zero
// (the service clock) otherwise.
func (a *app) queryNow() time.Time {
	if a.fixed {
		return a.now
	}
	return time.Time{}
}

// printReceipt prints a write's outcome: ID<TAB>STATE (request adds its
// digest), or the receipt as JSON with --json. Warnings go to stderr.
func (a *app) printReceipt(r ledger.Receipt, digest bool) error {
	for _, w := range r.Warnings {
		a.warn("%s", w)
	}
	if a.jsonOut {
		return a.printJSON(r)
	}
	if digest && r.Digest != "" {
		fmt.Fprintf(a.stdout, "%s\t%s\t%s\n", r.ID, r.State, r.Digest)
		return nil
	}
	if r.State == "" {
		// An assessment by a seat that may not read the obligation: the
		// receipt tells nothing of it.
		fmt.Fprintf(a.stdout, "%s\n", r.ID)
		return nil
	}
	fmt.Fprintf(a.stdout, "%s\t%s\n", r.ID, r.State)
	return nil
}
