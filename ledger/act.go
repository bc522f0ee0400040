package ledger

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
)

// AmendInput moves an obligation's horizon. Until takes an instant or a
// duration from now. By, when set, claims who is writing (it must agree with
// a known identity). Rev, when set, is the revision the writer saw.
type AmendInput struct {
	ID     string
	Until  string
	Reason string
	By     string
	Meta   json.RawMessage
	Rev    *int
}

// AcceptInput records one party's acceptance of an agreement's terms at the
// revision it saw.
type AcceptInput struct {
	ID   string
	Rev  int
	By   string
	Meta json.RawMessage
}

// ProgressInput reports the debtor's phase on an owed obligation.
type ProgressInput struct {
	ID    string
	Phase pinki.Phase
	Note  string
	By    string
	Meta  json.RawMessage
	Rev   *int
}

// ResolveInput ends an obligation. Satisfied needs evidence and/or a response
// (a request needs its response, repeating the request's digest, and its
// schema_id when it has a schema); failed and cancelled need a reason.
type ResolveInput struct {
	ID       string
	As       pinki.Outcome
	By       string
	Evidence []string
	Reason   string
	Response json.RawMessage
	SchemaID string
	Digest   string
	Meta     json.RawMessage
	Rev      *int
}

// AssessInput records an attributed judgment (violated, kept, disputed, …).
type AssessInput struct {
	ID       string
	State    string
	Observer string
	Note     string
	Meta     json.RawMessage
	Rev      *int
}

// BindInput binds an obligation to a verification target: a JSON object with
// a "kind" that a verifier adapter understands.
type BindInput struct {
	ID     string
	Target json.RawMessage
	By     string
	Meta   json.RawMessage
	Rev    *int
}

// change is one write on an existing obligation.
type change struct {
	id  string
	rev *int // expected revision, if the writer named one
	// prepare builds the event (all but ts) from the input and the record:
	// defaults, and the writer from the identity or the claim. The rules are
	// checkEvent's.
	prepare func(o *fold.Obligation) (pinki.Event, error)
	// byAnyone is set for the one act SPEC §1 gives to anyone (assess): a
	// seat may write it on an obligation it may not read, learning nothing
	// of it but that the id exists.
	byAnyone bool
}

// apply runs a change: look up, prepare, idempotency, revision, state rules,
// append.
func (s *Service) apply(ctx context.Context, who pinki.Identity, c change) (Receipt, error) {
	id := strings.TrimSpace(c.id)
	if id == "" {
		return Receipt{}, pinki.Invalid("id", "no id given")
	}
	return s.write(ctx, c.rev != nil, func(l *fold.Ledger, ls *lines, ts string, at int64) (plan, error) {
		o := l.Get(id)
		reader := o != nil && canRead(who, o)
		if o == nil || !reader && !c.byAnyone {
			// A seat acts only on what it may read: an obligation it is no
			// party to does not exist for it, so that neither a write nor
			// its refusal tells it otherwise.
			return plan{}, notFound(l, id)
		}
		e, err := c.prepare(o)
		if err != nil {
			return plan{}, err
		}
		e.Subject, e.TS, e.At = id, ts, at
		repeat, err := applied(ls, o, &e)
		if err != nil {
			return plan{}, err
		}
		if repeat {
			return plan{receipt: Receipt{ID: id, hidden: !reader}}, nil
		}
		if c.rev != nil && !reader {
			// Comparing would tell the revision, one guess at a time.
			return plan{}, pinki.Invalid("rev", "you may not read %s, so you cannot name its revision", id).
				WithHint("assess without --rev")
		}
		if c.rev != nil && *c.rev != o.Rev {
			return plan{}, stale(o, *c.rev)
		}
		if err := checkEvent(l, &e, who, false); err != nil {
			return plan{}, err
		}
		fences := append([]pinki.Fence{{Subject: id, Version: o.Version, Seen: l.Position()}}, chainFences(l, o)...)
		return plan{events: []pinki.Event{e}, fences: fences, receipt: Receipt{ID: id, hidden: !reader}}, nil
	})
}

