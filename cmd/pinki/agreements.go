package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki/ledger"
)

func (a *app) agreementsCommand() *cobra.Command {
	var seat string
	cmd := readVerb(&cobra.Command{
		Use:   "agreements --seat SEAT",
		Short: "List a seat's agreements: current, pending, overdue, ended",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			api, err := a.api()
			if err != nil {
				return err
			}
			set, err := api.Agreements(a.ctx, a.identity(), a.seatQuery(seat))
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(set)
			}
			groups := []struct {
				name  string
				items []ledger.Item
			}{{"current", set.Current}, {"pending", set.Pending}, {"overdue", set.Overdue}, {"ended", set.Ended}}
			// One table for every group, so that the columns line up
			// across them; each group is headed by its name and count.
			var rows [][]cell
			var heads []string
			var sizes []int
			for _, g := range groups {
				if len(g.items) == 0 {
					continue
				}
				heads = append(heads, fmt.Sprintf("%s (%d)", g.name, len(g.items)))
				sizes = append(sizes, len(g.items))
				rows = append(rows, itemRows(g.items, a.now.UnixNano())...)
			}
			if len(rows) == 0 {
				a.note("%s is a party to no agreements", set.Seat)
				return nil
			}
			lines := strings.SplitAfter(table(rows, a.colour()), "\n")
			var b strings.Builder
			for i, head := range heads {
				b.WriteString(head + "\n")
				for _, l := range lines[:sizes[i]] {
					b.WriteString("  " + l)
				}
				lines = lines[sizes[i]:]
			}
			_, err = a.stdout.Write([]byte(b.String()))
			return err
		},
	})
	cmd.Flags().StringVar(&seat, "seat", "", "the seat (default: --as)")
	return cmd
}
