package fold

import (
	"strconv"

	"github.com/pinki-ledger/pinki"
)

// State is a computed state (SPEC §2).
type State string

// The computed states.
const (
	Proposed    State = "proposed"
	Conditional State = "conditional"
	Detached    State = "detached"
	Overdue     State = "overdue"
	Satisfied   State = "satisfied"
	Failed      State = "failed"
	Cancelled   State = "cancelled"
	Released    State = "released"
	Expired     State = "expired"
)

// States lists every state, open ones first, in lifecycle order.
var States = []State{Proposed, Conditional, Detached, Overdue, Satisfied, Failed, Cancelled, Released, Expired}

// Open reports whether s is an open state.
func (s State) Open() bool {
	return s == Proposed || s == Conditional || s == Detached || s == Overdue
}

// Owed reports whether s is an owed open state: detached or overdue.
func (s State) Owed() bool { return s == Detached || s == Overdue }

// Valid reports whether s names a state.
func (s State) Valid() bool {
	for _, v := range States {
		if v == s {
			return true
		}
	}
	return false
}

// Status is an obligation's computed state at a given now.
type Status struct {
	State State
	// Late is set on a satisfied obligation resolved after its horizon, or
	// after it had expired (its antecedent ended unsatisfied first).
	Late bool
	// Phase is set on owed (detached, overdue) obligations.
	Phase pinki.Phase
	// EndedAt is when an ended obligation ended (Unix nanoseconds): its
	// resolution's ts, or the instant it expired.
	EndedAt int64
}

// Evaluator computes statuses at one now, remembering each answer so that a
// whole listing costs one visit per obligation. It is not safe for concurrent
// use; the Ledger it reads must not change while it is used.
type Evaluator struct {
	l    *Ledger
	now  int64
	memo map[*Obligation]Status
}

// At returns an Evaluator for now (Unix nanoseconds).
func (l *Ledger) At(now int64) *Evaluator {
	return &Evaluator{l: l, now: now, memo: make(map[*Obligation]Status)}
}

// visiting marks an obligation on the current antecedent walk.
const visiting State = "\x00visiting"

// Status returns o's status. Antecedent chains are walked iteratively, so any
// depth is fine; a cycle leaves its unresolved members conditional.
//
// The state is computed first, from resolutions and antecedents' states only;
// the late flag of an obligation satisfied in time then looks at its
// antecedent's state. Keeping the two apart makes every answer independent of
// the order in which obligations are evaluated (a resolved member of a cycle
// breaks the cycle: its state never depends on its antecedent).
func (ev *Evaluator) Status(o *Obligation) Status {
	s := ev.state(o)
	if s.State == Satisfied && !s.Late && o.Record.On != "" {
		// Satisfied in time: late only if the antecedent had already ended
		// unsatisfied when it was resolved.
		if ant := ev.l.obs[o.Record.On]; ant != nil {
			a := ev.state(ant)
			if endedUnsatisfied(a.State) && a.EndedAt < s.EndedAt {
				s.Late = true
			}
		}
	}
	return s
}

// state computes o's status without the antecedent part of the late flag,
// remembering the answer for o and every obligation on its antecedent walk.
func (ev *Evaluator) state(o *Obligation) Status {
	if s, ok := ev.memo[o]; ok && s.State != visiting {
		return s
	}
	var path []*Obligation
	cur := o
	for {
		if s, ok := ev.memo[cur]; ok {
			if s.State == visiting {
				// A cycle of unresolved obligations: cur is on the path.
				ev.memo[cur] = waiting(cur)
			}
			break
		}
		if s, done := ev.base(cur); done {
			ev.memo[cur] = s
			break
		}
		ant := ev.l.obs[cur.Record.On]
		if ant == nil {
			ev.memo[cur] = waiting(cur)
			break
		}
		ev.memo[cur] = Status{State: visiting}
		path = append(path, cur)
		cur = ant
	}
	for i := len(path) - 1; i >= 0; i-- {
		n := path[i]
		if s := ev.memo[n]; s.State != visiting {
			continue // settled as a cycle member
		}
		ev.memo[n] = ev.settle(n, ev.memo[ev.l.obs[n.Record.On]])
	}
	return ev.memo[o]
}

// base settles o when its antecedent cannot matter. It reports done=false when
// the antecedent's state is needed: for an unresolved, agreed obligation with
// `on`.
func (ev *Evaluator) base(o *Obligation) (Status, bool) {
	horizon := o.horizonAt()
	if r := o.Resolution; r != nil {
		s := Status{State: State(r.As), EndedAt: r.At}
		if r.As == pinki.Satisfied {
			s.Late = r.At > r.HorizonAt
		}
		return s, true
	}
	if o.Record.Lapse() == pinki.LapseExpire && ev.now > horizon {
		return Status{State: Expired, EndedAt: horizon}, true
	}
	if !o.Agreed() {
		if ev.now > horizon {
			return Status{State: Expired, EndedAt: horizon}, true
		}
		if o.Record.On == "" {
			return Status{State: Proposed}, true
		}
		return Status{}, false // proposed, unless its antecedent already ended unsatisfied
	}
	if o.Record.On == "" {
		return ev.owed(o, horizon), true
	}
	return Status{}, false
}

// waiting is the state of an unresolved obligation whose antecedent is not
// settled (unknown, in a cycle, or open): proposed while its terms await
// acceptance, else conditional.
func waiting(o *Obligation) Status {
	if !o.Agreed() {
		return Status{State: Proposed}
	}
	return Status{State: Conditional}
}

// settle computes the status of o, unresolved and waiting on an antecedent,
// from the antecedent's status.
//
// An antecedent that ended unsatisfied expires it, agreed or not (a proposal
// waiting on it can no longer become owed); a satisfied one makes an agreed
// obligation owed and leaves a proposal proposed.
func (ev *Evaluator) settle(o *Obligation, ant Status) Status {
	switch {
	case endedUnsatisfied(ant.State):
		return Status{State: Expired, EndedAt: ant.EndedAt}
	case ant.State == Satisfied && o.Agreed():
		return ev.owed(o, o.horizonAt())
	default:
		return waiting(o)
	}
}

func endedUnsatisfied(s State) bool {
	return s == Failed || s == Cancelled || s == Released || s == Expired
}

func (ev *Evaluator) owed(o *Obligation, horizon int64) Status {
	s := Status{State: Detached, Phase: o.phase()}
	if ev.now > horizon {
		s.State = Overdue
	}
	return s
}

func (o *Obligation) horizonAt() int64 {
	_, at := o.Horizon()
	return at
}

// phase is the phase of an owed obligation: the latest progress, else
// "requested" for a request, else "acknowledged".
func (o *Obligation) phase() pinki.Phase {
	if o.lastPhase != "" {
		return o.lastPhase
	}
	if o.Kind == KindRequest {
		return pinki.PhaseRequested
	}
	return pinki.PhaseAcknowledged
}

func quote(s string) string { return strconv.Quote(s) }
func itoa(n int) string     { return strconv.Itoa(n) }
