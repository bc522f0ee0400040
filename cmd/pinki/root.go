package main

import (
	"os"
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
.pinki/ledger.jsonl walking up from here, else ./.pinki/ledger.jsonl.`,
		Version:           versionLine(),
		SilenceErrors:     true,
		SilenceUsage:      true,
		CompletionOptions: cobra.CompletionOptions{DisableDefaultCmd: true},
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return a.setup()
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
	pf.StringVar(&a.asFlag, "as", "", "the seat you act as (default: $PINKI_SEAT)")
	pf.StringVar(&a.nowFlag, "now", "", "fix the clock at this RFC 3339 instant (states, relative times, and the ts of writes)")
	pf.BoolVar(&a.tolerate, "tolerate-unknown", false, "exit 0, not 3, when the ledger holds lines this version does not understand")
	pf.BoolVar(&a.jsonOut, "json", false, "print JSON")

	root.AddCommand(
		a.initCommand(), a.versionCommand(),
		a.promiseCommand(), a.requestCommand(), a.proposeCommand(),
		a.amendCommand(), a.acceptCommand(), a.progressCommand(), a.resolveCommand(), a.assessCommand(),
		a.lsCommand(), a.showCommand(), a.exportCommand(), a.importCommand(), a.checkCommand(),
		a.inboxCommand(), a.primeCommand(), a.agreementsCommand(), a.a2aCommand(),
		a.bindCommand(), a.verifyCommand(), a.seatCommand(), a.reconcileCommand(), a.bridgeCommand(),
		a.mcpCommand(), a.onboardCommand(),
	)
	return root
}

// setup reads the global flags and the environment.
func (a *app) setup() error {
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
		a.seat = strings.TrimSpace(os.Getenv("PINKI_SEAT"))
	}
	return nil
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