// chainFences fences the antecedents o's state depends on, which the rules
// read (conditional, expired with them): every obligation up its chain of
// `on` to the first resolved one (whose state is final) or the first not
// declared (whose declaration would change it), each once (a cycle ends the
// walk). A change to any of them fails the append.
func chainFences(l *fold.Ledger, o *fold.Obligation) []pinki.Fence {
	var fences []pinki.Fence
	seen := map[string]bool{o.ID(): true}
	for on := o.Record.On; on != "" && !seen[on]; {
		seen[on] = true
		fences = append(fences, pinki.Fence{Subject: on, Version: l.Version(on), Seen: l.Position()})
		ant := l.Get(on)
		if ant == nil || ant.Resolution != nil {
			break
		}
		on = ant.Record.On
	}
	return fences
}

func notFound(l *fold.Ledger, id string) *pinki.Error {
	e := &pinki.Error{Code: pinki.CodeNotFound, Field: "id", Message: fmt.Sprintf("nothing in the ledger declares %q", id)}
	if why := ValidID(id); why != "" {
		e.Hint = fmt.Sprintf("%q could never have been declared: %s", id, why)
	} else {
		e.Hint = "a listing of every state shows every id"
	}
	return e
}

func stale(o *fold.Obligation, saw int) *pinki.Error {
	return &pinki.Error{Code: pinki.CodeConflict, Field: "rev",
		Message: fmt.Sprintf("stale revision: you saw rev %d, and %s is now at rev %d", saw, o.ID(), o.Rev),
		Hint:    fmt.Sprintf("show %s for what changed, then retry at rev %d", o.ID(), o.Rev)}
}

func ended(o *fold.Obligation, st fold.Status) *pinki.Error {
	if r := o.Resolution; r != nil {
		return &pinki.Error{Code: pinki.CodeConflict,
			Message: fmt.Sprintf("%s is already resolved: %s at %s by %s; the first resolve wins, so nothing was appended", o.ID(), r.As, r.TS, r.By),
			Hint:    fmt.Sprintf("show %s for the record", o.ID())}
	}
	return &pinki.Error{Code: pinki.CodeConflict,
		Message: fmt.Sprintf("%s has ended: %s", o.ID(), st.State),
		Hint:    fmt.Sprintf("show %s for the record", o.ID())}
}

// claim resolves who writes: a known identity, else the claimed seat, else
// def. It refuses a claim that contradicts the identity.
func claim(who pinki.Identity, field, claimed, def string) (string, error) {
	claimed = strings.TrimSpace(claimed)
	switch {
	case who.Known() && claimed != "" && claimed != who.Seat:
		return "", forbidden("you are writing as %q, so %s cannot be %q", who.Seat, field, claimed)
	case who.Known():
		return who.Seat, nil
	case claimed != "":
		return seat(field, claimed)
	}
	return def, nil
}

// Amend moves the horizon of an obligation: the debtor's act, or either
// party's for an agreement (which voids the acceptances so far).
//
// Errors: CodeNotFound, CodeInvalid, CodeForbidden, CodeConflict (ended,
// stale rev).
func (s *Service) Amend(ctx context.Context, who pinki.Identity, in AmendInput) (Receipt, error) {
	until, err := Deadline("until", in.Until, s.opts.Clock())
	if err != nil {
		return Receipt{}, err
	}
	reason, err := text("reason", in.Reason, false)
	if err != nil {
		return Receipt{}, err
	}
	meta, err := Meta("meta", in.Meta)
	if err != nil {
		return Receipt{}, err
	}
	return s.apply(ctx, who, change{id: in.ID, rev: in.Rev,
		prepare: func(o *fold.Obligation) (pinki.Event, error) {
			by, err := claim(who, "by", in.By, o.Debtor())
			return pinki.Event{Type: pinki.TypeAmend, By: by, Until: pinki.FormatTime(until),
				UntilAt: pinki.Nanos(until), Reason: reason, Meta: meta}, err
		},
	})
}

