package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/tokens"
)

// tokenEntry is a token as the token verbs print it: never the secret, nor
// its hash.
type tokenEntry struct {
	ID      string     `json:"id"`
	Seat    string     `json:"seat"`
	Role    pinki.Role `json:"role"`
	Created string     `json:"created"`
	Revoked string     `json:"revoked,omitempty"`
}

func entryOf(t tokens.Token) tokenEntry {
	return tokenEntry{ID: t.ID, Seat: t.Seat, Role: t.Role, Created: t.Created, Revoked: t.Revoked}
}

func (a *app) tokenCommand() *cobra.Command {
	cmd := storeSide(&cobra.Command{
		Use:   "token",
		Short: "The bearer tokens pinki serve authenticates with: add, ls, revoke",
		Long: `Manage the bearer tokens of pinki serve. A token is bound to one seat and a
role: seat (acts for its seat, reads what the seat is a party to), observer
(also reads everything), verifier (also writes verified deliveries), admin
(reads everything, imports). Only a hash of each token is stored: the file
beside the file ledger (.pinki/tokens.json), or with --store postgres://…
the database's tokens table, which every server on it shares. A running
server sees additions and revocations at its next request.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usageError("say which: pinki token add --seat SEAT [--role ROLE], pinki token ls, or pinki token revoke ID")
		},
	})
	var seat, role string
	add := &cobra.Command{
		Use:   "add --seat SEAT [--role seat|observer|verifier|admin]",
		Short: "Make a token bound to a seat; print it once",
		Long: `Make a token bound to SEAT with ROLE (default seat) and print it on stdout,
once: it is not stored, only its hash. Give it to the seat's agent as
$PINKI_TOKEN (with pinki --server URL), or as Authorization: Bearer TOKEN.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			r, err := tokens.ParseRole(role)
			if err != nil {
				return err
			}
			store, where, done, err := a.tokenStore()
			if err != nil {
				return err
			}
			defer done()
			secret, t, err := store.Add(a.ctx, seat, r)
			if err != nil {
				return err
			}
			if a.jsonOut {
				err = a.printJSON(struct {
					Token string `json:"token"`
					tokenEntry
				}{secret, entryOf(t)})
			} else {
				_, err = fmt.Fprintln(a.stdout, secret)
			}
			a.note("added token %s for %s (role %s) to %s: it is shown only this once", t.ID, t.Seat, t.Role, where)
			return err
		},
	}
	add.Flags().StringVar(&seat, "seat", "", "the seat the token acts as")
	add.Flags().StringVar(&role, "role", "seat", "seat, observer, verifier or admin")
	ls := &cobra.Command{
		Use:   "ls",
		Short: "List the tokens (never their secrets)",
		Long:  "List every token, revoked ones included, in creation order: ID  SEAT  ROLE  CREATED  STATUS.",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			store, where, done, err := a.tokenStore()
			if err != nil {
				return err
			}
			defer done()
			list, err := store.List(a.ctx)
			if err != nil {
				return err
			}
			entries := []tokenEntry{}
			var rows [][]cell
			for _, t := range list {
				entries = append(entries, entryOf(t))
				status := "active"
				if t.Revoked != "" {
					status = "revoked " + t.Revoked
				}
				rows = append(rows, []cell{{text: t.ID}, {text: t.Seat}, {text: string(t.Role)}, {text: t.Created}, {text: status}})
			}
			if a.jsonOut {
				return a.printJSON(entries)
			}
			if len(rows) == 0 {
				a.note("no tokens in %s: `pinki token add --seat SEAT` makes one", where)
				return nil
			}
			_, err = a.stdout.Write([]byte(table(rows, false)))
			return err
		},
	}
	revoke := &cobra.Command{
		Use:   "revoke ID|TOKEN",
		Short: "Revoke a token: refused from the server's next request on",
		Long: `Revoke the token with this id (tok_…, as pinki token ls lists it), or the
token itself. A server refuses it from its next request on. Revoking a
revoked token succeeds and keeps the first time. Prints ID<TAB>revoked.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, where, done, err := a.tokenStore()
			if err != nil {
				return err
			}
			defer done()
			t, err := store.Revoke(a.ctx, args[0])
			if err != nil {
				return err
			}
			if a.jsonOut {
				err = a.printJSON(entryOf(t))
			} else {
				_, err = fmt.Fprintf(a.stdout, "%s\trevoked\n", t.ID)
			}
			a.note("token %s for %s is revoked (at %s) in %s", t.ID, t.Seat, t.Revoked, where)
			return err
		},
	}
	cmd.AddCommand(add, ls, revoke)
	return cmd
}
