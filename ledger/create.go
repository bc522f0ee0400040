package ledger

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
)

// CreateInput declares a promise, asks for a response (request) or proposes
// an agreement. Until takes an RFC 3339 instant with a zone or a duration from
// now (+2h). ID is optional: without it an id is minted.
type CreateInput struct {
	Kind     fold.Kind
	ID       string
	Text     string
	By       string
	To       string
	On       string
	Until    string
	Task     string
	Lapse    pinki.Lapse
	Proposer string // propose only, when the writer is not known: "by" or "to"
	Schema   json.RawMessage
	SchemaID string
	Meta     json.RawMessage
	// Target binds the new obligation to a verification target in the same
	// append (a bind event right after the creation).
	Target json.RawMessage
}

// Create records a new obligation. The writer must be the debtor for a
// promise, the creditor for a request, and a party for a proposal (when the
// writer is known). Repeating a creation with the same id and content is an
// idempotent success; the same id with different content is refused.
//
// Errors: CodeInvalid for any field that breaks a rule (one line naming the
// field), including an id taken by different content, whether it was taken
// before or by a concurrent writer while this one was decided;
// CodeForbidden for writing as another seat; CodeTooLarge for a field over
// its cap; CodeConflict only when the write lost the race to concurrent
// writers on every one of its attempts.
func (s *Service) Create(ctx context.Context, who pinki.Identity, in CreateInput) (Receipt, error) {
	e, warnMissingOn, err := s.buildCreation(who, in)
	if err != nil {
		return Receipt{}, err
	}
	var bind *pinki.Event
	if len(in.Target) > 0 && e.Type == pinki.TypeRequest {
		return Receipt{}, notBindable("this request")
	}
	if len(in.Target) > 0 {
		target, err := compactJSON("target", in.Target, pinki.MaxMeta)
		if err != nil {
			return Receipt{}, err
		}
		if err := checkTarget(target); err != nil {
			return Receipt{}, err
		}
		writer := e.By
		if e.Type == pinki.TypeRequest || (e.Type == pinki.TypePropose && e.Proposer == "to") {
			writer = e.To
		}
		bind = &pinki.Event{Type: pinki.TypeBind, By: writer, Target: target}
	}
	lookAgain := true
	return s.write(ctx, false, func(l *fold.Ledger, _ *lines, ts string, at int64) (plan, error) {
		ev := e
		ev.TS, ev.At = ts, at
		if ev.ID != "" {
			if o := l.Get(ev.ID); o != nil {
				if sameCreation(o, &ev) && (bind == nil || hasBind(o, bind)) {
					return plan{receipt: Receipt{ID: ev.ID, Digest: o.Digest()}}, nil
				}
				if sameCreation(o, &ev) && o.Version == 1 && o.Record.Seq == l.Position().Seq && lookAgain {
					// The creation is the last line folded and its binding
					// may be the next one, not folded yet (a long catch-up
					// applies in blocks): look again, once, after a
					// catch-up that folds to the end.
					lookAgain = false
					return plan{}, errDecideAgain
				}
				if !canRead(who, o) {
					// Taken, and not the caller's to read: say no more.
					return plan{}, pinki.Invalid("id", "id %q is taken", ev.ID).WithHint("ids are stable: pick another id")
				}
				return plan{}, pinki.Invalid("id", "id %q is taken by a different %s declared at %s", ev.ID, o.Kind, o.Record.TS).
					WithHint("ids are stable: pick another id, or show %s", ev.ID)
			}
		} else {
			id, err := mint(l, s.opts.Random)
			if err != nil {
				return plan{}, err
			}
			ev.ID = id
		}
		if err := checkEvent(l, &ev, who, false); err != nil {
			return plan{}, err
		}
		p := plan{events: []pinki.Event{ev},
			fences:  []pinki.Fence{{Subject: ev.ID, Version: l.Version(ev.ID), Seen: l.Position()}},
			receipt: Receipt{ID: ev.ID, Digest: pinki.Digest(&ev)}}
		if bind != nil {
			b := *bind
			b.TS, b.At, b.Subject = ts, at, ev.ID
			p.events = append(p.events, b)
		}
		if warnMissingOn && l.Get(ev.On) == nil {
			p.receipt.Warnings = append(p.receipt.Warnings,
				fmt.Sprintf("nothing in the ledger declares %q; recording %s as conditional on it anyway", ev.On, ev.ID))
		}
		return p, nil
	})
}

