package ledger

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
)

// checkEvent applies the ledger's rules to one event against the fold of
// everything before it: to a write about to be appended, and, in replay, to
// every line of a ledger that `check` reads. The event's writer is its `by`
// (its `observer` for an assessment): who it claims to be. who is the
// authenticated identity, when known; replay tolerates what only an identity
// could prove (a verifier's satisfied).
//
// Errors: CodeInvalid, CodeForbidden, CodeConflict.
func checkEvent(l *fold.Ledger, e *pinki.Event, who pinki.Identity, replay bool) error {
	if e.Type.Creates() {
		return checkCreation(e, replay)
	}
	o := l.Get(e.Subject)
	if o == nil {
		return notFound(l, e.Subject)
	}
	st := l.At(e.At).Status(o)
	switch e.Type {
	case pinki.TypeAmend:
		if o.Kind == fold.KindAgreement && !o.Party(e.By) {
			return forbidden("only a party may amend the agreement %s: %q is not %q or %q", o.ID(), e.By, o.Debtor(), o.Creditor())
		}
		if o.Kind != fold.KindAgreement && e.By != o.Debtor() {
			return forbidden("only the debtor %q may amend %s, not %q", o.Debtor(), o.ID(), e.By)
		}
		if !st.State.Open() && !reopens(l, o, st, e) {
			return ended(o, st)
		}
	case pinki.TypeAccept:
		if o.Kind != fold.KindAgreement {
			return pinki.Invalid("id", "%s is a %s, not an agreement: only proposed terms are accepted", o.ID(), o.Kind)
		}
		if !o.Party(e.By) {
			return forbidden("only the parties %q and %q may accept %s, not %q", o.Debtor(), o.Creditor(), o.ID(), e.By)
		}
		if e.Rev != o.Rev {
			return stale(o, e.Rev)
		}
		if !st.State.Open() {
			return ended(o, st)
		}
		if o.AcceptedBy(e.By) {
			return pinki.Invalid("by", "%q has already accepted the current terms of %s", e.By, o.ID())
		}
	case pinki.TypeProgress:
		if !e.Phase.Writable() {
			return pinki.Invalid("phase", "phase %q must be acknowledged, in_progress, blocked or pending_human", e.Phase)
		}
		if e.By != o.Debtor() {
			return forbidden("only the debtor %q reports progress on %s, not %q", o.Debtor(), o.ID(), e.By)
		}
		if !st.State.Open() {
			return ended(o, st)
		}
		if st.State == fold.Proposed {
			return notOwedYet(o)
		}
	case pinki.TypeResolve:
		return checkResolve(o, st, e, who, replay)
	case pinki.TypeAssess:
		if strings.TrimSpace(e.Observer) == "" {
			return pinki.Invalid("observer", "observer is empty: an assessment is signed by who makes it").
				WithHint("name the observer, or act as that seat")
		}
		if strings.TrimSpace(e.State) == "" || strings.ContainsAny(e.State, " \t\n") || len(e.State) > 64 {
			return pinki.Invalid("state", "state %q must be one word of at most 64 bytes, such as violated, kept or disputed", e.State)
		}
	case pinki.TypeBind:
		if err := checkTarget(e.Target); err != nil {
			return err
		}
		if o.Kind == fold.KindRequest {
			return notBindable(o.ID())
		}
		if !o.Party(e.By) {
			return forbidden("only a party of %s may bind it, not %q", o.ID(), e.By)
		}
		if !st.State.Open() {
			return ended(o, st)
		}
	}
	return nil
}

// checkCreation applies the rules that need nothing but the event: a valid
// id, text and seats, a deadline after ts, a known lapse, a proposer that is a
// party, and a schema that compiles with its schema_id. A deadline before ts
// is refused on a write but not in replay, where it is history.
func checkCreation(e *pinki.Event, replay bool) error {
	if why := ValidID(e.ID); why != "" {
		return pinki.Invalid("id", "id %q will not do: %s", e.ID, why)
	}
	if strings.TrimSpace(e.Text) == "" {
		return pinki.Invalid("promise", "the %s text is empty", e.Type)
	}
	if strings.TrimSpace(e.By) == "" || strings.TrimSpace(e.To) == "" {
		return pinki.Invalid("by", "by and to must both name a seat")
	}
	if e.UntilAt < e.At && !replay { // a ledger may carry history: import, pinki 0.2
		return pinki.Invalid("until", "until %s is before the declaration's ts %s: a new obligation needs a deadline ahead of now", e.Until, e.TS).
			WithHint("import carries history with past deadlines")
	}
	if e.Lapse != "" && e.Lapse != pinki.LapseOverdue && e.Lapse != pinki.LapseExpire {
		return pinki.Invalid("lapse", "lapse %q must be overdue or expire", e.Lapse)
	}
	if e.Type == pinki.TypePropose && e.Proposer != "by" && e.Proposer != "to" {
		return pinki.Invalid("proposer", "proposer %q must be by or to", e.Proposer)
	}
	if e.On != "" && e.On == e.ID {
		return pinki.Invalid("on", "%q cannot wait on itself", e.ID)
	}
	if (e.Schema == "") != (e.SchemaID == "") {
		return pinki.Invalid("schema_id", "schema and schema_id go together: give both or neither").
			WithHint("the schema_id is the label a response must repeat, such as inventory.lookup.result.v1")
	}
	if e.Schema != "" {
		if _, err := CompileSchema(e.Schema); err != nil {
			return err
		}
	}
	return nil
}

