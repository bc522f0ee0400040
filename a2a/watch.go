package a2a

import (
	"context"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/ledger"
)

// Action is what a watch pass did about one obligation.
type Action string

// The actions.
const (
	// ActionResolved: the task was a verified delivery and the watcher resolved
	// the obligation satisfied with the artifact references as evidence.
	ActionResolved Action = "resolved"
	// ActionAssessed: the watcher published its assessment of the task.
	ActionAssessed Action = "assessed"
	// ActionUnchanged: what the task shows was already recorded: nothing appended.
	ActionUnchanged Action = "unchanged"
	// ActionPending: the task is still under way: nothing to record.
	ActionPending Action = "pending"
	// ActionError: the task could not be checked (no agent known for the seat, an
	// unreachable or malformed card, a failed call) or the ledger refused
	// the write; Error says which. Nothing was appended.
	ActionError Action = "error"
)

// WatchResult is one obligation's outcome in a pass.
type WatchResult struct {
	ID      string       `json:"id"`
	Task    string       `json:"task"`
	Debtor  string       `json:"debtor"`
	Action  Action       `json:"action"`
	Finding *Finding     `json:"finding,omitempty"`
	Error   *pinki.Error `json:"error,omitempty"`
}

// WatchReport is what one pass did, obligation by obligation in ledger order,
// with counts per action.
type WatchReport struct {
	Results   []WatchResult `json:"results"`
	Checked   int           `json:"checked"`
	Resolved  int           `json:"resolved"`
	Assessed  int           `json:"assessed"`
	Unchanged int           `json:"unchanged"`
	Pending   int           `json:"pending"`
	Errors    int           `json:"errors"`
}

func (r *WatchReport) add(res WatchResult) {
	r.Results = append(r.Results, res)
	r.Checked++
	switch res.Action {
	case ActionResolved:
		r.Resolved++
	case ActionAssessed:
		r.Assessed++
	case ActionUnchanged:
		r.Unchanged++
	case ActionPending:
		r.Pending++
	default:
		r.Errors++
	}
}

// Watch makes one pass: for every open obligation that names a task, it asks
// the debtor's agent for the task (Agents.CheckTask) and records what it saw
// as watcher, the verifier seat it writes as:
//
//   - TASK_STATE_COMPLETED with at least one artifact is a verified delivery:
//     resolve satisfied, by watcher, with one evidence reference per artifact;
//   - COMPLETED without an artifact, FAILED, REJECTED, CANCELED, and a task
//     the agent does not know are published as watcher's assessments (the
//     Assess* words), never as resolutions;
//   - a task still under way records nothing.
//
// Every write carries only what the agent said, so a second pass over
// unchanged tasks appends nothing (the service treats the repeats as
// idempotent) and reports them ActionUnchanged.
//
// watcher must name a seat; its Role should be pinki.RoleVerifier (a verifier
// may write satisfied on an obligation that names a task; another role is
// refused by the service and reported per obligation).
//
// Errors: CodeInvalid when watcher names no seat; the error of listing the
// ledger. A failure about one obligation (an unreachable agent, a refused
// write) is reported in its WatchResult and never stops the pass.
func Watch(ctx context.Context, api ledger.API, watcher pinki.Identity, agents *Agents) (WatchReport, error) {
	report := WatchReport{Results: []WatchResult{}}
	if !watcher.Known() {
		return report, pinki.Invalid("as", "the watcher writes as its own verifier seat: name it").
			WithHint("pinki a2a watch --as SEAT")
	}
	page, err := api.List(ctx, watcher, ledger.Filter{Scope: ledger.ScopeOpen})
	if err != nil {
		return report, err
	}
	// A seat whose agent cannot be reached is tried once per pass.
	unreachable := map[string]*pinki.Error{}
	for _, it := range page.Items {
		if it.Task == "" {
			continue
		}
		if err := ctx.Err(); err != nil {
			return report, pinki.AsError(err)
		}
		res := WatchResult{ID: it.ID, Task: it.Task, Debtor: it.By}
		if pe := unreachable[it.By]; pe != nil {
			res.Action, res.Error = ActionError, pe
			report.add(res)
			continue
		}
		f, err := agents.CheckTask(ctx, it.By, it.Task)
		if err != nil {
			pe := pinki.AsError(err)
			if pe.Field == "seat" || pe.Field == "card" {
				unreachable[it.By] = pe
			}
			res.Action, res.Error = ActionError, pe
			report.add(res)
			continue
		}
		res.Finding = &f
		res.Action, res.Error = record(ctx, api, watcher, it.ID, &f)
		report.add(res)
	}
	return report, nil
}

// record writes what a finding calls for.
func record(ctx context.Context, api ledger.API, watcher pinki.Identity, id string, f *Finding) (Action, *pinki.Error) {
	var rc ledger.Receipt
	var err error
	switch f.Verdict {
	case Delivered:
		rc, err = api.Resolve(ctx, watcher, ledger.ResolveInput{ID: id, As: pinki.Satisfied,
			Evidence: f.Evidence, Meta: f.meta()})
	case Assessed:
		rc, err = api.Assess(ctx, watcher, ledger.AssessInput{ID: id, State: f.State,
			Note: f.Note, Meta: f.meta()})
	default:
		return ActionPending, nil
	}
	switch {
	case err != nil:
		return ActionError, pinki.AsError(err)
	case rc.Idempotent:
		return ActionUnchanged, nil
	case f.Verdict == Delivered:
		return ActionResolved, nil
	}
	return ActionAssessed, nil
}

// Follow runs Watch every interval until ctx ends, handing each pass's
// report (or its error) to fn. A failed pass does not stop it. It returns
// nil when ctx ends.
//
// Errors: CodeInvalid for an interval under one second.
func Follow(ctx context.Context, api ledger.API, watcher pinki.Identity, agents *Agents, interval time.Duration, fn func(WatchReport, error)) error {
	if interval < time.Second {
		return pinki.Invalid("interval", "interval %s is under one second", interval)
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		rep, err := Watch(ctx, api, watcher, agents)
		if ctx.Err() != nil {
			return nil
		}
		if fn != nil {
			fn(rep, err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
