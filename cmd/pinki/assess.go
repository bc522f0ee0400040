package main

import (
	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/ledger"
)

func (a *app) assessCommand() *cobra.Command {
	var in ledger.AssessInput
	var cf changeFlags
	var violated bool
	cmd := &cobra.Command{
		Use:   "assess ID --violated|--state S --observer SEAT [--note TEXT]",
		Short: "Record an observer's judgment (never changes the computed state)",
		Long: `Record an attributed judgment on an obligation: --violated, or any one-word
--state such as kept or disputed. Assessments never change the computed
state; contradicting ones are shown side by side. The observer is --as (or
--observer).

Prints ID<TAB>STATE.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case violated && in.State != "":
				return usageError("--violated and --state cannot go together: --violated is --state violated")
			case violated:
				in.State = "violated"
			case in.State == "":
				return usageError("say what you judge: --violated, or --state S (such as kept or disputed)")
			}
			meta, rev, err := a.changeValues(cmd, &cf)
			if err != nil {
				return err
			}
			in.ID, in.Meta, in.Rev = args[0], meta, rev
			return a.change(func(api ledger.API, who pinki.Identity) (ledger.Receipt, error) {
				return api.Assess(a.ctx, who, in)
			})
		},
	}
	f := cmd.Flags()
	f.BoolVar(&violated, "violated", false, "judge the obligation violated")
	f.StringVar(&in.State, "state", "", "the judgment: one word, such as violated, kept or disputed")
	f.StringVar(&in.Observer, "observer", "", "who judges (default: --as)")
	f.StringVar(&in.Note, "note", "", "a note on the judgment")
	cf.register(cmd)
	return cmd
}