func checkResolve(o *fold.Obligation, st fold.Status, e *pinki.Event, who pinki.Identity, replay bool) error {
	switch e.As {
	case pinki.Satisfied:
		if e.Reason != "" {
			return pinki.Invalid("reason", "a reason is not taken with satisfied: evidence says what was delivered")
		}
		if len(e.Evidence) == 0 && e.Response == "" {
			return pinki.Invalid("evidence", "satisfied needs at least one evidence reference (a URL, path, commit or artifact id) or a response").
				WithHint("a resolve that points at nothing is a wish: add an evidence reference")
		}
	case pinki.Failed, pinki.Cancelled:
		if strings.TrimSpace(e.Reason) == "" {
			return pinki.Invalid("reason", "%s needs a reason: dropping an obligation is a recorded act", e.As)
		}
		fallthrough
	case pinki.Released:
		if len(e.Evidence) > 0 {
			return pinki.Invalid("evidence", "evidence is taken with satisfied only, not with %s", e.As)
		}
		if e.Response != "" {
			return pinki.Invalid("response", "a response closes a request as satisfied; with %s give a reason", e.As)
		}
	}
	party, role := o.Debtor(), "debtor"
	if e.As == pinki.Released {
		party, role = o.Creditor(), "creditor"
	}
	bound := len(o.Binds()) > 0 || o.Record.Task() != ""
	verifier := e.As == pinki.Satisfied && bound && (who.Role == pinki.RoleVerifier || replay)
	if e.By != party && !verifier {
		return forbidden("%s is the %s's act: only %q may resolve %s as %s, not %q", e.As, role, party, o.ID(), e.As, e.By)
	}
	if err := checkResponse(o, e); err != nil {
		return err
	}
	if o.Resolution != nil {
		return ended(o, st)
	}
	horizon, horizonAt := o.Horizon()
	if o.Record.Lapse() == pinki.LapseExpire && e.At > horizonAt {
		return &pinki.Error{Code: pinki.CodeConflict,
			Message: fmt.Sprintf("%s expired at its horizon %s (lapse: expire), so a resolve now does not count", o.ID(), horizon)}
	}
	switch {
	case st.State == fold.Expired && e.As != pinki.Satisfied:
		return ended(o, st)
	case st.State == fold.Proposed && (e.As == pinki.Satisfied || e.As == pinki.Failed):
		return notOwedYet(o)
	}
	return nil
}

func notOwedYet(o *fold.Obligation) *pinki.Error {
	var waiting []string
	for _, p := range []string{o.Debtor(), o.Creditor()} {
		q := fmt.Sprintf("%q", p)
		if !o.AcceptedBy(p) && !slices.Contains(waiting, q) {
			waiting = append(waiting, q)
		}
	}
	return pinki.Invalid("id", "%s is not owed yet: the agreement awaits acceptance by %s", o.ID(), strings.Join(waiting, " and ")).
		WithHint("decline it instead: cancelled by the debtor, or released by the creditor")
}

// notBindable refuses a binding on a request: a request is closed only by its
// typed answer, which no observed target can give.
func notBindable(id string) *pinki.Error {
	return pinki.Invalid("target", "a request is closed only by its typed answer, so %s cannot be bound to a verification target", id)
}

// reopens reports whether an amend may move the horizon of an obligation
// that has ended: only a proposal whose window closed before both parties
// accepted, moved to a later deadline (the parties then accept anew). An
// obligation resolved, or expired because its antecedent ended unsatisfied
// or under lapse: expire, stays ended.
func reopens(l *fold.Ledger, o *fold.Obligation, st fold.Status, e *pinki.Event) bool {
	if o.Kind != fold.KindAgreement || o.Resolution != nil || st.State != fold.Expired ||
		o.Record.Lapse() == pinki.LapseExpire || o.Agreed() || e.UntilAt <= e.At {
		return false
	}
	if ant := l.Get(o.Record.On); ant != nil {
		switch l.At(e.At).Status(ant).State {
		case fold.Failed, fold.Cancelled, fold.Released, fold.Expired:
			return false
		}
	}
	return true
}
