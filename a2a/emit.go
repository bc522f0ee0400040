// Package a2a binds pinki to A2A v1.0 (SPEC §6): the AgentCard extension
// entry that declares the promise extension, and the projection of an
// obligation onto a v1.0 Task with the record in its metadata. It emits plain
// JSON with the v1.0 wire names (camelCase fields, SCREAMING_SNAKE enums); it
// makes no network calls.
package a2a

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

// ExtensionURI identifies the promise extension (interoperates with pinki).
const ExtensionURI = "https://github.com/azigler/pinki/ext/promise/v0"

// MetadataKey is the Task metadata key that holds the record.
const MetadataKey = ExtensionURI + "/promise"

// cardDescription is the extension's description on the card, as pinki
// writes it.
const cardDescription = "Promises made by this card's subject: deadline, evidence on satisfaction, reason on abandonment."

// CardFragment is the part of an AgentCard that declares the extension.
type CardFragment struct {
	Capabilities Capabilities `json:"capabilities"`
}

// Capabilities is AgentCapabilities, with only the extensions.
type Capabilities struct {
	Extensions []Extension `json:"extensions"`
}

// Extension is an AgentExtension entry.
type Extension struct {
	URI         string         `json:"uri"`
	Description string         `json:"description"`
	Required    bool           `json:"required"`
	Params      map[string]any `json:"params"`
}

// Card returns the AgentCard fragment declaring the promise extension. It
// never fails.
func Card() CardFragment {
	return CardFragment{Capabilities: Capabilities{Extensions: []Extension{{
		URI: ExtensionURI, Description: cardDescription, Required: false, Params: map[string]any{},
	}}}}
}

// The v1.0 task states pinki maps to.
const (
	StateSubmitted     = "TASK_STATE_SUBMITTED"
	StateWorking       = "TASK_STATE_WORKING"
	StateCompleted     = "TASK_STATE_COMPLETED"
	StateFailed        = "TASK_STATE_FAILED"
	StateCanceled      = "TASK_STATE_CANCELED"
	StateInputRequired = "TASK_STATE_INPUT_REQUIRED"
	StateRejected      = "TASK_STATE_REJECTED"
)

// RoleAgent is the role of every status message pinki writes.
const RoleAgent = "ROLE_AGENT"

// TaskObject is a v1.0 Task.
type TaskObject struct {
	ID        string            `json:"id"`
	ContextID string            `json:"contextId"`
	Status    TaskStatus        `json:"status"`
	Artifacts []Artifact        `json:"artifacts,omitempty"`
	Metadata  map[string]Record `json:"metadata"`
}

// TaskStatus is a v1.0 TaskStatus.
type TaskStatus struct {
	State     string   `json:"state"`
	Message   *Message `json:"message,omitempty"`
	Timestamp string   `json:"timestamp,omitempty"`
}

// Message is a v1.0 Message.
type Message struct {
	MessageID string `json:"messageId"`
	ContextID string `json:"contextId,omitempty"`
	TaskID    string `json:"taskId,omitempty"`
	Role      string `json:"role"`
	Parts     []Part `json:"parts"`
}

// Artifact is a v1.0 Artifact.
type Artifact struct {
	ArtifactID string `json:"artifactId"`
	Name       string `json:"name,omitempty"`
	Parts      []Part `json:"parts"`
}

// Part is a v1.0 Part holding text or data: exactly one of the two is set.
type Part struct {
	Text      string          `json:"text,omitempty"`
	Data      json.RawMessage `json:"data,omitempty"`
	MediaType string          `json:"mediaType,omitempty"`
}

// Record is the promise record carried in the Task metadata under
// MetadataKey, in pinki's key order; Until is the current horizon.
type Record struct {
	ID      string          `json:"id"`
	Promise string          `json:"promise"`
	By      string          `json:"by"`
	To      string          `json:"to"`
	On      string          `json:"on,omitempty"`
	Until   string          `json:"until"`
	Task    string          `json:"task,omitempty"`
	Meta    json.RawMessage `json:"meta,omitempty"`
}

// RecordOf returns the record of an obligation as the extension carries it.
func RecordOf(it ledger.Item) Record {
	return Record{ID: it.ID, Promise: it.Promise, By: it.By, To: it.To, On: it.On, Until: it.Until, Task: it.Task, Meta: it.Meta}
}

