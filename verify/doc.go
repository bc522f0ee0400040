// Package verify is verified delivery: an obligation may be bound to a target
// that pinki checks itself, and only that check writes satisfied with the
// proof as evidence. Prose, "done", or a tool's plain success never satisfies
// anything: no adapter reads them.
//
// # Pieces
//
// An Adapter verifies one kind of target: it selects its targets from an
// unresolved obligation (its bindings of that kind, or a record field such as
// the A2A task id) and observes one target at a time, returning a Verdict:
//
//   - Pending: nothing to record yet;
//   - Delivered: verified delivery, with evidence references and a one-line
//     transition ("pending -> completed"); the Verifier resolves the obligation
//     satisfied, as its verifier seat, with that evidence and a meta
//     {"verify":{"kind","target","transition"}};
//   - Assessed: the watcher's attributed judgment (state word + note), recorded
//     with assess; never a resolution;
//   - Broken: the binding can never be satisfied (continuity lost, a malformed
//     target); recorded once as an assessment with state "unverifiable", and
//     never observed again, even if the state file is lost.
//
// A Verifier (New, RunOnce, Watch: `pinki verify [--watch]`) runs its adapters
// over every unresolved bound obligation through ledger.API. Re-running it
// records nothing already on record: resolved obligations are skipped, a
// repeated resolve or assessment is recognised, and the service's idempotency
// backs both. A late verified delivery is still a delivery: it satisfies an
// overdue obligation (the fold marks it late) and an expired proposal (SPEC
// allows a late satisfied after a proposal window). A delivery seen while an
// agreement is still proposed is kept and written once the service takes it:
// when both parties have accepted, or late when the window has passed. Under
// lapse: expire, an obligation past its horizon is no longer looked at.
//
// Todo is the todo-state adapter (BindTodo builds its targets). The A2A task
// adapter is one more file here: its Targets returns the obligation's `task`
// field (a Target of its own kind keyed "task:<id>", Spec naming the task and
// the debtor seat whose agent holds it), and its Observe fetches the task:
// TASK_STATE_COMPLETED with at least one artifact is Delivered (the artifact
// ids as evidence); COMPLETED without an artifact, FAILED, REJECTED, CANCELED
// or an unknown task is Assessed; a network failure is an error.
//
// # The state file
//
// What adapters remember between passes lives in one small JSON file the
// caller chooses (DefaultStatePath: .pinki/verify/state.json next to the
// ledger), written atomically (temporary file, fsync, rename) under an
// exclusive lock (state.json.lock), so passes take turns:
//
//	{
//	  "format": "pinki-verify-state/1",
//	  "since": "2026-09-01T17:00:00Z",
//	  "obligations": {
//	    "pnk_1a2b3c": {
//	      "bind:sha256:…": {
//	        "kind": "todo",
//	        "observed_at": "2026-09-01T17:05:00Z",
//	        "memory": {"status": "pending", "before": "sha256:…"}
//	      }
//	    }
//	  }
//	}
//
// "since" is when the file began. A target bound at or after it has been
// watched without a break, so its binding's snapshot is its first
// observation (Init starts the file early for that). Deleting the file
// re-baselines conservatively: the next pass starts a new file, every
// existing target is observed as if for the first time, and a todo item then
// seen completed does not count until it has been seen unfinished again.
// Nothing else is lost: a binding already found broken stays broken (its
// assessment is on the ledger), and a resolved obligation stays resolved.
// Entries of obligations that no longer need watching are dropped.
package verify
