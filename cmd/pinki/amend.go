package main

import (
	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/ledger"
)

func (a *app) amendCommand() *cobra.Command {
	var in ledger.AmendInput
	var cf changeFlags
	cmd := &cobra.Command{
		Use:   "amend ID --until DEADLINE [--reason TEXT]",
		Short: "Move an obligation's deadline, keeping the history",
		Long: `Move the deadline (the horizon) of an open obligation. The latest amend is the
horizon; every earlier one stays in the history (pinki show ID). The debtor
amends a promise or request; either party amends a proposal, which voids the
acceptances so far.

Prints ID<TAB>STATE.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if in.Until == "" {
				return &pinki.Error{Code: pinki.CodeInvalid, Field: "until", Message: "--until is required: pinki amend ID --until ISO [--reason TEXT]"}
			}
			meta, rev, err := a.changeValues(cmd, &cf)
			if err != nil {
				return err
			}
			in.ID, in.Meta, in.Rev = args[0], meta, rev
			return a.change(func(api ledger.API, who pinki.Identity) (ledger.Receipt, error) {
				return api.Amend(a.ctx, who, in)
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&in.Until, "until", "", "the new deadline: an RFC 3339 instant with a zone, or a duration such as +2h")
	f.StringVar(&in.Reason, "reason", "", "why the deadline moves")
	f.StringVar(&in.By, "by", "", "who amends (default: --as, else the debtor)")
	cf.register(cmd)
	return cmd
}