// Task projects an obligation onto a v1.0 Task: its id is the obligation's
// task field when set, else the obligation id; its state follows the
// obligation's (SPEC §6):
//
//	proposed            TASK_STATE_INPUT_REQUIRED
//	conditional         TASK_STATE_SUBMITTED
//	detached, overdue   TASK_STATE_WORKING (overdue maps to nothing of its own)
//	satisfied           TASK_STATE_COMPLETED, one artifact per evidence reference,
//	                    and the response as a data part
//	failed              TASK_STATE_FAILED, the reason in status.message
//	cancelled           TASK_STATE_REJECTED, the reason in status.message
//	released            TASK_STATE_CANCELED, naming the creditor
//	expired             TASK_STATE_FAILED, a message starting "expired"
//
// The record rides in metadata under MetadataKey. It never fails.
func Task(d ledger.Detail) TaskObject {
	id := d.ID
	if d.Task != "" {
		id = d.Task
	}
	t := TaskObject{ID: id, ContextID: d.ID, Metadata: map[string]Record{MetadataKey: RecordOf(d.Item)}}
	msg := func(text string) *Message {
		return &Message{MessageID: d.ID + "/status", ContextID: d.ID, TaskID: id, Role: RoleAgent, Parts: []Part{{Text: text}}}
	}
	r := d.Resolution
	if r != nil {
		t.Status.Timestamp = r.TS
	}
	switch d.State {
	case fold.Proposed:
		t.Status.State = StateInputRequired
		t.Status.Message = msg(awaiting(d))
	case fold.Conditional:
		t.Status.State = StateSubmitted
		t.Status.Message = msg("waits on " + d.On + ": owed once it is satisfied")
	case fold.Detached, fold.Overdue:
		t.Status.State = StateWorking
	case fold.Satisfied:
		t.Status.State = StateCompleted
		if r != nil {
			for i, ref := range r.Evidence {
				t.Artifacts = append(t.Artifacts, Artifact{ArtifactID: fmt.Sprintf("%s/evidence/%d", d.ID, i+1),
					Name: "evidence", Parts: []Part{{Text: ref}}})
			}
			if len(r.Response) > 0 {
				t.Artifacts = append(t.Artifacts, Artifact{ArtifactID: d.ID + "/response",
					Name: "response", Parts: []Part{{Data: r.Response, MediaType: "application/json"}}})
			}
		}
	case fold.Failed:
		t.Status.State = StateFailed
		t.Status.Message = msg(reason(r, "failed"))
	case fold.Cancelled:
		t.Status.State = StateRejected
		t.Status.Message = msg(reason(r, "cancelled"))
	case fold.Released:
		t.Status.State = StateCanceled
		text := "released by the creditor " + d.To
		if r != nil && r.Reason != "" {
			text += ": " + r.Reason
		}
		t.Status.Message = msg(text)
	case fold.Expired:
		t.Status.State = StateFailed
		t.Status.Message = msg(expiry(d))
	}
	return t
}

func reason(r *ledger.ResolutionView, as string) string {
	if r == nil || r.Reason == "" {
		return as
	}
	return r.Reason
}

// awaiting names who has yet to accept a proposal.
func awaiting(d ledger.Detail) string {
	var waiting []string
	for _, p := range []string{d.By, d.To} {
		accepted := false
		for _, a := range d.Accepted {
			accepted = accepted || a == p
		}
		if !accepted && (len(waiting) == 0 || waiting[0] != p) {
			waiting = append(waiting, p)
		}
	}
	return "proposed terms await acceptance by " + strings.Join(waiting, " and ")
}

// expiry says why an obligation expired.
func expiry(d ledger.Detail) string {
	switch {
	case d.Kind == fold.KindAgreement.String() && !agreed(d):
		return "expired: the proposal's window closed at " + d.Until + " before both parties accepted"
	case d.Lapse == pinki.LapseExpire:
		return "expired: unresolved at its horizon " + d.Until + " (lapse: expire)"
	case d.On != "":
		return "expired: its antecedent " + d.On + " ended unsatisfied"
	}
	return "expired"
}

// agreed reports whether both parties accepted the current terms.
func agreed(d ledger.Detail) bool {
	by, to := false, false
	for _, a := range d.Accepted {
		by = by || a == d.By
		to = to || a == d.To
	}
	return by && to
}
