package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/a2a"
	"github.com/pinki-ledger/pinki/verify"
)

// defaultVerifier is the seat a verifier writes as when --as is not given on
// the command line. $PINKI_SEAT is not used: it names an agent's own seat,
// and a verifier is a seat of its own.
const defaultVerifier = "pinki/verifier"

// defaultInterval is the time between two passes of a watch.
const defaultInterval = 5 * time.Second

func (a *app) verifyCommand() *cobra.Command {
	var watch bool
	var interval time.Duration
	cmd := &cobra.Command{
		Use:   "verify [--watch [--interval 5s]]",
		Short: "Check bound targets; write satisfied only for verified delivery",
		Long: `Make one pass over every unresolved obligation bound to a target (pinki bind,
or promise/propose --bind-todo) or naming an A2A task (--task, on the
debtor's agent: pinki seat set), observe each target once, and record what
is verified: satisfied with the proof as evidence when a todo item moved
from pending or in_progress to completed, or the task completed with an
artifact; an attributed assessment for anything else worth recording. Prose,
"done", or a tool's plain success never satisfy anything.

The verifier writes as --as, else as the seat pinki/verifier ($PINKI_SEAT is
not used: a verifier is a seat of its own), with the verifier role. It
remembers what it saw in .pinki/verify/state.json beside the ledger.
Re-running it records nothing already on record.

Prints one line per target: ID REF: VERDICT[: NOTE] [ACTION]. With --watch it
runs a pass every --interval until interrupted, printing a target's line
when it differs from the one printed before.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			adapters, err := a.verifyAdapters(true)
			if err != nil {
				return err
			}
			return a.runVerifier(adapters, a.statePath("state"), watch, interval, "is bound to a target")
		},
	}
	annotate(cmd, verifierAnnotation)
	cmd.Flags().BoolVar(&watch, "watch", false, "keep watching: a pass every --interval until interrupted")
	cmd.Flags().DurationVar(&interval, "interval", defaultInterval, "the time between two passes of --watch")
	return cmd
}

// a2aWatchCommand is `pinki a2a watch`: the verifier with only the A2A task
// adapter.
func (a *app) a2aWatchCommand() *cobra.Command {
	var follow bool
	var interval time.Duration
	cmd := &cobra.Command{
		Use:   "watch [--follow [--interval 5s]]",
		Short: "Check the A2A tasks obligations name; satisfied only for a completed task with an artifact",
		Long: `Make one pass over every unresolved obligation that names an A2A task
(--task), asking the debtor's agent for the task (the seat's card: an
https:// seat is its own agent's base, any other needs pinki seat set).
TASK_STATE_COMPLETED with at least one artifact resolves the obligation
satisfied, the artifacts as evidence; completed without an artifact,
failed, rejected, canceled or an unknown task are recorded as the watcher's
assessments, never as resolutions; a task under way records nothing.

It writes as --as, else as pinki/verifier, like pinki verify, and keeps its
own state file (.pinki/verify/a2a-state.json). Prints one line per task;
--follow runs a pass every --interval until interrupted.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			adapters, err := a.verifyAdapters(false)
			if err != nil {
				return err
			}
			// Its own state file: a verifier forgets the memory of targets its
			// adapters do not select, so sharing pinki verify's would erase the
			// todo adapter's.
			return a.runVerifier(adapters, a.statePath("a2a-state"), follow, interval, "names an A2A task")
		},
	}
	annotate(cmd, verifierAnnotation)
	writeVerb(cmd)
	cmd.Flags().BoolVar(&follow, "follow", false, "keep watching: a pass every --interval until interrupted")
	cmd.Flags().DurationVar(&interval, "interval", defaultInterval, "the time between two passes of --follow")
	return cmd
}

// verifyAdapters returns the adapters of a pass: the todo adapter (when todo
// is set) and the A2A task adapter, which finds agents through the seat map
// beside the ledger.
//
// Errors: those of a2a.OpenDirectory.
func (a *app) verifyAdapters(todo bool) ([]verify.Adapter, error) {
	if _, err := a.api(); err != nil {
		return nil, err
	}
	dir, err := a.directory()
	if err != nil {
		return nil, err
	}
	task := verify.A2ATask{Agents: &a2a.Agents{Directory: dir, HTTP: a.httpClient}}
	if !todo {
		return []verify.Adapter{task}, nil
	}
	return []verify.Adapter{verify.Todo{}, task}, nil
}

