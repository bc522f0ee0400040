package verify

import (
	"context"
	"encoding/json"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/a2a"
	"github.com/pinki-ledger/pinki/ledger"
)

// A2ATaskKind is the kind of the A2A task adapter's targets.
const A2ATaskKind = "a2a-task"

// A2ATask verifies obligations that name an A2A task (the record's task
// field) against the debtor's agent: `pinki a2a watch`. Each pass asks the
// agent for the task (a2a.Agents.CheckTask: the card found through the seat
// directory, GetTask with the extension in A2A-Extensions):
//
//   - TASK_STATE_COMPLETED with at least one artifact is a verified delivery:
//     satisfied, with one a2a:<endpoint>/tasks/<task>/artifacts/<artifact>
//     reference per artifact as evidence;
//   - COMPLETED without an artifact, FAILED, REJECTED, CANCELED, and a task
//     the agent does not know are the watcher's assessments (the a2a.Assess*
//     words), never resolutions;
//   - a task still under way records nothing.
//
// A card that cannot be fetched, or a call that fails, is an observation that
// did not happen (an error), never a verdict. The adapter keeps no memory:
// the agent holds the task's state.
type A2ATask struct {
	Agents *a2a.Agents
}

// a2aTaskSpec is the target an A2ATask builds from a record's task field.
type a2aTaskSpec struct {
	Kind string `json:"kind"`
	Seat string `json:"seat"`
	Task string `json:"task"`
}

// Kind implements Adapter.
func (A2ATask) Kind() string { return A2ATaskKind }

// Targets implements Adapter: one target when the record names a task, on
// the debtor's agent, keyed "task:" + the task id.
func (A2ATask) Targets(d *ledger.Detail) []Target {
	if d.Task == "" {
		return nil
	}
	spec, _ := json.Marshal(a2aTaskSpec{Kind: A2ATaskKind, Seat: d.By, Task: d.Task})
	return []Target{{Kind: A2ATaskKind, Key: "task:" + d.Task, Ref: "a2a-task:" + d.Task,
		Spec: spec, BoundAt: d.Created, BoundBy: d.By, Obligation: d.ID}}
}

// Observe implements Adapter.
//
// Errors: CodeInvalid for a target that is not an a2a-task spec; the errors
// of a2a.Agents.CheckTask (no agent known for the seat, an unreachable or
// malformed card, a failed call).
func (x A2ATask) Observe(ctx context.Context, t Target, _ Prior) (Observation, error) {
	var spec a2aTaskSpec
	if err := json.Unmarshal(t.Spec, &spec); err != nil || spec.Task == "" || spec.Seat == "" {
		return Observation{}, pinki.Invalid("target", "%s is not an a2a-task target", t.Ref)
	}
	agents := x.Agents
	if agents == nil {
		agents = &a2a.Agents{}
	}
	f, err := agents.CheckTask(ctx, spec.Seat, spec.Task)
	if err != nil {
		return Observation{}, err
	}
	switch f.Verdict {
	case a2a.Delivered:
		return Observation{Verdict: Deliver(f.Note, f.Evidence...)}, nil
	case a2a.Assessed:
		return Observation{Verdict: Judge(f.State, f.Note)}, nil
	}
	return Observation{Verdict: Wait(f.Note)}, nil
}
