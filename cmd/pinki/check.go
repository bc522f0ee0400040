package main

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/ledger"
)

func (a *app) checkCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "Validate the ledger: unknown lines, dangling events, broken rules",
		Long: `Read the whole ledger afresh and report, one per line as "line N: ...":
lines this version does not understand, events the fold ignores (naming an
unknown id, a second resolve, a stale accept...), and events the fold applies
that a write would have refused (a hand-edited ledger). Exits 0 when there is
nothing to report, 2 otherwise.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			api, err := a.api()
			if err != nil {
				return err
			}
			rep, err := api.Check(a.ctx, a.identity())
			if err != nil {
				return err
			}
			if a.jsonOut {
				if err := a.printJSON(rep); err != nil {
					return err
				}
			} else {
				a.stdout.Write([]byte(renderCheck(rep)))
			}
			if rep.OK {
				return nil
			}
			n := len(rep.Unknown) + len(rep.Ignored) + len(rep.Violations)
			return &pinki.Error{Code: pinki.CodeInvalid, Message: fmt.Sprintf("%s: %d problem(s) in %d lines", a.where(), n, rep.Lines)}
		},
	}
}

// renderCheck lists a check report's issues in line order, then a summary.
func renderCheck(rep ledger.CheckReport) string {
	var b bytes.Buffer
	type issue struct {
		ledger.Issue
		kind string
	}
	var all []issue
	for _, is := range rep.Unknown {
		all = append(all, issue{is, "not understood"})
	}
	for _, is := range rep.Ignored {
		all = append(all, issue{is, "ignored"})
	}
	for _, is := range rep.Violations {
		all = append(all, issue{is, "breaks a rule"})
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].Seq < all[j].Seq })
	for _, is := range all {
		fmt.Fprintf(&b, "line %d: ", is.Seq)
		if is.Type != "" {
			fmt.Fprintf(&b, "%s %s: ", is.Type, is.ID)
		}
		fmt.Fprintf(&b, "%s: %s\n", is.kind, is.Problem)
	}
	if rep.OK {
		fmt.Fprintf(&b, "ok: %d lines, %d obligations, nothing to report\n", rep.Lines, rep.Obligations)
	}
	return b.String()
}
