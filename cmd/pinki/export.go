package main

import (
	"bytes"

	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

func (a *app) exportCommand() *cobra.Command {
	var format, since string
	var states []string
	var f ledger.Filter
	cmd := readVerb(&cobra.Command{
		Use:   "export [--format json|jsonl|events] [--state S]... [--debtor SEAT] [--creditor SEAT] [--since T]",
		Short: "Export the ledger: pinki's export document, or the raw events",
		Long: `Export obligations (every state unless --state says otherwise), ordered by
creation time:

  --format json    pinki's {"format":"pinki-export","version":1,...} document,
                   compact, on one line (the default)
  --format jsonl   one obligation per line, no header
  --format events  the ledger's event lines as they are, for moving a ledger
                   (pinki import); takes no filters`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			api, err := a.api()
			if err != nil {
				return err
			}
			switch format {
			case "events":
				for _, name := range []string{"state", "debtor", "creditor", "since"} {
					if cmd.Flags().Changed(name) {
						return usageError("--%s does not filter --format events: the events are the whole ledger", name)
					}
				}
				return a.exportEvents(api)
			case "json", "jsonl":
			default:
				return (&pinki.Error{Code: pinki.CodeInvalid, Field: "format", Message: "--format " + quote(format) + " is not json, jsonl or events"})
			}
			if since != "" {
				t, err := pinki.ParseTime(since)
				if err != nil {
					return &pinki.Error{Code: pinki.CodeInvalid, Field: "since", Message: "--since " + quote(since) + " is not an RFC 3339 instant with a zone"}
				}
				f.Since = t.UnixNano()
			}
			for _, s := range states {
				f.States = append(f.States, fold.State(s))
			}
			f.Now = a.queryNow()
			doc, err := api.Export(a.ctx, a.identity(), f)
			if err != nil {
				return err
			}
			var out bytes.Buffer
			if format == "json" {
				line, err := compactJSON(doc)
				if err != nil {
					return err
				}
				out.Write(line)
			} else {
				for _, p := range doc.Promises {
					line, err := compactJSON(p)
					if err != nil {
						return err
					}
					out.Write(line)
				}
			}
			_, err = a.stdout.Write(out.Bytes())
			return err
		},
	})
	fl := cmd.Flags()
	fl.StringVar(&format, "format", "json", "json, jsonl or events")
	fl.StringSliceVar(&states, "state", nil, "only these states (repeatable, or comma-separated)")
	fl.StringVar(&f.By, "debtor", "", "only obligations this seat owes")
	fl.StringVar(&f.To, "creditor", "", "only obligations owed to this seat")
	fl.StringVar(&since, "since", "", "only obligations created at or after this RFC 3339 instant")
	return cmd
}

// exportEvents writes every event line of the ledger, page by page.
func (a *app) exportEvents(api ledger.API) error {
	var after int64
	for {
		recs, next, err := api.Events(a.ctx, a.identity(), after, 10000)
		if err != nil {
			return err
		}
		var out bytes.Buffer
		for _, r := range recs {
			out.Write(r.Event)
			out.WriteByte('\n')
		}
		if _, err := a.stdout.Write(out.Bytes()); err != nil {
			return pinki.Errorf(pinki.CodeUnavailable, "cannot write the export: %v", err)
		}
		if next <= after {
			return nil
		}
		after = next
	}
}
