package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

// jsonFlag returns a JSON flag's value, or the contents of @FILE (@- for
// stdin), as a raw message; "" is none. The service validates it.
//
// Errors: CodeInvalid when the file cannot be read.
func (a *app) jsonFlag(flag, v string) (json.RawMessage, error) {
	v, err := a.readValue(flag, v)
	if err != nil {
		return nil, err
	}
	return rawJSON(v), nil
}

// rawJSON turns JSON text into a raw message; "" (or only space) is none.
func rawJSON(s string) json.RawMessage {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return json.RawMessage(s)
}

// revFlag returns --rev when it was given: the revision the writer saw.
func revFlag(cmd *cobra.Command, v int) *int {
	if !cmd.Flags().Changed("rev") {
		return nil
	}
	return &v
}

// readValue returns a flag's value, or a file's contents for @FILE (@- for
// stdin).
//
// Errors: CodeInvalid when the file cannot be read.
func (a *app) readValue(flag, v string) (string, error) {
	name, ok := strings.CutPrefix(v, "@")
	if !ok {
		return v, nil
	}
	return a.readFile(flag, name)
}

// readFile reads a file named on the command line ("-" is stdin).
//
// Errors: CodeInvalid when it cannot be read.
func (a *app) readFile(flag, name string) (string, error) {
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(a.stdin)
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return "", &pinki.Error{Code: pinki.CodeInvalid, Field: strings.TrimPrefix(flag, "--"),
			Message: flag + ": cannot read " + name + ": " + strings.TrimPrefix(err.Error(), "open "+name+": ")}
	}
	return string(b), nil
}

// stdinIsTerminal reports whether stdin is a terminal (nobody piped a record).
func (a *app) stdinIsTerminal() bool {
	f, ok := a.stdin.(*os.File)
	return ok && isTerminal(f.Fd())
}

// metaHelp is the help text of every --meta flag.
const metaHelp = "an opaque JSON object (at most 8 KiB), or @FILE; stored and returned, never read"

// creation holds the flags the three creation verbs share.
type creation struct {
	kind  fold.Kind
	verb  string // promise, request, propose
	usage string // the verb's synopsis, for messages
	by    string
	to    string
	until string
	id    string
	on    string
	task  string
	meta  string
	lapse string
}

// register adds the shared flags to cmd, with the help texts for by and to.
func (c *creation) register(cmd *cobra.Command, byHelp, toHelp string) {
	f := cmd.Flags()
	f.StringVar(&c.by, "by", "", byHelp)
	f.StringVar(&c.to, "to", "", toHelp)
	f.StringVar(&c.until, "until", "", "deadline: an RFC 3339 instant with a zone, or a duration such as +2h, 30m, 1d")
	f.StringVar(&c.id, "id", "", "a caller-supplied id (1-128 of A-Za-z0-9._:/@-); default: minted")
	f.StringVar(&c.on, "on", "", "antecedent: the id of a promise this one waits on")
	f.StringVar(&c.task, "task", "", "the A2A Task.id this obligation is about")
	f.StringVar(&c.meta, "meta", "", metaHelp)
	f.StringVar(&c.lapse, "lapse", "", "what a passed deadline does: overdue (default) or expire")
}

// require checks the flags a creation cannot go without, in pinki's order:
// --by, --to, --until. With --as (or against a server, whose token names the
// writer), the service fills the writer's own side (by for a promise, to for
// a request), so that flag may be left out.
//
// Errors: CodeInvalid naming the missing flag.
func (a *app) require(c *creation) error {
	missing := func(flag string) error {
		return &pinki.Error{Code: pinki.CodeInvalid, Field: strings.TrimPrefix(flag, "--"),
			Message: flag + " is required: " + c.usage}
	}
	writer := a.seat != "" || a.at == onServer
	switch {
	case strings.TrimSpace(c.by) == "" && !(c.kind == fold.KindPromise && writer):
		return missing("--by")
	case strings.TrimSpace(c.to) == "" && !(c.kind == fold.KindRequest && writer):
		return missing("--to")
	case strings.TrimSpace(c.until) == "":
		return missing("--until")
	}
	return nil
}

// input is the service's input for the flags, once the required ones are
// there.
//
// Errors: CodeInvalid for a missing flag, or a --meta file that cannot be
// read.
func (a *app) input(c *creation, text string) (ledger.CreateInput, error) {
	if err := a.require(c); err != nil {
		return ledger.CreateInput{}, err
	}
	meta, err := a.jsonFlag("--meta", c.meta)
	return ledger.CreateInput{Kind: c.kind, ID: c.id, Text: text, By: c.by, To: c.to, On: c.on,
		Until: c.until, Task: c.task, Lapse: pinki.Lapse(c.lapse), Meta: meta}, err
}

// create sends a creation to the service and prints its receipt.
func (a *app) create(in ledger.CreateInput, digest bool) error {
	api, err := a.api()
	if err != nil {
		return err
	}
	r, err := api.Create(a.ctx, a.identity(), in)
	if err != nil {
		return err
	}
	return a.printReceipt(r, digest)
}

// change runs one write on an existing obligation and prints its receipt.
func (a *app) change(do func(api ledger.API, who pinki.Identity) (ledger.Receipt, error)) error {
	api, err := a.api()
	if err != nil {
		return err
	}
	r, err := do(api, a.identity())
	if err != nil {
		return err
	}
	return a.printReceipt(r, false)
}

// exactArgs, maxArgs and noArgs check the positional arguments, refusing with
// the verb's synopsis.
func exactArgs(n int) cobra.PositionalArgs { return argsBetween(n, n) }
func maxArgs(n int) cobra.PositionalArgs   { return argsBetween(0, n) }

var noArgs = argsBetween(0, 0)

func argsBetween(lo, hi int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) >= lo && len(args) <= hi {
			return nil
		}
		var want string
		switch {
		case hi == 0:
			want = "no arguments"
		case lo == hi && hi == 1:
			want = "1 argument"
		case lo == hi:
			want = fmt.Sprintf("%d arguments", hi)
		default:
			want = fmt.Sprintf("at most %d argument(s)", hi)
		}
		return (&pinki.Error{Code: pinki.CodeInvalid,
			Message: fmt.Sprintf("%s takes %s, got %d", cmd.CommandPath(), want, len(args))}).
			WithHint("usage: %s", cmd.UseLine())
	}
}

// changeFlags are the flags every write on an existing obligation takes.
type changeFlags struct {
	meta string
	rev  int
}

func (c *changeFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&c.meta, "meta", "", metaHelp)
	cmd.Flags().IntVar(&c.rev, "rev", 0, "the revision you saw; a different current revision is a conflict (exit 4)")
}

// changeValues returns --meta (read from @FILE) and --rev when it was given.
//
// Errors: CodeInvalid when --meta names a file that cannot be read.
func (a *app) changeValues(cmd *cobra.Command, c *changeFlags) (json.RawMessage, *int, error) {
	meta, err := a.jsonFlag("--meta", c.meta)
	return meta, revFlag(cmd, c.rev), err
}