// Accept records a party's acceptance of an agreement's current terms. Rev
// must be the revision the party saw; a stale one is a conflict.
//
// Errors: CodeNotFound, CodeInvalid (not an agreement, already accepted),
// CodeForbidden (not a party), CodeConflict (stale rev, ended).
func (s *Service) Accept(ctx context.Context, who pinki.Identity, in AcceptInput) (Receipt, error) {
	meta, err := Meta("meta", in.Meta)
	if err != nil {
		return Receipt{}, err
	}
	if in.Rev < 1 {
		return Receipt{}, pinki.Invalid("rev", "rev is required: accept names the revision you saw (`pinki show ID` prints it)")
	}
	rev := in.Rev
	return s.apply(ctx, who, change{id: in.ID, rev: &rev,
		prepare: func(o *fold.Obligation) (pinki.Event, error) {
			by, err := claim(who, "by", in.By, "")
			if err == nil && by == "" {
				err = pinki.Invalid("by", "say which party accepts: act as that seat, or name it as by")
			}
			return pinki.Event{Type: pinki.TypeAccept, By: by, Rev: in.Rev, Meta: meta}, err
		},
	})
}

// Progress records the debtor's phase on an open, agreed obligation.
//
// Errors: CodeNotFound, CodeInvalid (bad phase, not owed yet), CodeForbidden
// (not the debtor), CodeConflict (ended, stale rev).
func (s *Service) Progress(ctx context.Context, who pinki.Identity, in ProgressInput) (Receipt, error) {
	if !in.Phase.Writable() {
		return Receipt{}, pinki.Invalid("phase", "phase %q must be acknowledged, in_progress, blocked or pending_human", in.Phase)
	}
	note, err := text("note", in.Note, false)
	if err != nil {
		return Receipt{}, err
	}
	meta, err := Meta("meta", in.Meta)
	if err != nil {
		return Receipt{}, err
	}
	return s.apply(ctx, who, change{id: in.ID, rev: in.Rev,
		prepare: func(o *fold.Obligation) (pinki.Event, error) {
			by, err := claim(who, "by", in.By, o.Debtor())
			return pinki.Event{Type: pinki.TypeProgress, By: by, Phase: in.Phase, Note: note, Meta: meta}, err
		},
	})
}

// Resolve ends an obligation: satisfied, failed or cancelled by the debtor (a
// verifier may also write satisfied), released by the creditor. The first
// resolve wins: an identical retry is an idempotent success, a different one
// a conflict.
//
// Errors: CodeNotFound; CodeInvalid (missing evidence or reason, a response
// failing the request's schema with every violation in Details, a wrong
// digest or schema_id, not owed yet); CodeForbidden (not the party whose act
// it is); CodeConflict (already resolved, expired, stale rev).
func (s *Service) Resolve(ctx context.Context, who pinki.Identity, in ResolveInput) (Receipt, error) {
	if !in.As.Valid() {
		return Receipt{}, pinki.Invalid("as", "a resolution is satisfied, failed, cancelled or released, not %q", in.As)
	}
	ev, err := evidence(in.Evidence)
	if err != nil {
		return Receipt{}, err
	}
	reason, err := text("reason", in.Reason, false)
	if err != nil {
		return Receipt{}, err
	}
	meta, err := Meta("meta", in.Meta)
	if err != nil {
		return Receipt{}, err
	}
	var response string
	if len(in.Response) > 0 {
		if response, err = compactJSON("response", in.Response, pinki.MaxResponse); err != nil {
			return Receipt{}, err
		}
	}
	schemaID, err := text("schema_id", in.SchemaID, false)
	if err != nil {
		return Receipt{}, err
	}
	digest, err := text("digest", in.Digest, false)
	if err != nil {
		return Receipt{}, err
	}
	return s.apply(ctx, who, change{id: in.ID, rev: in.Rev,
		prepare: func(o *fold.Obligation) (pinki.Event, error) {
			party := o.Debtor()
			if in.As == pinki.Released {
				party = o.Creditor()
			}
			by, err := claim(who, "by", in.By, party)
			return pinki.Event{Type: pinki.TypeResolve, As: in.As, By: by, Evidence: ev, Reason: reason,
				Response: response, SchemaID: schemaID, Digest: digest, Meta: meta}, err
		},
	})
}

