package main

import (
	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/ledger"
)

func (a *app) acceptCommand() *cobra.Command {
	var in ledger.AcceptInput
	var meta string
	cmd := &cobra.Command{
		Use:   "accept ID --rev N",
		Short: "Accept an agreement's terms at the revision you saw",
		Long: `Record one party's acceptance of a proposal's current terms. --rev is the
revision you read (pinki show ID): if the terms changed since, the accept is
a conflict (exit 4). The agreement is owed once both parties have accepted
since the terms last changed. The party is --as (or --by).

Prints ID<TAB>STATE.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("rev") {
				return &pinki.Error{Code: pinki.CodeInvalid, Field: "rev",
					Message: "--rev is required: accept names the revision you saw (`pinki show " + args[0] + "` prints it)"}
			}
			m, err := a.jsonFlag("--meta", meta)
			if err != nil {
				return err
			}
			in.ID, in.Meta = args[0], m
			return a.change(func(api ledger.API, who pinki.Identity) (ledger.Receipt, error) {
				return api.Accept(a.ctx, who, in)
			})
		},
	}
	f := cmd.Flags()
	f.IntVar(&in.Rev, "rev", 0, "the revision of the terms you accept")
	f.StringVar(&in.By, "by", "", "the accepting party (default: --as)")
	f.StringVar(&meta, "meta", "", metaHelp)
	return cmd
}
