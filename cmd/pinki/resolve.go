package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/ledger"
)

func (a *app) resolveCommand() *cobra.Command {
	var in ledger.ResolveInput
	var cf changeFlags
	var response string
	outcomes := []struct {
		as   pinki.Outcome
		set  bool
		help string
	}{
		{pinki.Satisfied, false, "delivered (needs --evidence, or --response for a request)"},
		{pinki.Failed, false, "the debtor tried and could not (needs --reason)"},
		{pinki.Cancelled, false, "the debtor withdraws (needs --reason)"},
		{pinki.Released, false, "the creditor lets the debtor off"},
	}
	cmd := &cobra.Command{
		Use:   "resolve ID --satisfied --evidence REF... | --failed --reason R | --cancelled --reason R | --released [--reason R]",
		Short: "End an obligation: satisfied, failed, cancelled or released",
		Long: `End an obligation. The first resolve wins: an identical retry succeeds and
appends nothing; a different second one is a conflict (exit 4).

  --satisfied --evidence REF...  the debtor delivered; each REF is a URL, path,
                                 commit or artifact id. A request is answered
                                 with --response JSON|@FILE --digest D (and
                                 --schema-id ID when it has a schema)
  --failed --reason R            the debtor tried and could not
  --cancelled --reason R         the debtor withdraws (or declines a proposal)
  --released [--reason R]        the creditor lets the debtor off (or declines)

Prints ID<TAB>STATE.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var chosen []string
			for _, o := range outcomes {
				if o.set {
					in.As = o.as
					chosen = append(chosen, "--"+string(o.as))
				}
			}
			switch {
			case len(chosen) == 0:
				return usageError("say how it ends: one of --satisfied, --failed, --cancelled or --released")
			case len(chosen) > 1:
				return usageError("a resolve has one outcome: %s cannot go together", strings.Join(chosen, " and "))
			}
			var err error
			if in.Response, err = a.jsonFlag("--response", response); err != nil {
				return err
			}
			meta, rev, err := a.changeValues(cmd, &cf)
			if err != nil {
				return err
			}
			in.ID, in.Meta, in.Rev = args[0], meta, rev
			return a.change(func(api ledger.API, who pinki.Identity) (ledger.Receipt, error) {
				return api.Resolve(a.ctx, who, in)
			})
		},
	}
	f := cmd.Flags()
	for i := range outcomes {
		f.BoolVar(&outcomes[i].set, string(outcomes[i].as), false, outcomes[i].help)
	}
	f.StringArrayVar(&in.Evidence, "evidence", nil, "a reference to what was delivered (repeatable)")
	f.StringVar(&in.Reason, "reason", "", "why (required with --failed and --cancelled)")
	f.StringVar(&response, "response", "", "a request's answer: JSON, or @FILE (@- for stdin)")
	f.StringVar(&in.Digest, "digest", "", "the request's digest, repeated (pinki show ID prints it)")
	f.StringVar(&in.SchemaID, "schema-id", "", "the request's schema id, repeated")
	f.StringVar(&in.By, "by", "", "who resolves (default: --as, else the debtor; the creditor for --released)")
	cf.register(cmd)
	return cmd
}
