package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki"
)

func (a *app) importCommand() *cobra.Command {
	var add bool
	cmd := &cobra.Command{
		Use:   "import FILE|- [--append]",
		Short: "Append event lines (pinki export --format events) to the ledger",
		Long: `Append the event lines of FILE (- for stdin), as they are and with no rules:
a ledger moved from another store, or history with past deadlines. Every line
must be understood, or nothing is appended. Into a ledger that already holds
events, import refuses unless --append is given.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			events, err := a.readEvents(args[0])
			if err != nil {
				return err
			}
			api, err := a.api()
			if err != nil {
				return err
			}
			n, err := api.Import(a.ctx, a.identity(), events, add)
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(struct {
					Imported int    `json:"imported"`
					Ledger   string `json:"ledger"`
				}{n, a.where()})
			}
			fmt.Fprintf(a.stdout, "imported %d events into %s\n", n, a.where())
			return nil
		},
	}
	cmd.Flags().BoolVar(&add, "append", false, "add to a ledger that already holds events")
	return cmd
}

// readEvents decodes every line of the named file strictly.
//
// Errors: CodeInvalid naming the first line that is not understood.
func (a *app) readEvents(name string) ([]pinki.Event, error) {
	var r io.Reader = a.stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, &pinki.Error{Code: pinki.CodeInvalid, Message: "cannot read " + name + ": " + err.Error()}
		}
		defer f.Close()
		r = f
	}
	var events []pinki.Event
	var dec pinki.Decoder
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 16<<20)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSuffix(sc.Bytes(), []byte{'\r'})
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		e, err := dec.Decode(b)
		if err != nil {
			return nil, (&pinki.Error{Code: pinki.CodeInvalid, Message: fmt.Sprintf("%s line %d: %v", name, line, err)}).
				WithHint("import takes event lines only (pinki export --format events); nothing was appended")
		}
		events = append(events, e)
	}
	if err := sc.Err(); err != nil {
		return nil, &pinki.Error{Code: pinki.CodeInvalid, Message: fmt.Sprintf("cannot read %s: %v", name, err)}
	}
	return events, nil
}
