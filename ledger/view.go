package ledger

import (
	"encoding/json"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
)

// Receipt is what a write returns: the obligation it concerned and its
// revision and state afterwards. Idempotent is set when the write repeated one
// already applied and nothing was appended.
type Receipt struct {
	ID string `json:"id"`
	// Rev and State are the obligation's afterwards; both are left out
	// (zero) for a writer that may not read it (see Assess).
	Rev        int        `json:"rev,omitempty"`
	State      fold.State `json:"state,omitempty"`
	Late       bool       `json:"late,omitempty"`
	Digest     string     `json:"digest,omitempty"`
	Idempotent bool       `json:"idempotent,omitempty"`
	Seq        int64      `json:"seq,omitempty"`
	Warnings   []string   `json:"warnings,omitempty"`
	// hidden is set when the writer may not read the obligation (an
	// assessment by a third seat): the receipt then tells nothing of it.
	hidden bool
}

// Item is one obligation as listed: the record (with `until` the current
// horizon, as pinki 0.2 shows it) and its computed state.
type Item struct {
	ID       string          `json:"id"`
	Promise  string          `json:"promise"`
	By       string          `json:"by"`
	To       string          `json:"to"`
	On       string          `json:"on,omitempty"`
	Until    string          `json:"until"`
	Task     string          `json:"task,omitempty"`
	Meta     json.RawMessage `json:"meta,omitempty"`
	State    fold.State      `json:"state"`
	Kind     string          `json:"kind"`
	Late     bool            `json:"late,omitempty"`
	Phase    pinki.Phase     `json:"phase,omitempty"`
	Rev      int             `json:"rev"`
	Lapse    pinki.Lapse     `json:"lapse,omitempty"`
	Proposer string          `json:"proposer,omitempty"`
	SchemaID string          `json:"schema_id,omitempty"`
	Accepted []string        `json:"accepted,omitempty"`
	Bound    bool            `json:"bound,omitempty"` // bound to a verification target
	Created  string          `json:"created_at"`
	Seq      int64           `json:"seq"`

	// UntilAt is the horizon as Unix nanoseconds, for surfaces that compute
	// relative times.
	UntilAt int64 `json:"-"`
}

// Detail is one obligation with its whole history (`show`).
type Detail struct {
	Item
	OriginalUntil string           `json:"original_until"`
	Digest        string           `json:"digest"`
	Schema        json.RawMessage  `json:"schema,omitempty"`
	Resolution    *ResolutionView  `json:"resolution"`
	Assessments   []AssessmentView `json:"assessments"`
	Amendments    []AmendView      `json:"amendments"`
	Acceptances   []AcceptView     `json:"acceptances,omitempty"`
	Progress      []ProgressView   `json:"progress,omitempty"`
	Bindings      []BindView       `json:"bindings,omitempty"`
	Ignored       []IgnoredView    `json:"ignored,omitempty"`
}