// checkResponse enforces the request binding: a request is closed as
// satisfied only by its response, repeating the request's digest, and its
// schema_id when it has a schema, and the response must satisfy the schema.
func checkResponse(o *fold.Obligation, e *pinki.Event) error {
	r := &o.Record
	if o.Kind != fold.KindRequest {
		if e.Digest != "" || e.SchemaID != "" {
			return pinki.Invalid("digest", "digest and schema_id repeat a request's binding; %s is a %s", o.ID(), o.Kind)
		}
		return nil
	}
	if e.As != pinki.Satisfied {
		if e.Digest != "" && e.Digest != o.Digest() {
			return wrongDigest(o, e.Digest)
		}
		return nil
	}
	if e.Response == "" {
		return pinki.Invalid("response", "a request is closed only by its answer: give the response (JSON)").
			WithHint("repeat the request's digest (show %s prints it)", o.ID())
	}
	if e.Digest == "" {
		return pinki.Invalid("digest", "a response must repeat the request's digest").
			WithHint("show %s prints it", o.ID())
	}
	if e.Digest != o.Digest() {
		return wrongDigest(o, e.Digest)
	}
	if r.Schema() == "" {
		if e.SchemaID != "" {
			return pinki.Invalid("schema_id", "%s asked for no schema, so schema_id %q names nothing", o.ID(), e.SchemaID)
		}
		return nil
	}
	if e.SchemaID == "" {
		return pinki.Invalid("schema_id", "%s demands a response typed %q: repeat that schema_id", o.ID(), r.SchemaID())
	}
	if e.SchemaID != r.SchemaID() {
		return pinki.Invalid("schema_id", "schema_id %q is not the %q that %s demands", e.SchemaID, r.SchemaID(), o.ID())
	}
	sch, err := CompileSchema(r.Schema())
	if err != nil {
		return err
	}
	if violations := validateResponse(sch, e.Response); len(violations) > 0 {
		return &pinki.Error{Code: pinki.CodeInvalid, Field: "response",
			Message: fmt.Sprintf("response fails the schema %q of %s: %d violation(s): %s", r.SchemaID(), o.ID(), len(violations), strings.Join(violations, "; ")),
			Details: violations}
	}
	return nil
}

func wrongDigest(o *fold.Obligation, got string) error {
	return pinki.Invalid("digest", "digest %s is not the digest of %s", got, o.ID()).
		WithHint("the request's digest is %s", o.Digest())
}

// Assess records an observer's judgment. It never changes computed state.
// Anyone may assess (SPEC §1), a seat also an obligation it may not read:
// its receipt then carries the id only, no state or revision.
//
// Errors: CodeNotFound, CodeInvalid (no observer, no state), CodeForbidden
// (assessing as another seat).
func (s *Service) Assess(ctx context.Context, who pinki.Identity, in AssessInput) (Receipt, error) {
	state, err := text("state", in.State, true)
	if err != nil {
		return Receipt{}, err
	}
	note, err := text("note", in.Note, false)
	if err != nil {
		return Receipt{}, err
	}
	meta, err := Meta("meta", in.Meta)
	if err != nil {
		return Receipt{}, err
	}
	observer, err := claim(who, "observer", in.Observer, "")
	if err != nil {
		return Receipt{}, err
	}
	return s.apply(ctx, who, change{id: in.ID, rev: in.Rev, byAnyone: true,
		prepare: func(o *fold.Obligation) (pinki.Event, error) {
			return pinki.Event{Type: pinki.TypeAssess, Observer: observer, State: state, Note: note, Meta: meta}, nil
		},
	})
}

