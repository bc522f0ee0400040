package fold

import "github.com/pinki-ledger/pinki"

// Subset returns a seat's view of the ledger: the unresolved obligations the
// seat is a party to, with every antecedent their state depends on. It
// answers questions about the seat's open obligations exactly as the whole
// ledger does, at any now, for a fraction of the size; the service caches it
// so that `ls --open --by S` on a large ledger reads a few kilobytes.
//
// The view shares its obligations with l: encode it (Snapshot) before l folds
// anything more. A view goes on folding the lines appended after it: events about its
// obligations, and new obligations of the seat. When a line needs something
// the view left out (a new obligation waiting on an antecedent it does not
// hold), the view is Incomplete and must not be used.
func (l *Ledger) Subset(seat string) *Ledger {
	v := New()
	v.seat, v.pos = seat, l.pos
	v.declared = newDeclaredIDs(len(l.order))
	for _, o := range l.order {
		v.declared.add(o.Record.ID)
	}
	v.unknown = append(v.unknown, l.unknown...) // a reader reports them whatever it answers from
	v.wanted = map[string]bool{}
	add := func(o *Obligation) bool {
		if v.obs[o.Record.ID] != nil {
			return false
		}
		v.obs[o.Record.ID] = o
		return true
	}
	for _, o := range l.order {
		if o.Resolution != nil || !o.Party(seat) || !add(o) {
			continue
		}
		// Its antecedents, up to the first resolved one (whose state needs
		// nothing more) or one already held.
		for cur := o; cur.Record.On != ""; {
			ant := l.obs[cur.Record.On]
			if ant == nil {
				v.wanted[cur.Record.On] = true
				break
			}
			if !add(ant) || ant.Resolution != nil {
				break
			}
			cur = ant
		}
	}
	// Keep ledger order.
	for _, o := range l.order {
		if v.obs[o.Record.ID] == o {
			v.order = append(v.order, o)
			v.index(o.Record.By, o)
			if o.Record.To != o.Record.By {
				v.index(o.Record.To, o)
			}
		}
	}
	return v
}

// Seat is the seat a view was made for, "" for a whole ledger.
func (l *Ledger) Seat() string { return l.seat }

// Incomplete reports whether a view met a line it could not fold without the
// whole ledger.
func (l *Ledger) Incomplete() bool { return l.incomplete }

// Total is the number of obligations in the ledger, or -1 for a view (which
// does not know it).
func (l *Ledger) Total() int {
	if l.seat != "" {
		return -1
	}
	return len(l.order)
}

// viewWants decides whether a view folds e: events about what it holds, and
// new obligations of its seat or that one of its obligations waits on.
func (l *Ledger) viewWants(e *pinki.Event) bool {
	if !e.Type.Creates() {
		return l.obs[e.Subject] != nil
	}
	if l.obs[e.ID] != nil {
		return true // a second declaration: the fold ignores it, as the whole ledger does
	}
	declared := l.declared.mayHold(e.ID)
	l.declared.add(e.ID)
	if !l.wanted[e.ID] && e.By != l.seat && e.To != l.seat {
		return false
	}
	delete(l.wanted, e.ID)
	if declared {
		// The ledger may hold this id among what the view left out: then
		// the whole fold ignores this declaration, and the view cannot tell.
		l.incomplete = true
	}
	if e.On != "" && l.obs[e.On] == nil {
		// Whether its antecedent exists, and how it stands, is beyond the view.
		l.incomplete = true
	}
	return true
}
