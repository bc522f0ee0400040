package main

import (
	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/ledger"
)

func (a *app) progressCommand() *cobra.Command {
	var in ledger.ProgressInput
	var cf changeFlags
	cmd := &cobra.Command{
		Use:   "progress ID acknowledged|in_progress|blocked|pending_human [--note TEXT]",
		Short: "Report the debtor's phase on an owed obligation",
		Long: `Report where the debtor stands on an owed obligation: acknowledged,
in_progress, blocked or pending_human (waiting on a person). A phase changes
no state; inbox and prime count it.

Prints ID<TAB>STATE.`,
		Args: exactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			meta, rev, err := a.changeValues(cmd, &cf)
			if err != nil {
				return err
			}
			in.ID, in.Phase, in.Meta, in.Rev = args[0], pinki.Phase(args[1]), meta, rev
			return a.change(func(api ledger.API, who pinki.Identity) (ledger.Receipt, error) {
				return api.Progress(a.ctx, who, in)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&in.Note, "note", "", "a note on the phase")
	f.StringVar(&in.By, "by", "", "who reports (default: --as, else the debtor)")
	cf.register(cmd)
	return cmd
}
