package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

func (a *app) showCommand() *cobra.Command {
	return readVerb(&cobra.Command{
		Use:   "show ID",
		Short: "Show one obligation with its whole history",
		Long: `Show one obligation: the record, its state and revision, its digest, every
horizon (the declaration and each amend), acceptances, progress, the
resolution, assessments side by side, and lines the fold ignored.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			d, err := a.get(args[0])
			if err != nil {
				return err
			}
			if a.jsonOut {
				return a.printJSON(d)
			}
			_, err = a.stdout.Write([]byte(renderDetail(d, a.now.UnixNano(), a.colour())))
			return err
		},
	})
}

// get reads one obligation with its history.
func (a *app) get(id string) (ledger.Detail, error) {
	api, err := a.api()
	if err != nil {
		return ledger.Detail{}, err
	}
	return api.Get(a.ctx, a.identity(), ledger.Query{ID: id, Now: a.queryNow()})
}

// renderDetail lays an obligation out the way pinki's show does: labels
// padded so that values start at column 16, nested lines indented beneath.
func renderDetail(d ledger.Detail, now int64, colour bool) string {
	var b strings.Builder
	label := func(name, value string) {
		if value == "" {
			fmt.Fprintf(&b, "  %s\n", name) // a heading for the lines beneath
			return
		}
		fmt.Fprintf(&b, "  %-13s%s\n", name, value)
	}
	sub := func(name, value string) {
		if value != "" {
			fmt.Fprintf(&b, "    %-11s%s\n", name, value)
		}
	}
	// history writes the entries of one history as a table indented under
	// its heading, columns aligned, each entry's meta on the line beneath.
	history := func(entries []entry) {
		rows := make([][]cell, len(entries))
		for i, e := range entries {
			for _, f := range e.fields {
				rows[i] = append(rows[i], cell{text: f})
			}
		}
		for i, l := range tableLines(rows, false) {
			b.WriteString("    " + strings.TrimRight(l, " ") + "\n")
			if meta := entries[i].meta; len(meta) > 0 {
				fmt.Fprintf(&b, "      %-9s%s\n", "meta", meta)
			}
		}
	}
	opt := func(name, value string) {
		if value != "" {
			label(name, value)
		}
	}
	fmt.Fprintf(&b, "%s  %s\n", paint(colour, sgrBold, d.ID), paint(colour, stateColour(d.State), string(d.State)))
	if d.Kind != "" && d.Kind != "promise" {
		label("kind", d.Kind)
	}
	label("promise", d.Promise)
	label("by", d.By)
	label("to", d.To)
	opt("on", d.On)
	until := d.Until
	if d.State.Open() {
		until += " (" + due(d.State, d.Late, untilNanos(d.Item), now) + ")"
	}
	label("until", until)
	opt("task", d.Task)
	if len(d.Meta) > 0 {
		label("meta", string(d.Meta))
	}
	opt("lapse", string(d.Lapse))
	opt("proposer", d.Proposer)
	label("rev", fmt.Sprint(d.Rev))
	if d.State.Owed() {
		opt("phase", string(d.Phase))
	}
	label("digest", d.Digest)
	opt("schema_id", d.SchemaID)
	if len(d.Schema) > 0 {
		label("schema", string(d.Schema))
	}
	if len(d.Amendments) > 0 {
		label("horizons", "")
		rows := []entry{{fields: []string{d.Created, d.OriginalUntil, "declared by " + d.By}}}
		for _, am := range d.Amendments {
			rows = append(rows, entry{am.Meta, []string{am.TS, am.Until, "amended by " + am.By + prefixed(": ", am.Reason)}})
		}
		history(rows)
	}
	if d.Kind == "agreement" {
		label("acceptances", none(len(d.Acceptances)))
		var rows []entry
		for _, ac := range d.Acceptances {
			standing := "void: the terms changed since"
			if ac.Current {
				standing = "current"
			}
			rows = append(rows, entry{ac.Meta, []string{ac.TS, ac.By, fmt.Sprintf("rev %d", ac.Rev), standing}})
		}
		history(rows)
	}
	if len(d.Progress) > 0 {
		label("progress", "")
		var rows []entry
		for _, p := range d.Progress {
			rows = append(rows, entry{p.Meta, []string{p.TS, string(p.Phase), p.By, p.Note}})
		}
		history(rows)
	}
	if len(d.Bindings) > 0 {
		label("bindings", "")
		var rows []entry
		for _, bd := range d.Bindings {
			rows = append(rows, entry{bd.Meta, []string{bd.TS, bd.By, string(bd.Target)}})
		}
		history(rows)
	}
	if r := d.Resolution; r != nil {
		res := fmt.Sprintf("%s at %s by %s", r.As, r.TS, r.By)
		if d.Late && r.As == pinki.Satisfied {
			res += " (late)"
		}
		label("resolution", res)
		for _, e := range r.Evidence {
			sub("evidence", e)
		}
		sub("reason", r.Reason)
		sub("response", string(r.Response))
		sub("schema_id", r.SchemaID)
		sub("digest", r.Digest)
		sub("meta", string(r.Meta))
	} else if d.State == fold.Expired {
		label("resolution", "(unresolved: expired)")
	} else {
		label("resolution", "(unresolved)")
	}
	label("assessments", none(len(d.Assessments)))
	var assessments []entry
	for _, as := range d.Assessments {
		assessments = append(assessments, entry{as.Meta, []string{as.TS, as.State, as.Observer, as.Note}})
	}
	history(assessments)
	if len(d.Ignored) > 0 {
		label("ignored", "")
		for _, ig := range d.Ignored {
			fmt.Fprintf(&b, "    line %d: %s at %s: %s\n", ig.Seq, ig.Type, ig.TS, ig.Why)
		}
	}
	return b.String()
}

// entry is one line of a history in show: its fields, and its meta.
type entry struct {
	meta   []byte
	fields []string
}

// none is "(none)" for an empty history, else "" (a heading).
func none(n int) string {
	if n == 0 {
		return "(none)"
	}
	return ""
}

// prefixed is p+s, or "" when s is empty.
func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}