// Bind binds an open obligation to a verification target. A party writes it;
// on an agreement it changes the terms, so earlier acceptances stop counting.
//
// Errors: CodeNotFound, CodeInvalid (target not an object with a kind),
// CodeForbidden (not a party), CodeConflict (ended, stale rev).
func (s *Service) Bind(ctx context.Context, who pinki.Identity, in BindInput) (Receipt, error) {
	target, err := compactJSON("target", in.Target, pinki.MaxMeta)
	if err != nil {
		return Receipt{}, err
	}
	meta, err := Meta("meta", in.Meta)
	if err != nil {
		return Receipt{}, err
	}
	return s.apply(ctx, who, change{id: in.ID, rev: in.Rev,
		prepare: func(o *fold.Obligation) (pinki.Event, error) {
			by, err := claim(who, "by", in.By, o.Creditor())
			return pinki.Event{Type: pinki.TypeBind, By: by, Target: target, Meta: meta}, err
		},
	})
}

func checkTarget(target string) error {
	var t struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal([]byte(target), &t); err != nil || t.Kind == "" {
		return pinki.Invalid("target", "a target is a JSON object with a \"kind\", such as {\"kind\":\"todo\",…}")
	}
	return nil
}

// applied reports whether e repeats (minus ts) an event already applied to
// o by the same writer: the resolution, the latest amend, the latest progress,
// the latest assessment by that observer, or any acceptance or binding. The
// events compared are read back from the store (the fold keeps references):
// errMissing when ls has not fetched the one needed yet.
func applied(ls *lines, o *fold.Obligation, e *pinki.Event) (bool, error) {
	var ref fold.Ref
	switch e.Type {
	case pinki.TypeAccept:
		for _, a := range o.Accepts() {
			if a.By == e.By && a.Rev == e.Rev && a.Meta == e.Meta {
				return true, nil
			}
		}
		return false, nil
	case pinki.TypeBind:
		for _, b := range o.Binds() {
			if b.By == e.By && sameJSON(b.Target, e.Target) && b.Meta == e.Meta {
				return true, nil
			}
		}
		return false, nil
	case pinki.TypeResolve:
		if o.Resolution == nil {
			return false, nil
		}
		ref = fold.Ref{Seq: o.Resolution.Seq}
	case pinki.TypeAssess:
		i := len(o.Assessments) - 1
		for i >= 0 && o.Assessments[i].Observer != e.Observer {
			i--
		}
		if i < 0 {
			return false, nil
		}
		ref = fold.Ref{Seq: o.Assessments[i].Seq}
	default:
		last, ok := o.Last(e.Type)
		if !ok {
			return false, nil
		}
		ref = last
	}
	// Find the full ref (with its offset) among the obligation's events.
	for _, r := range o.Events {
		if r.Seq == ref.Seq {
			ref = r
			break
		}
	}
	prev, ok := ls.event(o, ref)
	if !ok {
		return false, errMissing
	}
	return sameAct(&prev, e), nil
}

// sameAct reports whether two events on one obligation are equal but for ts,
// comparing JSON values (a response, a target) as values.
func sameAct(a, b *pinki.Event) bool {
	x, y := *a, *b
	x.TS, x.At, y.TS, y.At = "", 0, "", 0
	if !sameJSON(x.Response, y.Response) || !sameJSON(x.Target, y.Target) {
		return false
	}
	x.Response, y.Response, x.Target, y.Target = "", "", "", ""
	return string(pinki.AppendLine(nil, &x)) == string(pinki.AppendLine(nil, &y))
}
