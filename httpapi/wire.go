package httpapi

import (
	"encoding/json"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/ledger"
)

// The request bodies. Each is decoded strictly (unknown fields, a second JSON
// value, wrong types and oversized bodies are refused) and none carries an
// identity: the writer is always the bearer token's seat. `by` and `to` on a
// creation name the parties; the service checks that the token's seat is the
// party whose act the creation is.

// createFields are the fields every creation takes.
type createFields struct {
	ID     string          `json:"id,omitempty"`
	By     string          `json:"by,omitempty"`
	To     string          `json:"to,omitempty"`
	On     string          `json:"on,omitempty"`
	Until  string          `json:"until"`
	Task   string          `json:"task,omitempty"`
	Lapse  pinki.Lapse     `json:"lapse,omitempty"`
	Meta   json.RawMessage `json:"meta,omitempty"`
	Target json.RawMessage `json:"target,omitempty"`
}

// PromiseBody is POST /v1/promises: the token's seat promises (by defaults to
// it) something to `to`.
type PromiseBody struct {
	Promise string `json:"promise"`
	createFields
}

// RequestBody is POST /v1/requests: the token's seat (to defaults to it)
// asks `by` for a response, optionally typed by a JSON Schema.
type RequestBody struct {
	Promise  string          `json:"promise"`
	Schema   json.RawMessage `json:"schema,omitempty"`
	SchemaID string          `json:"schema_id,omitempty"`
	createFields
}

// ProposalBody is POST /v1/proposals: the token's seat, one of by and to,
// proposes terms. Proposer, when given, must name the token's side.
type ProposalBody struct {
	Terms    string `json:"terms"`
	Proposer string `json:"proposer,omitempty"`
	createFields
}

// The event bodies of POST /v1/obligations/{id}/events, chosen by "type".
// Rev, when given, is the revision the writer saw: a mismatch is a conflict
// and appends nothing (accept always names it).

// AmendBody moves the horizon.
type AmendBody struct {
	Type   string          `json:"type"`
	Until  string          `json:"until"`
	Reason string          `json:"reason,omitempty"`
	Meta   json.RawMessage `json:"meta,omitempty"`
	Rev    *int            `json:"rev,omitempty"`
}

// AcceptBody accepts an agreement's terms at the revision the writer saw.
type AcceptBody struct {
	Type string          `json:"type"`
	Rev  int             `json:"rev"`
	Meta json.RawMessage `json:"meta,omitempty"`
}

// ProgressBody reports the debtor's phase.
type ProgressBody struct {
	Type  string          `json:"type"`
	Phase pinki.Phase     `json:"phase"`
	Note  string          `json:"note,omitempty"`
	Meta  json.RawMessage `json:"meta,omitempty"`
	Rev   *int            `json:"rev,omitempty"`
}

// ResolveBody ends an obligation.
type ResolveBody struct {
	Type     string          `json:"type"`
	As       pinki.Outcome   `json:"as"`
	Evidence []string        `json:"evidence,omitempty"`
	Reason   string          `json:"reason,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
	SchemaID string          `json:"schema_id,omitempty"`
	Digest   string          `json:"digest,omitempty"`
	Meta     json.RawMessage `json:"meta,omitempty"`
	Rev      *int            `json:"rev,omitempty"`
}

// AssessBody records the token's seat's judgment.
type AssessBody struct {
	Type  string          `json:"type"`
	State string          `json:"state"`
	Note  string          `json:"note,omitempty"`
	Meta  json.RawMessage `json:"meta,omitempty"`
	Rev   *int            `json:"rev,omitempty"`
}

// BindBody binds the obligation to a verification target.
type BindBody struct {
	Type   string          `json:"type"`
	Target json.RawMessage `json:"target"`
	Meta   json.RawMessage `json:"meta,omitempty"`
	Rev    *int            `json:"rev,omitempty"`
}

// eventBodies maps each event type to a fresh body for it.
var eventBodies = map[string]func() any{
	"amend":    func() any { return new(AmendBody) },
	"accept":   func() any { return new(AcceptBody) },
	"progress": func() any { return new(ProgressBody) },
	"resolve":  func() any { return new(ResolveBody) },
	"assess":   func() any { return new(AssessBody) },
	"bind":     func() any { return new(BindBody) },
}

// EventsPage is GET /v1/events: events after a sequence number, and the
// sequence number to continue after.
type EventsPage struct {
	Events []ledger.EventRecord `json:"events"`
	Next   int64                `json:"next"`
}

// ImportResult is POST /v1/import's answer.
type ImportResult struct {
	Imported int `json:"imported"`
}

// WhoAmI is GET /v1/whoami: the identity the bearer token authenticates as.
type WhoAmI struct {
	Seat string     `json:"seat"`
	Role pinki.Role `json:"role"`
}

// Health is GET /healthz.
type Health struct {
	Status string `json:"status"`
}
