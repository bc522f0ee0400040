package main

import (
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki/reconcile"
)

func (a *app) reconcileCommand() *cobra.Command {
	return readVerb(&cobra.Command{
		Use:   "reconcile LEDGER_A LEDGER_B",
		Short: "Join two parties' ledgers on the id and list where they do not align",
		Long: `Read two ledger files where they lie (nothing is written to either), join them
on the obligation id (never on meta) and list every id where they do not
align: held by one side only, different declarations, different horizons,
different resolutions, contradicting assessments (an observer's violated
beside a late, evidenced satisfied), or different computed states at the
same now (--now, else the wall clock). Both records stay true: the report
shows them side by side.

Exits 0 whatever it finds; 3 when either ledger holds lines this version
does not understand (listed in the report).`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := reconcile.Files(a.ctx, args[0], args[1], reconcile.Options{Now: a.queryNow()})
			if err != nil {
				return err
			}
			for _, u := range r.Unknown {
				a.warn("%s", u)
			}
			a.unknown += len(r.Unknown)
			if a.jsonOut {
				return a.printJSON(r)
			}
			var b strings.Builder
			if err := r.WriteText(&b); err != nil {
				return err
			}
			// The side-by-side columns pad an empty last cell: trim it.
			lines := strings.Split(b.String(), "\n")
			for i := range lines {
				lines[i] = strings.TrimRight(lines[i], " ")
			}
			_, err = io.WriteString(a.stdout, strings.Join(lines, "\n"))
			return err
		},
	})
}
