package main

import (
	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

func (a *app) lsCommand() *cobra.Command {
	var open, overdue, all bool
	var states []string
	var f ledger.Filter
	cmd := readVerb(&cobra.Command{
		Use:   "ls [--open|--overdue|--all] [--state S]... [--by SEAT] [--to SEAT]",
		Short: "List obligations (open ones by default)",
		Long: `List obligations in ledger order: id, state, the deadline relative to now,
the deadline, debtor -> creditor, and the text. --open (the default) lists
proposed, conditional, detached and overdue ones; --overdue only overdue ones;
--all every state; --state S (repeatable) exactly those states.

An empty listing prints nothing on stdout (a note on stderr) and exits 0;
with --json it prints [].`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if n := btoi(open) + btoi(overdue) + btoi(all); n > 1 {
				return usageError("--open, --overdue and --all cannot go together: pick one")
			}
			switch {
			case overdue:
				f.Scope = ledger.ScopeOverdue
			case all:
				f.Scope = ledger.ScopeAll
			default:
				f.Scope = ledger.ScopeOpen
			}
			for _, s := range states {
				f.States = append(f.States, fold.State(s))
			}
			f.Now = a.queryNow()
			api, err := a.api()
			if err != nil {
				return err
			}
			page, err := api.List(a.ctx, a.identity(), f)
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(page.Items)
			}
			if len(page.Items) == 0 {
				a.emptyNote(page.Total, "`pinki ls --all` shows every state")
				return nil
			}
			_, err = a.stdout.Write([]byte(table(itemRows(page.Items, a.now.UnixNano()), a.colour())))
			return err
		},
	})
	fl := cmd.Flags()
	fl.BoolVar(&open, "open", false, "open obligations: proposed, conditional, detached, overdue (the default)")
	fl.BoolVar(&overdue, "overdue", false, "overdue obligations only")
	fl.BoolVar(&all, "all", false, "every state")
	fl.StringSliceVar(&states, "state", nil, "only these states (repeatable, or comma-separated)")
	fl.StringVar(&f.By, "by", "", "only obligations this seat owes")
	fl.StringVar(&f.To, "to", "", "only obligations owed to this seat")
	return cmd
}

// emptyNote says on stderr why a listing is empty.
func (a *app) emptyNote(total int, hint string) {
	switch {
	case total == 0:
		a.note("the ledger at %s holds no promises", a.where())
	case total < 0: // answered from a seat's cached view, which does not count the rest
		a.note("no promises match: %s", hint)
	default:
		a.note("no promises match; the ledger holds %d: %s", total, hint)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
