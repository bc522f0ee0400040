package main

import (
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki"
)

// rootCommand builds the command tree with the global flags.
func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "pinki",
		Short: "pinki: a promise ledger for agent fleets",
		Long: `pinki records obligations between durable identities (seats) in an
append-only ledger, and computes every state from it: promises, requests for
a response, and agreements.

The ledger is --ledger PATH, else $PINKI_LEDGER, else the nearest
.pinki/ledger.jsonl walking up from here, else ./.pinki/ledger.jsonl. With
--store postgres://… ($PINKI_STORE) it is a PostgreSQL database; with
--server URL ($PINKI_SERVER, and the token in $PINKI_TOKEN) every verb talks
to a pinki server instead.`,
		Version:           versionLine(),
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return a.setup(cmd)
		},
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.Flags().BoolP("version", "V", false, "print the version and the ledger format")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &pinki.Error{Code: pinki.CodeInvalid, Message: err.Error(),
			Hint: "`" + cmd.CommandPath() + " --help` lists its flags"}
	})
	pf := root.PersistentFlags()
	pf.StringVar(&a.ledgerFlag, "ledger", "", "ledger file (default: $PINKI_LEDGER, else the nearest .pinki/ledger.jsonl)")
	pf.StringVar(&a.storeFlag, "store", "", "the ledger in PostgreSQL: a postgres:// URL (default: $PINKI_STORE)")
	pf.StringVar(&a.serverFlag, "server", "", "talk to the pinki server at this URL, with the token in $PINKI_TOKEN (default: $PINKI_SERVER)")
	pf.StringVar(&a.asFlag, "as", "", "the seat you act as (default: $PINKI_SEAT)")
	pf.StringVar(&a.nowFlag, "now", "", "fix the clock at this RFC 3339 instant (states, relative times, and the ts of writes)")
	pf.BoolVar(&a.tolerate, "tolerate-unknown", false, "exit 0, not 3, when the ledger holds lines this version does not understand")
	pf.BoolVar(&a.jsonOut, "json", false, "print JSON")

	root.AddCommand(
		a.initCommand(), a.versionCommand(),
		writeVerb(a.promiseCommand()), writeVerb(a.requestCommand()), writeVerb(a.proposeCommand()),
		writeVerb(a.amendCommand()), writeVerb(a.acceptCommand()), writeVerb(a.progressCommand()),
		writeVerb(a.resolveCommand()), writeVerb(a.assessCommand()), writeVerb(a.bindCommand()),
		writeVerb(a.importCommand()), writeVerb(a.verifyCommand()),
		a.lsCommand(), a.showCommand(), a.exportCommand(), a.checkCommand(),
		a.inboxCommand(), a.primeCommand(), a.agreementsCommand(), a.a2aCommand(),
		a.seatCommand(), a.reconcileCommand(), a.bridgeCommand(),
		a.mcpCommand(), a.onboardCommand(), a.serveCommand(), a.tokenCommand(),
	)
	return root
}

// setup reads the global flags and the environment for cmd.
//
// Errors: CodeInvalid for a bad --now, flags naming two ledgers (locate),
// and --now on a write against a server.
func (a *app) setup(cmd *cobra.Command) error {
	a.cmd = cmd
	a.now = time.Now()
	if v := strings.TrimSpace(a.nowFlag); v != "" {
		t, err := pinki.ParseTime(v)
		if err != nil {
			return (&pinki.Error{Code: pinki.CodeInvalid, Field: "now",
				Message: "--now " + quote(v) + " is not an RFC 3339 instant with a zone"}).
				WithHint("such as 2026-09-01T17:00:00Z or 2026-09-01T10:00:00-07:00")
		}
		a.now, a.fixed = t, true
	}
	a.seat = strings.TrimSpace(a.asFlag)
	if a.seat == "" {
		a.seat = strings.TrimSpace(a.env("PINKI_SEAT"))
	}
	if err := a.locate(cmd); err != nil {
		return err
	}
	if annotated(cmd, writeAnnotation) {
		return a.refuseNowOnServer()
	}
	return nil
}

// refuseNowOnServer refuses --now on a write against a server: the server
// stamps every write with its own clock. Reads pass --now on.
//
// Errors: CodeInvalid.
func (a *app) refuseNowOnServer() error {
	if a.at != onServer || !a.fixed {
		return nil
	}
	return (&pinki.Error{Code: pinki.CodeInvalid, Field: "now",
		Message: "--now cannot stamp a write on a server: the server stamps every write with its own clock"}).
		WithHint("leave --now out of writes with --server (reads take it)")
}

func versionLine() string {
	return "pinki " + version + " (ledger format: " + ledgerFormat + ")"
}

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version and the ledger format it writes",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if a.jsonOut {
				return a.printJSON(struct {
					Version string `json:"version"`
					Format  string `json:"format"`
					Reads   string `json:"reads"`
				}{version, "pinki events v1", "pinki 0.1, 0.2"})
			}
			_, err := a.stdout.Write([]byte(versionLine() + "\n"))
			return err
		},
	}
}
