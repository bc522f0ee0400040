package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki"
)

func (a *app) initCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "init",
		Short: "Create an empty ledger at ./.pinki/ledger.jsonl (or --ledger)",
		Long: `Create an empty ledger here (./.pinki/ledger.jsonl), or at --ledger or
$PINKI_LEDGER, and print its path ({"path": …} with --json). An existing
ledger is left as it is.

With --store postgres://… it creates pinki's tables in the database (the
schema of the URL's search_path) when they are not there yet, and prints the
URL without its password ({"store": …} with --json). Against a server there
is nothing to create.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch a.at {
			case onServer:
				return (&pinki.Error{Code: pinki.CodeInvalid, Field: "server",
					Message: "init creates a ledger here, and a server's ledger already exists: there is nothing to create"}).
					WithHint("pinki init --store postgres://… prepares a database for pinki serve --store")
			case inStore:
				store, err := a.openPostgres(1)
				if err != nil {
					return err
				}
				store.Close()
				return a.printCreated("store", a.where())
			}
			path := a.ledgerPath(false)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return pinki.Errorf(pinki.CodeUnavailable, "cannot create %s: %v", filepath.Dir(path), err)
			}
			f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE, 0o644)
			if err != nil {
				return pinki.Errorf(pinki.CodeUnavailable, "cannot create ledger %s: %v", path, err)
			}
			if err := f.Close(); err != nil {
				return pinki.Errorf(pinki.CodeUnavailable, "cannot create ledger %s: %v", path, err)
			}
			return a.printCreated("path", path)
		},
	}
}

// printCreated prints where the ledger is: the path (or the URL) on a line,
// or with --json {"path": …} for a file, {"store": …} for PostgreSQL.
func (a *app) printCreated(key, where string) error {
	if a.jsonOut {
		return a.printJSON(map[string]string{key: where})
	}
	_, err := fmt.Fprintln(a.stdout, where)
	return err
}
