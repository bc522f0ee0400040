package ledger

import (
	"context"
	"encoding/json"
	"sort"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
)

// ExportDoc is pinki's export document: {"format":"pinki-export","version":1,
// "summary":…,"promises":[…]}. Summary.States counts every state (keys in
// alphabetical order), over the selected obligations.
type ExportDoc struct {
	Format   string        `json:"format"`
	Version  int           `json:"version"`
	Summary  ExportSummary `json:"summary"`
	Promises []ExportItem  `json:"promises"`
}

// ExportSummary counts the selected obligations by state.
type ExportSummary struct {
	Total  int            `json:"total"`
	States map[string]int `json:"states"`
}

// ExportItem is one obligation as pinki exports it: the current record (until
// is the horizon), the declared until, the amendments and assessments ordered
// by time, the state and resolution, and when it was created; then what this
// ledger adds (kind, lateness, acceptances, progress, bindings).
type ExportItem struct {
	ID            string             `json:"id"`
	Promise       string             `json:"promise"`
	By            string             `json:"by"`
	To            string             `json:"to"`
	On            string             `json:"on,omitempty"`
	Until         string             `json:"until"`
	Task          string             `json:"task,omitempty"`
	Meta          json.RawMessage    `json:"meta,omitempty"`
	OriginalUntil string             `json:"original_until"`
	Amendments    []ExportAmend      `json:"amendments"`
	State         fold.State         `json:"state"`
	Resolution    *ExportResolution  `json:"resolution"`
	Assessments   []ExportAssessment `json:"assessments"`
	CreatedAt     string             `json:"created_at"`
	Kind          string             `json:"kind"`
	Late          bool               `json:"late,omitempty"`
	Rev           int                `json:"rev"`
	Digest        string             `json:"digest"`
	Lapse         pinki.Lapse        `json:"lapse,omitempty"`
	Proposer      string             `json:"proposer,omitempty"`
	SchemaID      string             `json:"schema_id,omitempty"`
	Schema        json.RawMessage    `json:"schema,omitempty"`
	Acceptances   []AcceptView       `json:"acceptances,omitempty"`
	Progress      []ProgressView     `json:"progress,omitempty"`
	Bindings      []BindView         `json:"bindings,omitempty"`
}

// ExportAmend is one amend, stamped with `at`.
type ExportAmend struct {
	Until  string          `json:"until"`
	By     string          `json:"by"`
	Reason string          `json:"reason,omitempty"`
	At     string          `json:"at"`
	Meta   json.RawMessage `json:"meta,omitempty"`
}

// ExportResolution is the resolution, stamped with `at`.
type ExportResolution struct {
	As       pinki.Outcome   `json:"as"`
	By       string          `json:"by"`
	Evidence []string        `json:"evidence,omitempty"`
	Reason   string          `json:"reason,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
	SchemaID string          `json:"schema_id,omitempty"`
	Digest   string          `json:"digest,omitempty"`
	At       string          `json:"at"`
	Meta     json.RawMessage `json:"meta,omitempty"`
}

// ExportAssessment is one assessment, stamped with `at`.
type ExportAssessment struct {
	State    string          `json:"state"`
	Observer string          `json:"observer"`
	Note     string          `json:"note,omitempty"`
	At       string          `json:"at"`
	Meta     json.RawMessage `json:"meta,omitempty"`
}

// Export projects the obligations who may read that match f (its States, By,
// To and Since; Scope is ignored: an export is of every state unless States
// says otherwise), ordered by creation time, then id.
//
// Errors: CodeInvalid for an unknown state name.
func (s *Service) Export(ctx context.Context, who pinki.Identity, f Filter) (ExportDoc, error) {
	f.Scope = ScopeAll
	f.After, f.Limit = 0, 0
	doc := ExportDoc{Format: "pinki-export", Version: 1,
		Summary: ExportSummary{States: map[string]int{}}, Promises: []ExportItem{}}
	for _, st := range fold.States {
		doc.Summary.States[string(st)] = 0
	}
	for _, st := range f.States {
		if !st.Valid() {
			return doc, pinki.Invalid("state", "unknown state %q", st)
		}
	}
	type pair struct {
		o  *fold.Obligation
		st fold.Status
	}
	err := s.withLines(ctx, func(l *fold.Ledger, ls *lines) error {
		var selected []pair
		ev := l.At(s.at(f.Now))
		for _, o := range f.candidates(l) {
			if !canRead(who, o) || !f.matchRecord(o) {
				continue
			}
			if st := ev.Status(o); f.matchState(st) {
				selected = append(selected, pair{o, st})
			}
		}
		sort.SliceStable(selected, func(i, j int) bool {
			a, b := &selected[i].o.Record, &selected[j].o.Record
			if a.At != b.At {
				return a.At < b.At
			}
			return a.ID < b.ID
		})
		histories := make([][]pinki.Event, len(selected))
		complete := true
		for i, p := range selected {
			var ok bool
			histories[i], ok = ls.history(p.o)
			complete = complete && ok
		}
		if !complete {
			return errMissing
		}
		for i, p := range selected {
			doc.Promises = append(doc.Promises, exportItem(p.o, p.st, histories[i]))
			doc.Summary.States[string(p.st.State)]++
		}
		return nil
	})
	doc.Summary.Total = len(doc.Promises)
	return doc, err
}

func exportItem(o *fold.Obligation, st fold.Status, history []pinki.Event) ExportItem {
	d := detail(nil, o, st, history)
	r := &o.Record
	x := ExportItem{ID: r.ID, Promise: r.Text, By: r.By, To: r.To, On: r.On, Until: d.Until, Task: r.Task(),
		Meta: raw(r.Meta()), OriginalUntil: r.Until, Amendments: []ExportAmend{}, State: st.State,
		Assessments: []ExportAssessment{}, CreatedAt: r.TS, Kind: o.Kind.String(), Late: st.Late, Rev: o.Rev,
		Digest: d.Digest, Lapse: r.Lapse(), Proposer: r.Proposer(), SchemaID: r.SchemaID(), Schema: raw(r.Schema()),
		Acceptances: d.Acceptances, Progress: d.Progress, Bindings: d.Bindings}
	// pinki orders amendments and assessments by time, stably.
	var amends, assessments []pinki.Event
	for _, e := range history {
		switch e.Type {
		case pinki.TypeAmend:
			amends = append(amends, e)
		case pinki.TypeAssess:
			assessments = append(assessments, e)
		}
	}
	sort.SliceStable(amends, func(i, j int) bool { return amends[i].At < amends[j].At })
	for _, a := range amends {
		x.Amendments = append(x.Amendments, ExportAmend{Until: a.Until, By: a.By, Reason: a.Reason, At: a.TS, Meta: raw(a.Meta)})
	}
	if res := d.Resolution; res != nil {
		x.Resolution = &ExportResolution{As: res.As, By: res.By, Evidence: res.Evidence, Reason: res.Reason,
			Response: res.Response, SchemaID: res.SchemaID, Digest: res.Digest, At: res.TS, Meta: res.Meta}
	}
	sort.SliceStable(assessments, func(i, j int) bool { return assessments[i].At < assessments[j].At })
	for _, a := range assessments {
		x.Assessments = append(x.Assessments, ExportAssessment{State: a.State, Observer: a.Observer, Note: a.Note, At: a.TS, Meta: raw(a.Meta)})
	}
	return x
}
