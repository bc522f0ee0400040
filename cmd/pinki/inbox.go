package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki/ledger"
)

// seatQuery is the query of the seat verbs: --seat, else --as.
func (a *app) seatQuery(seat string) ledger.Query {
	return ledger.Query{Seat: seat, Now: a.queryNow()}
}

func (a *app) inboxCommand() *cobra.Command {
	var seat string
	cmd := readVerb(&cobra.Command{
		Use:   "inbox --seat SEAT",
		Short: "Count what a seat owes and is owed",
		Long: `Count a seat's obligations: action_required (it owes, owed now),
awaiting_peer (owed to it, owed now), awaiting_human (phase pending_human,
either side), overdue (either side), failed (its requests that failed) and
proposals (agreements awaiting its acceptance).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			api, err := a.api()
			if err != nil {
				return err
			}
			in, err := api.Inbox(a.ctx, a.identity(), a.seatQuery(seat))
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(in)
			}
			var b strings.Builder
			fmt.Fprintf(&b, "inbox for %s\n", in.Seat)
			for _, c := range []struct {
				name string
				n    int
			}{
				{"action_required", in.ActionRequired}, {"awaiting_peer", in.AwaitingPeer},
				{"awaiting_human", in.AwaitingHuman}, {"overdue", in.Overdue},
				{"failed", in.Failed}, {"proposals", in.Proposals},
			} {
				fmt.Fprintf(&b, "  %-17s%d\n", c.name, c.n)
			}
			_, err = a.stdout.Write([]byte(b.String()))
			return err
		},
	})
	cmd.Flags().StringVar(&seat, "seat", "", "the seat (default: --as)")
	return cmd
}
