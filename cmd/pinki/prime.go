package main

import (
	"github.com/spf13/cobra"
)

func (a *app) primeCommand() *cobra.Command {
	var seat string
	cmd := readVerb(&cobra.Command{
		Use:   "prime --seat SEAT",
		Short: "Print a seat's session-start briefing (under 2 KB)",
		Long: `Print a compact briefing for an agent's session start: what the seat owes
(overdue first, then by deadline), requests awaiting its answer, proposals
awaiting its acceptance, and what it is owed. It stays under 2 KB and says
how many items it left out.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			api, err := a.api()
			if err != nil {
				return err
			}
			b, err := api.Prime(a.ctx, a.identity(), a.seatQuery(seat))
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(b)
			}
			_, err = a.stdout.Write([]byte(b.Text))
			return err
		},
	})
	cmd.Flags().StringVar(&seat, "seat", "", "the seat (default: --as)")
	return cmd
}
