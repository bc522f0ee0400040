package a2a

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/pinki-ledger/pinki"
)

// The assessment words the watcher (the verify adapter for A2A tasks)
// publishes as its own seat, with `assess`, when a task it watches ended
// without a verified delivery. Each is an observation of the task,
// attributed to the watcher; none resolves anything: resolving stays the
// debtor's act.
const (
	// AssessNoArtifact: the task is TASK_STATE_COMPLETED with no artifact,
	// so there is nothing to verify ("done" that points at nothing).
	AssessNoArtifact = "task-completed-without-artifact"
	// AssessFailed: the task is TASK_STATE_FAILED.
	AssessFailed = "task-failed"
	// AssessRejected: the task is TASK_STATE_REJECTED.
	AssessRejected = "task-rejected"
	// AssessCanceled: the task is TASK_STATE_CANCELED.
	AssessCanceled = "task-canceled"
	// AssessUnknown: the debtor's agent says it does not know the task
	// (TaskNotFoundError: never existed, or purged).
	AssessUnknown = "task-unknown"
)

// Verdict is what one look at an obligation's task found.
type Verdict string

// The verdicts.
const (
	// Delivered: TASK_STATE_COMPLETED with at least one artifact, a verified
	// delivery: Finding.Evidence holds one reference per artifact.
	Delivered Verdict = "delivered"
	// Assessed: the task ended without a delivery, or is unknown:
	// Finding.State is the assessment word and Finding.Note says what was seen.
	Assessed Verdict = "assessed"
	// Pending: the task is still under way (submitted, working,
	// input-required, auth-required): nothing to record.
	Pending Verdict = "pending"
)

// Finding is the result of checking one task.
type Finding struct {
	Verdict   Verdict  `json:"verdict"`
	Task      string   `json:"task"`
	TaskState string   `json:"task_state,omitempty"` // the v1.0 wire name, "" when the task is unknown
	Agent     AgentRef `json:"agent"`
	Evidence  []string `json:"evidence,omitempty"`
	State     string   `json:"state,omitempty"`
	Note      string   `json:"note,omitempty"`
}

// maxStatusText bounds the agent's status text quoted in a note.
const maxStatusText = 300

// CheckTask looks at task taskID on debtor's agent once: the observation the
// A2A task verifier (verify.A2ATask) makes. Everything a Finding holds is
// derived from what the agent said, never from the clock, so that checking
// an unchanged task twice gives the same finding (and the watcher's writes
// stay idempotent).
//
// Errors: the errors of Agents.GetTask other than an unknown task (which is
// the finding AssessUnknown): a seat without an agent, an unreachable or
// malformed card, a failed call. Such an error means nothing was observed.
func (a *Agents) CheckTask(ctx context.Context, debtor, taskID string) (Finding, error) {
	task, ref, err := a.GetTask(ctx, debtor, taskID)
	f := Finding{Task: taskID, Agent: *ref}
	if err != nil {
		if pe, ok := err.(*pinki.Error); ok && pe.Code == pinki.CodeNotFound && pe.Field == "task" {
			f.Verdict, f.State = Assessed, AssessUnknown
			f.Note = "unknown to the agent at " + ref.Endpoint
			return f, nil
		}
		return f, err
	}
	return Classify(task, *ref), nil
}

// Classify classifies a task fetched from the agent ref: the mapping the
// watcher applies (docs/A2A.md, "The watcher"). Note says what was seen
// without repeating the task id: the state, the endpoint, what matters
// about it, then the agent's status text (one line, capped).
func Classify(task *sdk.Task, ref AgentRef) Finding {
	f := Finding{Task: string(task.ID), TaskState: task.Status.State.String(), Agent: ref}
	// seen says what the agent showed: the state, what about it matters,
	// then the agent's own status text. The task id is not repeated: a
	// report names it beside the note.
	seen := func(what string) string {
		s := fmt.Sprintf("%s on %s%s", task.Status.State, ref.Endpoint, what)
		if text := statusText(task); text != "" {
			s += ": " + text
		}
		return s
	}
	switch task.Status.State {
	case sdk.TaskStateCompleted:
		for _, art := range task.Artifacts {
			if art == nil || art.ID == "" {
				continue
			}
			f.Evidence = append(f.Evidence, ArtifactRef(ref.Endpoint, string(task.ID), string(art.ID)))
		}
		if len(f.Evidence) > 0 {
			f.Verdict = Delivered
			f.Note = seen(fmt.Sprintf(" with %d artifact(s)", len(f.Evidence)))
			return f
		}
		f.Verdict, f.State, f.Note = Assessed, AssessNoArtifact, seen(" with no artifact")
	case sdk.TaskStateFailed:
		f.Verdict, f.State, f.Note = Assessed, AssessFailed, seen("")
	case sdk.TaskStateRejected:
		f.Verdict, f.State, f.Note = Assessed, AssessRejected, seen("")
	case sdk.TaskStateCanceled:
		f.Verdict, f.State, f.Note = Assessed, AssessCanceled, seen("")
	default:
		f.Verdict, f.Note = Pending, seen("")
	}
	return f
}

// ArtifactRef is the evidence reference for one artifact of a task:
// a2a:<endpoint>/tasks/<task id>/artifacts/<artifact id>, ids path-escaped.
func ArtifactRef(endpoint, taskID, artifactID string) string {
	return "a2a:" + strings.TrimRight(endpoint, "/") + "/tasks/" + url.PathEscape(taskID) +
		"/artifacts/" + url.PathEscape(artifactID)
}

// statusText is the text of the task's status message, on one line and
// capped.
func statusText(task *sdk.Task) string {
	m := task.Status.Message
	if m == nil {
		return ""
	}
	var parts []string
	for _, p := range m.Parts {
		if p != nil && p.Text() != "" {
			parts = append(parts, p.Text())
		}
	}
	s := oneLine(strings.Join(parts, " "))
	if len(s) > maxStatusText {
		cut := maxStatusText
		for cut > 0 && !utf8Start(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