// ResolutionView is the resolve that ended an obligation.
type ResolutionView struct {
	As       pinki.Outcome   `json:"as"`
	TS       string          `json:"ts"`
	By       string          `json:"by"`
	Evidence []string        `json:"evidence,omitempty"`
	Reason   string          `json:"reason,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
	SchemaID string          `json:"schema_id,omitempty"`
	Digest   string          `json:"digest,omitempty"`
	Meta     json.RawMessage `json:"meta,omitempty"`
}

// AssessmentView is an attributed judgment.
type AssessmentView struct {
	TS       string          `json:"ts"`
	State    string          `json:"state"`
	Observer string          `json:"observer"`
	Note     string          `json:"note,omitempty"`
	Meta     json.RawMessage `json:"meta,omitempty"`
}

// AmendView is one move of the horizon.
type AmendView struct {
	TS     string          `json:"ts"`
	Until  string          `json:"until"`
	By     string          `json:"by"`
	Reason string          `json:"reason,omitempty"`
	Meta   json.RawMessage `json:"meta,omitempty"`
}

// AcceptView is one party's acceptance of the terms at a revision. Current is
// false once a later change of terms voided it.
type AcceptView struct {
	TS      string          `json:"ts"`
	By      string          `json:"by"`
	Rev     int             `json:"rev"`
	Current bool            `json:"current"`
	Meta    json.RawMessage `json:"meta,omitempty"`
}

// ProgressView is one progress report.
type ProgressView struct {
	TS    string          `json:"ts"`
	By    string          `json:"by"`
	Phase pinki.Phase     `json:"phase"`
	Note  string          `json:"note,omitempty"`
	Meta  json.RawMessage `json:"meta,omitempty"`
}

// BindView is one binding to a verification target.
type BindView struct {
	TS     string          `json:"ts"`
	By     string          `json:"by"`
	Target json.RawMessage `json:"target"`
	Meta   json.RawMessage `json:"meta,omitempty"`
}

// IgnoredView is a line naming the obligation that the fold did not apply.
type IgnoredView struct {
	Seq  int64  `json:"seq"`
	Type string `json:"type"`
	TS   string `json:"ts"`
	Why  string `json:"why"`
}

func raw(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}

func item(o *fold.Obligation, st fold.Status) Item {
	r := &o.Record
	until, untilAt := o.Horizon()
	it := Item{ID: r.ID, Promise: r.Text, By: r.By, To: r.To, On: r.On, Until: until, UntilAt: untilAt,
		Task: r.Task(), Meta: raw(r.Meta()), State: st.State, Kind: o.Kind.String(), Late: st.Late,
		Phase: st.Phase, Rev: o.Rev, Lapse: r.Lapse(), Proposer: r.Proposer(), SchemaID: r.SchemaID(),
		Bound: len(o.Binds()) > 0, Created: r.TS, Seq: r.Seq}
	if o.Kind == fold.KindAgreement {
		for _, a := range o.CurrentAccepts() {
			it.Accepted = append(it.Accepted, a.By)
		}
	}
	return it
}

// detail builds the full view of o from its fold state and its applied
// events (history, in ledger order, as fetched from the store).
func detail(l *fold.Ledger, o *fold.Obligation, st fold.Status, history []pinki.Event) Detail {
	d := Detail{Item: item(o, st), OriginalUntil: o.Record.Until, Digest: o.Digest(), Schema: raw(o.Record.Schema()),
		Assessments: []AssessmentView{}, Amendments: []AmendView{}}
	current := map[int64]bool{}
	for _, a := range o.CurrentAccepts() {
		current[a.Seq] = true
	}
	for i := range history {
		e := &history[i]
		switch e.Type {
		case pinki.TypeAmend:
			d.Amendments = append(d.Amendments, AmendView{TS: e.TS, Until: e.Until, By: e.By, Reason: e.Reason, Meta: raw(e.Meta)})
		case pinki.TypeAccept:
			seq := o.Events[i].Seq
			d.Acceptances = append(d.Acceptances, AcceptView{TS: e.TS, By: e.By, Rev: e.Rev, Current: current[seq], Meta: raw(e.Meta)})
		case pinki.TypeProgress:
			d.Progress = append(d.Progress, ProgressView{TS: e.TS, By: e.By, Phase: e.Phase, Note: e.Note, Meta: raw(e.Meta)})
		case pinki.TypeBind:
			d.Bindings = append(d.Bindings, BindView{TS: e.TS, By: e.By, Target: raw(e.Target), Meta: raw(e.Meta)})
		case pinki.TypeResolve:
			d.Resolution = &ResolutionView{As: e.As, TS: e.TS, By: e.By, Evidence: e.Evidence, Reason: e.Reason,
				Response: raw(e.Response), SchemaID: e.SchemaID, Digest: e.Digest, Meta: raw(e.Meta)}
		case pinki.TypeAssess:
			d.Assessments = append(d.Assessments, AssessmentView{TS: e.TS, State: e.State, Observer: e.Observer, Note: e.Note, Meta: raw(e.Meta)})
		}
	}
	if l == nil {
		return d
	}
	for _, ig := range l.IgnoredFor(o.ID()) {
		if ig.Seq > o.Record.Seq {
			d.Ignored = append(d.Ignored, IgnoredView{Seq: ig.Seq, Type: string(ig.Event.Type), TS: ig.Event.TS, Why: ig.Why})
		}
	}
	return d
}
