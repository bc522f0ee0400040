package ledger

import (
	"context"
	"strings"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
)

// canRead reports whether who may read o: anyone locally (no role), parties,
// and observers, verifiers and admins.
func canRead(who pinki.Identity, o *fold.Obligation) bool {
	switch who.Role {
	case "", pinki.RoleObserver, pinki.RoleVerifier, pinki.RoleAdmin:
		return true
	}
	return o.Party(who.Seat)
}

// Query names what a read is about: one obligation (ID) or one seat (Seat),
// and the instant to compute states at (zero: the service clock).
type Query struct {
	ID   string
	Seat string
	Now  time.Time
}

// at is the instant a read computes states at.
func (s *Service) at(now time.Time) int64 {
	if now.IsZero() {
		return s.nowNanos()
	}
	return now.UnixNano()
}

// Get returns one obligation with its whole history.
//
// Errors: CodeNotFound when no line declares the id (or who may not read it:
// an obligation you cannot read is one you are not told exists).
func (s *Service) Get(ctx context.Context, who pinki.Identity, q Query) (Detail, error) {
	var d Detail
	id := strings.TrimSpace(q.ID)
	err := s.withLines(ctx, func(l *fold.Ledger, ls *lines) error {
		o := l.Get(id)
		if o == nil || !canRead(who, o) {
			return notFound(l, id)
		}
		history, ok := ls.history(o)
		if !ok {
			return errMissing
		}
		d = detail(l, o, l.At(s.at(q.Now)).Status(o), history)
		return nil
	})
	return d, err
}

// Scope selects obligations by openness when a Filter names no states.
type Scope int

// The scopes of a listing.
const (
	ScopeOpen    Scope = iota // proposed, conditional, detached, overdue
	ScopeOverdue              // overdue only
	ScopeAll                  // every state
)

// Filter selects obligations for List and Export. Zero fields select
// everything (within Scope).
type Filter struct {
	Scope  Scope
	States []fold.State // any of these; overrides Scope
	By     string       // debtor
	To     string       // creditor
	Party  string       // either party
	Kind   fold.Kind
	Since  int64 // created at or after (Unix nanoseconds); 0: no bound
	After  int64 // cursor: only obligations created after this sequence number
	Limit  int   // 0: no limit
	Now    time.Time
	// Bound selects the obligations a verifier can check: bound to a target
	// (bind) or naming an A2A task.
	Bound bool
	// Task selects the obligations naming this A2A task id.
	Task string
}

// matchRecord applies the filters that need no state, so that a listing
// computes states only for the obligations they leave.
func (f *Filter) matchRecord(o *fold.Obligation) bool {
	if f.By != "" && o.Record.By != f.By || f.To != "" && o.Record.To != f.To {
		return false
	}
	if f.Party != "" && !o.Party(f.Party) || f.Kind != 0 && o.Kind != f.Kind {
		return false
	}
	if f.Bound && len(o.Binds()) == 0 && o.Record.Task() == "" || f.Task != "" && o.Record.Task() != f.Task {
		return false
	}
	return (f.Since == 0 || o.Record.At >= f.Since) && o.Record.Seq > f.After
}

func (f *Filter) matchState(st fold.Status) bool {
	if len(f.States) > 0 {
		for _, s := range f.States {
			if s == st.State {
				return true
			}
		}
		return false
	}
	switch f.Scope {
	case ScopeOpen:
		return st.State.Open()
	case ScopeOverdue:
		return st.State == fold.Overdue
	}
	return true
}

// Page is a page of a listing. Next is the cursor for the following page, 0
// when this is the last.
type Page struct {
	Items []Item `json:"items"`
	Next  int64  `json:"next,omitempty"`
	// Total is how many obligations the ledger holds (readable by who),
	// whatever the filter; -1 when the page was answered from a seat's
	// cached view, which does not count the rest of the ledger.
	Total int `json:"total"`
}

// List returns the obligations who may read that match f, in ledger order.
//
// Errors: CodeInvalid for an unknown state name.
func (s *Service) List(ctx context.Context, who pinki.Identity, f Filter) (Page, error) {
	for _, st := range f.States {
		if !st.Valid() {
			return Page{}, pinki.Invalid("state", "unknown state %q: one of proposed, conditional, detached, overdue, satisfied, failed, cancelled, released, expired", st)
		}
	}
	var p Page
	answer := func(l *fold.Ledger) error {
		p = Page{Items: []Item{}, Total: readable(l, who)}
		ev := l.At(s.at(f.Now))
		for _, o := range f.candidates(l) {
			if !canRead(who, o) || !f.matchRecord(o) {
				continue
			}
			st := ev.Status(o)
			if !f.matchState(st) {
				continue
			}
			if f.Limit > 0 && len(p.Items) == f.Limit {
				p.Next = p.Items[len(p.Items)-1].Seq
				break
			}
			p.Items = append(p.Items, item(o, st))
		}
		return nil
	}
	seat := f.viewSeat()
	if done, err := s.fromView(ctx, seat, answer); done || err != nil {
		return p, err
	}
	if err := s.view(ctx, answer); err != nil {
		return p, err
	}
	s.saveView(seat)
	return p, nil
}

// readable is how many obligations who may read: for a seat, those it is a
// party to; for anyone else, all; -1 for a seat's view, which does not know.
func readable(l *fold.Ledger, who pinki.Identity) int {
	switch {
	case l.Total() < 0:
		return -1
	case who.Role == pinki.RoleSeat:
		return len(l.Of(who.Seat))
	}
	return l.Total()
}

// candidates narrows the obligations a filter can match to one seat's, when
// it names a seat, using the fold's index.
func (f *Filter) candidates(l *fold.Ledger) []*fold.Obligation {
	switch {
	case f.By != "":
		return l.Of(f.By)
	case f.To != "":
		return l.Of(f.To)
	case f.Party != "":
		return l.Of(f.Party)
	}
	return l.Obligations()
}

// viewSeat is the seat whose cached view can answer f, or "": a listing of
// one seat's open obligations.
func (f *Filter) viewSeat() string {
	seat := f.By
	if seat == "" {
		seat = f.To
	}
	if seat == "" {
		seat = f.Party
	}
	if len(f.States) > 0 {
		for _, st := range f.States {
			if !st.Open() {
				return ""
			}
		}
		return seat
	}
	if f.Scope == ScopeAll {
		return ""
	}
	return seat
}