// buildCreation validates every field that does not depend on the ledger.
func (s *Service) buildCreation(who pinki.Identity, in CreateInput) (pinki.Event, bool, error) {
	var e pinki.Event
	var err error
	switch in.Kind {
	case fold.KindPromise:
		e.Type = pinki.TypePromise
	case fold.KindRequest:
		e.Type = pinki.TypeRequest
	case fold.KindAgreement:
		e.Type = pinki.TypePropose
	default:
		return e, false, pinki.Invalid("kind", "unknown kind of obligation")
	}
	if in.ID != "" {
		if e.ID, err = checkID("id", in.ID); err != nil {
			return e, false, err
		}
	}
	field := "promise"
	if e.Type == pinki.TypePropose {
		field = "terms"
	}
	if e.Text, err = text(field, in.Text, true); err != nil {
		return e, false, err
	}
	by, to := in.By, in.To
	if who.Known() {
		switch e.Type {
		case pinki.TypePromise:
			if strings.TrimSpace(by) == "" {
				by = who.Seat
			}
		case pinki.TypeRequest:
			if strings.TrimSpace(to) == "" {
				to = who.Seat
			}
		}
	}
	if e.By, err = seat("by", by); err != nil {
		return e, false, err
	}
	if e.To, err = seat("to", to); err != nil {
		return e, false, err
	}
	switch e.Type {
	case pinki.TypePromise:
		if who.Known() && who.Seat != e.By {
			return e, false, forbidden("a promise is made by its debtor: you are %q, and by is %q", who.Seat, e.By)
		}
	case pinki.TypeRequest:
		if who.Known() && who.Seat != e.To {
			return e, false, forbidden("a request is written by the requester (to): you are %q, and to is %q", who.Seat, e.To)
		}
	case pinki.TypePropose:
		switch {
		case who.Known() && who.Seat == e.By:
			e.Proposer = "by"
		case who.Known() && who.Seat == e.To:
			e.Proposer = "to"
		case who.Known():
			return e, false, forbidden("only a party may propose: you are %q, not %q or %q", who.Seat, e.By, e.To)
		case in.Proposer == "" || in.Proposer == "by":
			e.Proposer = "by"
		case in.Proposer == "to":
			e.Proposer = "to"
		default:
			return e, false, pinki.Invalid("proposer", "proposer %q must be by or to", in.Proposer)
		}
		if who.Known() && in.Proposer != "" && in.Proposer != e.Proposer {
			return e, false, forbidden("you are %q, the %s party, so you cannot propose as %s", who.Seat, e.Proposer, in.Proposer)
		}
	}
	warn := false
	if strings.TrimSpace(in.On) != "" {
		if e.On, err = checkID("on", in.On); err != nil {
			return e, false, err
		}
		if e.On == e.ID {
			return e, false, pinki.Invalid("on", "%q cannot wait on itself", e.ID)
		}
		warn = true
	}
	if in.Task != "" {
		if e.Task, err = text("task", in.Task, true); err != nil {
			return e, false, err
		}
	}
	switch in.Lapse {
	case "", pinki.LapseOverdue:
	case pinki.LapseExpire:
		e.Lapse = pinki.LapseExpire
	default:
		return e, false, pinki.Invalid("lapse", "lapse %q must be overdue or expire", in.Lapse)
	}
	until, err := Deadline("until", in.Until, s.opts.Clock())
	if err != nil {
		return e, false, err
	}
	e.Until, e.UntilAt = pinki.FormatTime(until), pinki.Nanos(until)
	if e.Type != pinki.TypeRequest && (len(in.Schema) > 0 || in.SchemaID != "") {
		return e, false, pinki.Invalid("schema", "schema and schema_id belong to requests only")
	}
	if len(in.Schema) > 0 {
		if e.Schema, err = compactJSON("schema", in.Schema, pinki.MaxSchema); err != nil {
			return e, false, err
		}
		if _, err := CompileSchema(e.Schema); err != nil {
			return e, false, err
		}
	}
	if in.SchemaID != "" {
		if e.SchemaID, err = text("schema_id", in.SchemaID, true); err != nil {
			return e, false, err
		}
	}
	if (e.Schema == "") != (e.SchemaID == "") {
		return e, false, pinki.Invalid("schema_id", "schema and schema_id go together: give both or neither").
			WithHint("the schema_id is the label a response must repeat, such as inventory.lookup.result.v1")
	}
	if e.Meta, err = Meta("meta", in.Meta); err != nil {
		return e, false, err
	}
	return e, warn, nil
}

// sameCreation reports whether a creation repeats the record: the same
// content digest (every field but ts and meta, JSON values as values) and the
// same meta.
func sameCreation(o *fold.Obligation, e *pinki.Event) bool {
	return o.Record.Meta() == e.Meta && o.Digest() == pinki.Digest(e)
}

func hasBind(o *fold.Obligation, b *pinki.Event) bool {
	for _, x := range o.Binds() {
		if sameJSON(x.Target, b.Target) && x.By == b.By {
			return true
		}
	}
	return false
}

// mint draws a fresh id: pnk_ and six lowercase hex digits, checked against
// every id the ledger names; two more digits after each 64 collisions.
func mint(l *fold.Ledger, random io.Reader) (string, error) {
	size := 3
	for round := 0; round < 8; round++ {
		buf := make([]byte, size)
		for attempt := 0; attempt < 64; attempt++ {
			if _, err := io.ReadFull(random, buf); err != nil {
				return "", pinki.Errorf(pinki.CodeUnavailable, "cannot draw a random id: %v", err)
			}
			id := "pnk_" + hex.EncodeToString(buf)
			if !l.Taken(id) {
				return id, nil
			}
		}
		size++
	}
	return "", pinki.Errorf(pinki.CodeUnavailable, "could not mint a free id: the id space is crowded")
}

func forbidden(format string, args ...any) *pinki.Error {
	return &pinki.Error{Code: pinki.CodeForbidden, Message: fmt.Sprintf(format, args...)}
}
