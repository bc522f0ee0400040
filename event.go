// Package pinki holds the domain of the promise ledger: the event record, the
// error contract, identities and the Store interface every storage adapter
// implements. It has no I/O and no clock; the fold lives in package fold, the
// rules in package ledger, and the adapters in packages named after what they
// depend on (jsonl, postgres).
package pinki

import (
	"strings"
	"time"
)

// Type is an event type. The set is closed: a line with any other type is not
// understood (SPEC §3).
type Type string

// The event types. promise, amend, resolve and assess are pinki 0.1/0.2's; the
// rest are new in this ledger format, and an old reader refuses them loudly.
const (
	TypePromise  Type = "promise"
	TypeRequest  Type = "request"
	TypePropose  Type = "propose"
	TypeAmend    Type = "amend"
	TypeAccept   Type = "accept"
	TypeProgress Type = "progress"
	TypeResolve  Type = "resolve"
	TypeAssess   Type = "assess"
	TypeBind     Type = "bind"
)

// Creates reports whether events of type t create an obligation.
func (t Type) Creates() bool {
	return t == TypePromise || t == TypeRequest || t == TypePropose
}

// Known reports whether t is one of the event types this version understands.
func (t Type) Known() bool {
	switch t {
	case TypePromise, TypeRequest, TypePropose, TypeAmend, TypeAccept,
		TypeProgress, TypeResolve, TypeAssess, TypeBind:
		return true
	}
	return false
}

// Outcome is how a resolve ends an obligation (the `as` field).
type Outcome string

// The four outcomes of a resolve.
const (
	Satisfied Outcome = "satisfied"
	Failed    Outcome = "failed"
	Cancelled Outcome = "cancelled"
	Released  Outcome = "released"
)

// Valid reports whether o is one of the four outcomes.
func (o Outcome) Valid() bool {
	return o == Satisfied || o == Failed || o == Cancelled || o == Released
}

// Phase is a debtor's progress report on an owed obligation.
type Phase string

// The phases. PhaseRequested is computed (a request nobody acknowledged) and is
// never written by a progress event.
const (
	PhaseRequested    Phase = "requested"
	PhaseAcknowledged Phase = "acknowledged"
	PhaseInProgress   Phase = "in_progress"
	PhaseBlocked      Phase = "blocked"
	PhasePendingHuman Phase = "pending_human"
)

// Writable reports whether p may appear in a progress event.
func (p Phase) Writable() bool {
	return p == PhaseAcknowledged || p == PhaseInProgress || p == PhaseBlocked || p == PhasePendingHuman
}

// Lapse says what a passed horizon does to an unresolved owed obligation.
type Lapse string

// The lapse policies. The empty value means LapseOverdue.
const (
	LapseOverdue Lapse = "overdue"
	LapseExpire  Lapse = "expire"
)

// Limits on field sizes (SPEC §1).
const (
	MaxMeta   = 8 << 10
	MaxSchema = 64 << 10
	MaxIDLen  = 128
	// MaxText bounds free-text fields (promise text, reasons, notes). The SPEC
	// is silent; 16 KiB keeps one line of the ledger a reasonable size.
	MaxText = 16 << 10
	// MaxResponse bounds a structured response.
	MaxResponse = 256 << 10
)

// Event is one line of the ledger. One struct holds every type; which fields are
// allowed depends on Type (see Fields). Text fields are kept exactly as written;
// TS and Until are also parsed into At and UntilAt (Unix nanoseconds) by the
// decoder, or set by whoever builds the event.
//
// The JSON key "promise" carries the obligation text on creation events (Text)
// and the id of the obligation concerned on every other event (Subject).
type Event struct {
	TS   string
	Type Type

	// Creation events: promise, request, propose.
	ID       string
	Text     string
	On       string
	Until    string
	Task     string
	Lapse    Lapse
	Proposer string
	SchemaID string
	Schema   string // raw compact JSON object, or ""

	// Every event but creation names the obligation it concerns.
	Subject string

	By       string // debtor on creation; writer on amend, accept, progress, resolve, bind
	To       string // creditor on creation
	Reason   string
	Note     string
	Phase    Phase
	As       Outcome
	Evidence []string
	Response string // raw compact JSON value, or ""
	Digest   string
	Rev      int // accept only: the revision the writer saw
	Observer string
	State    string
	Target   string // bind only: raw compact JSON object naming the verification target
	Meta     string // raw compact JSON object, or ""

	// Parsed forms, not on the wire.
	At      int64 // TS as Unix nanoseconds
	UntilAt int64 // Until as Unix nanoseconds (creation, amend)
}

// Key is the id of the obligation the event concerns: ID for a creation,
// Subject for every other event.
func (e *Event) Key() string {
	if e.Type.Creates() {
		return e.ID
	}
	return e.Subject
}

// Time returns the parsed ts.
func (e *Event) Time() time.Time { return time.Unix(0, e.At).UTC() }

// FormatTime renders t the way the ledger writes instants: RFC 3339, UTC, whole
// seconds unless t has a fraction, then nanoseconds trimmed of trailing zeros.
func FormatTime(t time.Time) string {
	return t.UTC().Format(time.RFC3339Nano)
}

// ParseTime parses an RFC 3339 instant that carries a zone ("Z" or an offset).
func ParseTime(s string) (time.Time, error) {
	if !rfc3339Shape(s) {
		return time.Time{}, &time.ParseError{Layout: time.RFC3339Nano, Value: s, Message: ": not an RFC 3339 date-time with a zone"}
	}
	return time.Parse(time.RFC3339Nano, s)
}

// Clone returns a copy of e that shares no memory with it: the strings of a
// decoded event are slices of one buffer per line, which a long-lived holder
// of a few fields should not keep alive.
func (e *Event) Clone() Event {
	c := *e
	for _, p := range []*string{&c.TS, &c.ID, &c.Text, &c.On, &c.Until, &c.Task, &c.Proposer, &c.SchemaID,
		&c.Schema, &c.Subject, &c.By, &c.To, &c.Reason, &c.Note, &c.Response, &c.Digest, &c.Observer,
		&c.State, &c.Target, &c.Meta} {
		*p = strings.Clone(*p)
	}
	c.Type, c.Lapse, c.Phase, c.As = Type(strings.Clone(string(c.Type))), Lapse(strings.Clone(string(c.Lapse))),
		Phase(strings.Clone(string(c.Phase))), Outcome(strings.Clone(string(c.As)))
	if c.Evidence != nil {
		c.Evidence = make([]string, len(e.Evidence))
		for i, r := range e.Evidence {
			c.Evidence[i] = strings.Clone(r)
		}
	}
	return c
}
