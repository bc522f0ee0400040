package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki/a2a"
)

func (a *app) seatCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "seat",
		Short: "The seat map: where each seat's A2A agent publishes its card",
		Long: `The seat map (.pinki/seats.json beside the ledger) says where a seat's A2A
agent lives, for pinki a2a watch and pinki verify. A seat that is an
https:// URL is its own agent's base and needs no entry; an entry overrides
that rule.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageError("say which: pinki seat set SEAT --card URL, pinki seat rm SEAT, or pinki seat ls")
		},
	}
	var card string
	set := &cobra.Command{
		Use:   "set SEAT --card URL",
		Short: "Record where a seat's agent publishes its card",
		Long: `Record the card of SEAT's agent. URL is the card itself (a path ending in
.json) or the agent's base URL (the card is then at
/.well-known/agent-card.json under it); http:// is taken for agents on a
private network. A URL with credentials is refused: the map holds no
secrets.

Prints SEAT<TAB>CARD.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !cmd.Flags().Changed("card") {
				return usageError("--card is required: pinki seat set SEAT --card URL")
			}
			d, err := a.directory()
			if err != nil {
				return err
			}
			if err := d.Set(args[0], card); err != nil {
				return err
			}
			seat := strings.TrimSpace(args[0])
			got, _ := d.Lookup(seat)
			if a.jsonOut {
				return a.printJSON(seatEntry{Seat: seat, Card: got})
			}
			_, err = fmt.Fprintf(a.stdout, "%s\t%s\n", seat, got)
			return err
		},
	}
	set.Flags().StringVar(&card, "card", "", "the agent's card URL, or its base URL")
	rm := &cobra.Command{
		Use:   "rm SEAT",
		Short: "Forget a seat's entry in the seat map",
		Long:  "Forget SEAT's entry. Removing a seat that has none is a success.",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := a.directory()
			if err != nil {
				return err
			}
			return d.Remove(args[0])
		},
	}
	ls := &cobra.Command{
		Use:   "ls",
		Short: "List the seat map",
		Long:  "List the seat map's entries, by seat: SEAT  CARD.",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := a.directory()
			if err != nil {
				return err
			}
			entries := []seatEntry{}
			var rows [][]cell
			for _, e := range d.List() {
				entries = append(entries, seatEntry{Seat: e.Seat, Card: e.Card})
				rows = append(rows, []cell{{text: e.Seat}, {text: e.Card}})
			}
			if a.jsonOut {
				return a.printJSON(entries)
			}
			if len(rows) == 0 {
				a.note("the seat map %s holds no seats: https:// seats are their own agents' bases; `pinki seat set SEAT --card URL` adds one", d.Path())
				return nil
			}
			_, err = a.stdout.Write([]byte(table(rows, false)))
			return err
		},
	}
	cmd.AddCommand(set, rm, ls)
	return cmd
}

// seatEntry is one entry of the seat map, as printed.
type seatEntry struct {
	Seat string `json:"seat"`
	Card string `json:"card"`
}

// directory opens the seat map beside the invocation's file ledger; for a
// ledger in PostgreSQL or on a server, the local one (.pinki/seats.json
// where the file ledger would be): the seat map is the verifier host's.
//
// Errors: those of a2a.OpenDirectory.
func (a *app) directory() (*a2a.Directory, error) {
	return a2a.OpenDirectory(a2a.DirectoryPath(a.localLedger()))
}
