package verify

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/pinki-ledger/pinki/jcs"
	"github.com/pinki-ledger/pinki/ledger"
)

// Adapter verifies one kind of target. An adapter is stateless between
// calls: whatever it must remember of a target between observations it
// returns as Observation.Memory, and the Verifier keeps it in the state file
// and hands it back as Prior.Memory.
//
// A new kind of verified delivery (the A2A task adapter) is one more
// implementation of this interface, registered with Config.Adapters.
type Adapter interface {
	// Kind names the targets this adapter verifies ("todo"). It is unique
	// among a Verifier's adapters and is the kind recorded in the state file.
	Kind() string

	// Targets selects, from one unresolved obligation, the targets this
	// adapter verifies: its bindings whose target "kind" is Kind() (see
	// Bindings), or a field of its record (the A2A adapter: the task id
	// on the debtor's agent). It returns nil when there are none. It must be
	// pure: no I/O. The Verifier offers it only bound obligations (a bind,
	// or a task: ledger.Filter.Bound); an adapter selecting by anything else
	// sees none.
	Targets(d *ledger.Detail) []Target

	// Observe looks at a target once and returns the verdict with the memory
	// to keep for next time.
	//
	// Errors: an error means that this observation did not happen (a file
	// that is missing or malformed, a server that does not answer): the
	// Verifier reports it, keeps the prior memory unchanged and tries again
	// on its next pass. An adapter must never turn such a transient failure
	// into a Broken verdict.
	Observe(ctx context.Context, t Target, p Prior) (Observation, error)
}

// Target is one thing an obligation is bound to, as an adapter selected it.
type Target struct {
	// Kind is the adapter's Kind.
	Kind string `json:"kind"`
	// Key identifies the target within its obligation, stably across passes:
	// the Verifier files the adapter's memory under it. Bindings uses
	// "bind:" + the digest of the canonical target object.
	Key string `json:"key"`
	// Ref is a short human-readable name for reports ("todo:/abs/todos.json#Water the plants").
	Ref string `json:"ref"`
	// Spec is the bound target object as the ledger holds it, or for a target
	// taken from a record field, an object the adapter builds.
	Spec json.RawMessage `json:"spec"`
	// BoundAt is the ts of the bind event (of the creation, for a record
	// field); BoundBy is who wrote it.
	BoundAt string `json:"bound_at"`
	BoundBy string `json:"bound_by,omitempty"`
	// Obligation is the id of the obligation the target belongs to.
	Obligation string `json:"obligation"`
}

// Prior is what the Verifier knows of a target before it observes it.
type Prior struct {
	// Memory is the memory the adapter returned from its last observation of
	// this target, or nil when none is on record.
	Memory json.RawMessage
	// Continuous reports that the Verifier's state file has been kept without
	// a break since before the target was bound. With Memory nil, it means
	// the target has simply not been observed yet, so the binding itself (its
	// snapshot) may serve as the first observation. When Continuous is false
	// and Memory is nil, the observations since the binding are unknown (a
	// first pass over older bindings, or a deleted state file) and the adapter
	// must re-baseline conservatively: this observation is the first one.
	Continuous bool
}

// Observation is the outcome of one Observe.
type Observation struct {
	Verdict Verdict
	// Memory is what the adapter wants back as Prior.Memory next time; nil
	// forgets the target (the next Prior has no memory).
	Memory json.RawMessage
}

// VerdictKind is the class of a verdict.
type VerdictKind string

// The verdict kinds.
const (
	// Pending: nothing to record yet (the target is not delivered).
	Pending VerdictKind = "pending"
	// Delivered: verified delivery. The Verifier resolves the obligation as
	// satisfied with the verdict's evidence.
	Delivered VerdictKind = "delivered"
	// Assessed: the watcher's attributed judgment (State, Note), recorded
	// with `assess`; it never resolves anything.
	Assessed VerdictKind = "assessed"
	// Broken: this binding can never be satisfied (continuity lost, a
	// malformed target). The Verifier records it once as an assessment with
	// state "unverifiable" and observes the target no more.
	Broken VerdictKind = "broken"
)

// Verdict is what an observation found.
type Verdict struct {
	Kind VerdictKind `json:"kind"`
	// Evidence is set on Delivered: one or more references (paths, digests,
	// artifact ids) that a reader can check.
	Evidence []string `json:"evidence,omitempty"`
	// Transition is set on Delivered: one line saying what changed, such as
	// "pending -> completed".
	Transition string `json:"transition,omitempty"`
	// State is set on Assessed: one word (violated, disputed, failed, …).
	State string `json:"state,omitempty"`
	// Note is one line for people: what was seen.
	Note string `json:"note,omitempty"`
}

// Wait returns a Pending verdict with a note.
func Wait(note string) Verdict { return Verdict{Kind: Pending, Note: note} }

// Deliver returns a Delivered verdict.
func Deliver(transition string, evidence ...string) Verdict {
	return Verdict{Kind: Delivered, Transition: transition, Evidence: evidence}
}

// Judge returns an Assessed verdict: state is one word, note one line.
func Judge(state, note string) Verdict { return Verdict{Kind: Assessed, State: state, Note: note} }

// Break returns a Broken verdict saying why the binding can never be
// satisfied.
func Break(note string) Verdict { return Verdict{Kind: Broken, Note: note} }

// Bindings returns the targets of d's bindings whose target object has
// "kind" equal to kind, in ledger order, one per distinct target object (a
// binding repeated with the same object is one target). Adapters that verify
// bound targets call it from Targets; ref names each for reports (nil: the
// key).
func Bindings(d *ledger.Detail, kind string, ref func(spec json.RawMessage) string) []Target {
	var out []Target
	seen := map[string]bool{}
	for _, b := range d.Bindings {
		var head struct {
			Kind string `json:"kind"`
		}
		if json.Unmarshal(b.Target, &head) != nil || head.Kind != kind {
			continue
		}
		key := "bind:" + digestJSON(b.Target)
		if seen[key] {
			continue
		}
		seen[key] = true
		t := Target{Kind: kind, Key: key, Ref: key, Spec: b.Target, BoundAt: b.TS, BoundBy: b.By, Obligation: d.ID}
		if ref != nil {
			t.Ref = ref(b.Target)
		}
		out = append(out, t)
	}
	return out
}

// digestJSON is "sha256:" + hex of the canonical form of a JSON value (of its
// bytes when it is not valid JSON), so that a target keeps its key whatever
// surface carried it.
func digestJSON(raw json.RawMessage) string {
	b, err := jcs.Canonicalize(raw)
	if err != nil {
		b = raw
	}
	return digest(b)
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// oneLine flattens s to one line for notes and reports.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
