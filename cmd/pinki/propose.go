package main

import (
	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki/fold"
)

const proposeUsage = "pinki propose TERMS --by DEBTOR --to CREDITOR --until ISO"

func (a *app) proposeCommand() *cobra.Command {
	c := &creation{kind: fold.KindAgreement, verb: "propose", usage: proposeUsage}
	var proposer string
	var bind todoBinding
	cmd := &cobra.Command{
		Use:   "propose TERMS --by DEBTOR --to CREDITOR --until DEADLINE",
		Short: "Propose an agreement: owed once both parties accept",
		Long: `Propose terms between a debtor (--by) and a creditor (--to). The agreement is
owed once both parties have accepted the current terms (pinki accept ID --rev
N); until then it is proposed, and if --until passes first it expires. With
--as, the proposer is that seat, which must be a party; without it, say which
party proposes with --proposer by|to (default by). --bind-todo FILE --item
TEXT binds the terms to that todo item (see pinki bind).

Prints ID<TAB>STATE.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in, err := a.input(c, args[0])
			if err != nil {
				return err
			}
			in.Proposer = proposer
			if in.Target, err = bind.target(a); err != nil {
				return err
			}
			return a.create(in, false)
		},
	}
	c.register(cmd, "the debtor: the party that will owe", "the creditor: the party that will be owed")
	cmd.Flags().StringVar(&proposer, "proposer", "", "which party proposes when --as is not given: by or to")
	bind.register(cmd)
	return cmd
}
