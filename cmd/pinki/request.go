package main

import (
	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki/fold"
)

const requestUsage = "pinki request TEXT --by RESPONDER --to REQUESTER --until ISO"

func (a *app) requestCommand() *cobra.Command {
	c := &creation{kind: fold.KindRequest, verb: "request", usage: requestUsage}
	var schemaFile, schemaID string
	cmd := &cobra.Command{
		Use:   "request TEXT --by RESPONDER --to REQUESTER --until DEADLINE",
		Short: "Ask a named seat for a response (a response obligation)",
		Long: `Ask a named seat (--by, the responder, who owes the answer) for a response
owed to the requester (--to; with --as, that seat) by --until. With --schema
FILE (a self-contained JSON Schema 2020-12, at most 64 KiB) and --schema-id,
the response must satisfy the schema and repeat the schema id. --lapse expire
makes the deadline a reply-by: past it the request ends expired.

Prints ID<TAB>STATE<TAB>DIGEST: the answer must repeat the digest.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			in, err := a.input(c, args[0])
			if err != nil {
				return err
			}
			if schemaFile != "" {
				schema, err := a.readFile("--schema", schemaFile)
				if err != nil {
					return err
				}
				in.Schema = rawJSON(schema)
				if in.Schema == nil {
					return usageError("--schema %s is empty", schemaFile)
				}
			}
			in.SchemaID = schemaID
			return a.create(in, true)
		},
	}
	c.register(cmd, "the responder: the seat that owes the answer", "the requester: the seat owed the answer (default with --as: that seat)")
	cmd.Flags().StringVar(&schemaFile, "schema", "", "a file holding the JSON Schema 2020-12 the response must satisfy (- for stdin)")
	cmd.Flags().StringVar(&schemaID, "schema-id", "", "the label a typed response must repeat, such as inventory.lookup.result.v1")
	return cmd
}
