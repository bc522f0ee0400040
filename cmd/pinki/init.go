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
$PINKI_LEDGER, and print its path. An existing ledger is left as it is.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
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
			fmt.Fprintln(a.stdout, path)
			return nil
		},
	}
}