// verifierSeat is who a verifier writes as: --as given on the command line,
// else defaultVerifier, with the verifier role. Against a server it is the
// token's identity (--as, when given, was checked to be its seat); a token
// without the verifier role is warned about, since the server then refuses
// its verified deliveries on other seats' obligations.
//
// Errors: those of asking the server who the token is.
func (a *app) verifierSeat() (pinki.Identity, error) {
	if a.at == onServer {
		who, err := a.whoAmI()
		if err == nil && who.Role != pinki.RoleVerifier {
			a.warn("the token is bound to %s with the role %s, not verifier: the server refuses its satisfied on other seats' bound obligations (`pinki token add --seat %s --role verifier`)",
				who.Seat, who.Role, who.Seat)
		}
		return who, err
	}
	seat := strings.TrimSpace(a.asFlag)
	if seat == "" {
		seat = defaultVerifier
	}
	return pinki.Identity{Seat: seat, Role: pinki.RoleVerifier}, nil
}

// runVerifier runs one pass and prints it, or with watch a pass every
// interval until interrupted, printing what changed. watched says, for the
// note of an empty pass, what the adapters look at.
//
// Errors: CodeInvalid for an interval that is not positive; the errors of
// verify.New and of a single pass (RunOnce). A failed pass of a watch is a
// warning, and the watch goes on.
func (a *app) runVerifier(adapters []verify.Adapter, state string, watch bool, interval time.Duration, watched string) error {
	api, err := a.api()
	if err != nil {
		return err
	}
	if watch && interval <= 0 {
		return &pinki.Error{Code: pinki.CodeInvalid, Field: "interval",
			Message: fmt.Sprintf("--interval %s: the time between two passes must be positive", interval)}
	}
	clock := time.Now
	if a.fixed {
		clock = a.clock()
	}
	as, err := a.verifierSeat()
	if err != nil {
		return err
	}
	shown := map[string]string{} // target -> the line printed last
	cfg := verify.Config{API: api, As: as, StatePath: state, Adapters: adapters, Clock: clock,
		OnPass: func(rep verify.Report, err error) {
			if err != nil {
				a.warn("a pass failed, the next one tries again: %s", pinki.AsError(err).Message)
			}
			a.printPass(rep, shown)
		}}
	v, err := verify.New(cfg)
	if err != nil {
		return err
	}
	if watch {
		ctx, stop := a.interruptible()
		defer stop()
		return v.Watch(ctx, interval)
	}
	rep, err := v.RunOnce(a.ctx)
	if err != nil {
		// What the pass did before it failed is on the ledger: say so, on
		// stderr (nothing on stdout on error).
		for _, r := range rep.Results {
			a.note("%s", r)
		}
		return err
	}
	if a.jsonOut {
		return a.printJSON(rep)
	}
	if len(rep.Results) == 0 {
		a.note("nothing to verify: no unresolved obligation in %s %s", a.where(), watched)
		return nil
	}
	a.printPass(rep, nil)
	if n := rep.Appended(); n > 0 {
		a.note("recorded %d event(s) in %s", n, a.where())
	}
	return nil
}

// printPass prints a pass: its report as one JSON line with --json, else one
// line per target. With shown (a watch), only the lines that differ from
// the last one printed for their target.
func (a *app) printPass(rep verify.Report, shown map[string]string) {
	if a.jsonOut {
		if line, err := compactJSON(rep); err == nil {
			a.stdout.Write(line)
		}
		return
	}
	var b strings.Builder
	for _, r := range rep.Results {
		line := r.String()
		if shown != nil {
			key := r.ID + "\x00" + r.Target
			if shown[key] == line {
				continue
			}
			shown[key] = line
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	a.stdout.Write([]byte(b.String()))
}
