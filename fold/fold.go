// Package fold computes the state of every obligation from a ledger's events
// and a `now` (SPEC §2). It is pure: no I/O, no clock, no randomness. A Ledger
// is built incrementally with Apply, one event at a time in ledger order, and
// queried with At(now).
//
// The fold never refuses an event: a line that breaks a rule (a second
// resolve, an accept of a stale revision, an event naming an unknown id) is
// recorded as ignored, with the reason, so that `pinki check` can report it.
// The rules that refuse such writes before they reach a ledger live in package
// ledger.
package fold

import (
	"hash/maphash"
	"strings"
	"sync/atomic"

	"github.com/pinki-ledger/pinki"
)

// Kind is the kind of obligation, fixed by its creation event.
type Kind uint8

// The three kinds of obligation (SPEC §0).
const (
	KindPromise Kind = iota + 1
	KindRequest
	KindAgreement
)

func (k Kind) String() string {
	switch k {
	case KindPromise:
		return "promise"
	case KindRequest:
		return "request"
	case KindAgreement:
		return "agreement"
	}
	return "unknown"
}

// KindOf returns the kind an event type creates, or 0.
func KindOf(t pinki.Type) Kind {
	switch t {
	case pinki.TypePromise:
		return KindPromise
	case pinki.TypeRequest:
		return KindRequest
	case pinki.TypePropose:
		return KindAgreement
	}
	return 0
}

// Record is the creation event of an obligation: the first promise, request
// or propose line for its id.
type Record struct {
	Seq     int64
	Offset  int64 // where its line starts in the store (an adapter hint)
	TS      string
	At      int64
	ID      string
	Text    string
	By      string
	To      string
	On      string
	Until   string
	UntilAt int64
	extra   *recordExtra // the fields most records leave out
}

type recordExtra struct {
	task, proposer, schemaID, schema, meta string
	lapse                                  pinki.Lapse
}

// Task is the A2A task id the obligation is about, or "".
func (r *Record) Task() string { return r.x().task }

// Lapse is the lapse policy as written ("" means overdue).
func (r *Record) Lapse() pinki.Lapse { return r.x().lapse }

// Proposer is "by" or "to" on a proposal.
func (r *Record) Proposer() string { return r.x().proposer }

// SchemaID is the label a request's response must repeat.
func (r *Record) SchemaID() string { return r.x().schemaID }

// Schema is a request's inline JSON Schema (compact), or "".
func (r *Record) Schema() string { return r.x().schema }

// Meta is the record's meta (compact JSON), or "".
func (r *Record) Meta() string { return r.x().meta }

var noExtra recordExtra

func (r *Record) x() *recordExtra {
	if r.extra == nil {
		return &noExtra
	}
	return r.extra
}

// Ref points at one line of the store: its sequence number and, where the
// store has one, the offset its line starts at.
type Ref struct {
	Seq    int64
	Offset int64
	Type   pinki.Type
}

// Accept is an applied acceptance of an agreement's terms at revision Rev.
type Accept struct {
	Seq  int64
	TS   string
	At   int64
	By   string
	Rev  int
	Meta string
}

// Bind is an applied binding of the obligation to a verification target.
type Bind struct {
	Seq    int64
	TS     string
	At     int64
	By     string
	Target string
	Meta   string
}

// Resolution is the resolve that ended the obligation (the first that
// counted), as far as state needs it; its evidence, reason and response are
// in the line Seq points at. HorizonAt is the horizon in force when it was
// applied.
type Resolution struct {
	Seq       int64
	TS        string
	At        int64
	As        pinki.Outcome
	By        string
	HorizonAt int64
}

// Assessment is an attributed judgment, as far as the fold keeps it (its note
// and meta are in the line Seq points at). It never changes computed state.
type Assessment struct {
	Seq      int64
	At       int64
	Observer string
	State    string
}

// Ignored is an event the fold did not apply, and why.
type Ignored struct {
	Seq   int64
	Event pinki.Event
	Why   string
}

// Obligation is what the fold knows about one id: the record, what state
// needs, and a reference to every event applied to it. The events themselves
// (reasons, notes, evidence) stay in the log, which is the history; a reader
// fetches them by their refs.
type Obligation struct {
	Kind   Kind
	Record Record
	// Events references every event applied to the obligation after its
	// creation, in ledger order.
	Events      []Ref
	Resolution  *Resolution
	Assessments []Assessment

	// Rev is the revision: 1 at creation, +1 for each applied amend, accept,
	// progress, bind and resolve.
	Rev int
	// Version counts every event that names the id, from its creation on,
	// applied or not; it is what a store fences on.
	Version int

	amendUntil   string // until of the latest amend; "" before any
	amendUntilAt int64
	lastPhase    pinki.Phase // latest progress phase; "" before any
	terms        *terms      // acceptances and bindings, for the few that have any
	digest       atomic.Pointer[string]
}

// terms holds an obligation's applied acceptances and bindings.
type terms struct {
	accepts []Accept
	binds   []Bind
	since   int // index in accepts from which acceptances count
}

func (o *Obligation) t() *terms {
	if o.terms == nil {
		o.terms = &terms{}
	}
	return o.terms
}

// Accepts returns every applied acceptance, in ledger order.
func (o *Obligation) Accepts() []Accept {
	if o.terms == nil {
		return nil
	}
	return o.terms.accepts
}

// Binds returns every applied binding, in ledger order.
func (o *Obligation) Binds() []Bind {
	if o.terms == nil {
		return nil
	}
	return o.terms.binds
}

// ID is the obligation's id.
func (o *Obligation) ID() string { return o.Record.ID }

// Horizon is the deadline in force: the until of the latest amend in ledger
// order, else the record's.
func (o *Obligation) Horizon() (string, int64) {
	if o.amendUntil != "" {
		return o.amendUntil, o.amendUntilAt
	}
	return o.Record.Until, o.Record.UntilAt
}

// Phase is the latest progress phase reported, or "" when none was.
func (o *Obligation) Phase() pinki.Phase { return o.lastPhase }

// Last returns the ref of the latest applied event of type t.
func (o *Obligation) Last(t pinki.Type) (Ref, bool) {
	for i := len(o.Events) - 1; i >= 0; i-- {
		if o.Events[i].Type == t {
			return o.Events[i], true
		}
	}
	return Ref{}, false
}

// Party reports whether seat is the debtor or the creditor.
func (o *Obligation) Party(seat string) bool {
	return seat == o.Record.By || seat == o.Record.To
}

// Debtor is the seat that owes; Creditor the seat owed.
func (o *Obligation) Debtor() string   { return o.Record.By }
func (o *Obligation) Creditor() string { return o.Record.To }

// AcceptedBy reports whether seat has accepted the current terms.
func (o *Obligation) AcceptedBy(seat string) bool {
	for _, a := range o.CurrentAccepts() {
		if a.By == seat {
			return true
		}
	}
	return false
}

// CurrentAccepts returns the acceptances that count: those since the terms
// last changed.
func (o *Obligation) CurrentAccepts() []Accept {
	if o.terms == nil {
		return nil
	}
	return o.terms.accepts[o.terms.since:]
}

// voidAcceptances makes the acceptances so far stop counting (the terms
// changed).
func (o *Obligation) voidAcceptances() {
	if o.terms != nil {
		o.terms.since = len(o.terms.accepts)
	}
}

// Agreed reports whether both parties have accepted the current terms (for an
// agreement with oneself, one acceptance). Promises and requests are agreed
// by construction.
func (o *Obligation) Agreed() bool {
	if o.Kind != KindAgreement {
		return true
	}
	return o.AcceptedBy(o.Record.By) && o.AcceptedBy(o.Record.To)
}

// Ledger is the fold of a ledger's events so far. The zero value is not ready;
// use New.
type Ledger struct {
	obs   map[string]*Obligation
	order []*Obligation
	// named counts events that named an id before (or without) its creation:
	// dangling events. An id here is taken for minting.
	named     map[string]int
	ignored   []Ignored
	ignoredBy map[string][]int // id -> indexes in ignored
	unknown   []UnknownLine    // lines not understood
	pos       pinki.Position
	parties   map[string][]*Obligation // seat -> the obligations it is a party to
	recent    *[recentSize]*Obligation // see lookup

	// A seat's view (see Subset): seat is set, the ledger holds only what
	// that seat's open obligations need, wanted lists antecedents not
	// declared yet, declared filters every id the ledger declared, and
	// incomplete is set once a line needs what the view left out.
	seat       string
	wanted     map[string]bool
	declared   *declaredIDs
	incomplete bool
}

// New returns an empty Ledger.
func New() *Ledger {
	return &Ledger{obs: make(map[string]*Obligation), named: make(map[string]int), ignoredBy: make(map[string][]int),
		recent: new([recentSize]*Obligation)}
}

// Position is the point after the last entry applied.
func (l *Ledger) Position() pinki.Position { return l.pos }

// Len is the number of obligations.
func (l *Ledger) Len() int { return len(l.order) }

// Get returns the obligation with id, or nil.
func (l *Ledger) Get(id string) *Obligation { return l.obs[id] }

// recentSize is the number of slots of the cache of recently folded
// obligations: events about one obligation come close together in a ledger,
// and a slot in this small table is much cheaper to reach than the map of
// every obligation (whose entries are scattered over memory).
const recentSize = 4096

// lookup is Get for the fold's hot path, through the cache of recent
// obligations.
func (l *Ledger) lookup(id string) *Obligation {
	h := maphash.String(recentSeed, id) & (recentSize - 1)
	if o := l.recent[h]; o != nil && o.Record.ID == id {
		return o
	}
	o := l.obs[id]
	if o != nil {
		l.recent[h] = o
	}
	return o
}

var recentSeed = maphash.MakeSeed()

// Taken reports whether any event, applied or not, names id.
func (l *Ledger) Taken(id string) bool {
	if _, ok := l.obs[id]; ok {
		return true
	}
	_, ok := l.named[id]
	return ok
}

// Version is the number of events naming id so far (0 for an id nothing
// names). It matches Obligation.Version once the id exists.
func (l *Ledger) Version(id string) int {
	if o, ok := l.obs[id]; ok {
		return o.Version
	}
	return l.named[id]
}

// Obligations returns every obligation in creation (ledger) order. The slice
// is shared; do not modify it.
func (l *Ledger) Obligations() []*Obligation { return l.order }

// Of returns the obligations seat is a party to (debtor or creditor), in
// creation order. The slice is shared; do not modify it.
func (l *Ledger) Of(seat string) []*Obligation { return l.parties[seat] }

func (l *Ledger) index(seat string, o *Obligation) {
	if l.parties == nil {
		l.parties = make(map[string][]*Obligation)
	}
	l.parties[seat] = append(l.parties[seat], o)
}

// Ignored returns the events the fold did not apply, in ledger order.
func (l *Ledger) Ignored() []Ignored { return l.ignored }

// IgnoredFor returns the events naming id that the fold did not apply.
func (l *Ledger) IgnoredFor(id string) []Ignored {
	var out []Ignored
	for _, i := range l.ignoredBy[id] {
		out = append(out, l.ignored[i])
	}
	return out
}

// UnknownLine is a line the store could not decode: its sequence number and
// why.
type UnknownLine struct {
	Seq int64
	Err string
}

// Unknown returns the lines the store could not decode, in ledger order.
func (l *Ledger) Unknown() []UnknownLine { return l.unknown }

// ApplyEntry applies one store entry: a decoded event, or a line this version
// does not understand (recorded by its sequence number, otherwise skipped).
func (l *Ledger) ApplyEntry(en *pinki.Entry) {
	if en.Err != nil {
		l.unknown = append(l.unknown, UnknownLine{Seq: en.Seq, Err: en.Err.Error()})
		l.pos = pinki.Position{Seq: en.Seq} // the store's mark for it comes with SetPosition
		return
	}
	l.apply(en.Seq, en.Offset, &en.Event)
}

// SetPosition records the store position reached (with its adapter mark)
// after a batch of entries was applied.
func (l *Ledger) SetPosition(p pinki.Position) { l.pos = p }

// Apply folds one event at sequence number seq. Events must come in ledger
// order. Strings of e that the fold keeps are kept as they are: e must not be
// a view of a buffer that is reused (see ApplyEntry for store entries).
func (l *Ledger) Apply(seq int64, e *pinki.Event) { l.apply(seq, 0, e) }

func (l *Ledger) apply(seq, offset int64, e *pinki.Event) {
	// The position is this line's number; the store's mark for it (its byte
	// offset) is known only once a read ends, with SetPosition. A reader cut
	// short keeps a position without a mark, which a store can always find.
	l.pos = pinki.Position{Seq: seq}
	if l.seat != "" && !l.viewWants(e) {
		return
	}
	if e.Type.Creates() {
		l.create(seq, offset, e)
		return
	}
	o := l.lookup(e.Subject)
	if o == nil {
		if n, ok := l.named[e.Subject]; ok {
			l.named[e.Subject] = n + 1
		} else {
			l.named[strings.Clone(e.Subject)] = 1
		}
		l.ignore(seq, e, "names an id no earlier line declares")
		return
	}
	o.Version++
	ref := Ref{Seq: seq, Offset: offset, Type: e.Type}
	switch e.Type {
	case pinki.TypeAmend:
		o.amendUntil, o.amendUntilAt = strings.Clone(e.Until), e.UntilAt
		o.Rev++
		o.voidAcceptances()
	case pinki.TypeAccept:
		if why := o.refuseAccept(e); why != "" {
			l.ignore(seq, e, why)
			return
		}
		t := o.t()
		t.accepts = append(t.accepts, Accept{Seq: seq, TS: strings.Clone(e.TS), At: e.At, By: e.By, Rev: e.Rev, Meta: strings.Clone(e.Meta)})
		o.Rev++
	case pinki.TypeProgress:
		if o.Resolution != nil {
			l.ignore(seq, e, "progress after the obligation was resolved")
			return
		}
		o.lastPhase = e.Phase
		o.Rev++
	case pinki.TypeBind:
		if o.Resolution != nil {
			l.ignore(seq, e, "bind after the obligation was resolved")
			return
		}
		t := o.t()
		t.binds = append(t.binds, Bind{Seq: seq, TS: strings.Clone(e.TS), At: e.At, By: e.By, Target: strings.Clone(e.Target), Meta: strings.Clone(e.Meta)})
		o.Rev++
		if o.Kind == KindAgreement {
			o.voidAcceptances()
		}
	case pinki.TypeResolve:
		if r := o.Resolution; r != nil {
			l.ignore(seq, e, "second resolve: the first ("+string(r.As)+" at "+r.TS+") wins")
			return
		}
		horizon, horizonAt := o.Horizon()
		if o.Record.Lapse() == pinki.LapseExpire && e.At > horizonAt {
			l.ignore(seq, e, "resolve after the horizon "+horizon+" of a lapse: expire obligation does not count")
			return
		}
		o.Resolution = &Resolution{Seq: seq, TS: strings.Clone(e.TS), At: e.At, As: e.As, By: e.By, HorizonAt: horizonAt}
		o.Rev++
	case pinki.TypeAssess:
		o.Assessments = append(o.Assessments, Assessment{Seq: seq, At: e.At, Observer: e.Observer, State: e.State})
	}
	if o.Events == nil {
		o.Events = make([]Ref, 0, 4) // most obligations see a few events
	}
	o.Events = append(o.Events, ref)
}

// refuseAccept says why an accept does not count, or "" when it does: only
// on an agreement, unresolved, by a party, before the proposal window closed
// (SPEC §2: a proposal whose until passed before both acceptances expired),
// naming the current revision.
func (o *Obligation) refuseAccept(e *pinki.Event) string {
	switch {
	case o.Kind != KindAgreement:
		return "accept on a " + o.Kind.String() + ", not an agreement"
	case o.Resolution != nil:
		return "accept after the obligation was resolved"
	case !o.Party(e.By):
		return "accept by " + quote(e.By) + ", who is not a party"
	case e.At > o.horizonAt():
		horizon, _ := o.Horizon()
		return "accept after the proposal window closed at " + horizon
	case e.Rev != o.Rev:
		return "accept of revision " + itoa(e.Rev) + " when the revision was " + itoa(o.Rev)
	}
	return ""
}

func (l *Ledger) create(seq, offset int64, e *pinki.Event) {
	if o := l.obs[e.ID]; o != nil {
		o.Version++
		l.ignore(seq, e, "second declaration of "+quote(e.ID)+": the first wins")
		return
	}
	o := &Obligation{
		Kind:    KindOf(e.Type),
		Record:  Record{Seq: seq, Offset: offset, At: e.At, By: e.By, To: e.To, UntilAt: e.UntilAt},
		Rev:     1,
		Version: l.named[e.ID] + 1,
	}
	r := &o.Record
	r.TS, r.ID, r.Text, r.On, r.Until = e.TS, e.ID, e.Text, e.On, e.Until
	cloneAll(&r.TS, &r.ID, &r.Text, &r.On, &r.Until)
	if e.Task != "" || e.Lapse != "" || e.Proposer != "" || e.SchemaID != "" || e.Schema != "" || e.Meta != "" {
		o.Record.extra = &recordExtra{task: strings.Clone(e.Task), lapse: e.Lapse, proposer: e.Proposer,
			schemaID: e.SchemaID, schema: strings.Clone(e.Schema), meta: strings.Clone(e.Meta)}
	}
	delete(l.named, o.Record.ID)
	l.obs[o.Record.ID] = o
	l.order = append(l.order, o)
	l.index(o.Record.By, o)
	if o.Record.To != o.Record.By {
		l.index(o.Record.To, o)
	}
}

// cloneAll replaces the strings with copies that share one allocation, so
// that the fold keeps neither the decoder's buffers nor one allocation per
// field.
func cloneAll(ss ...*string) {
	n := 0
	for _, s := range ss {
		n += len(*s)
	}
	var b strings.Builder
	b.Grow(n)
	for _, s := range ss {
		b.WriteString(*s)
	}
	all := b.String()
	for _, s := range ss {
		k := len(*s)
		*s, all = all[:k], all[k:]
	}
}

func (l *Ledger) ignore(seq int64, e *pinki.Event, why string) {
	c := e.Clone()
	l.ignoredBy[c.Key()] = append(l.ignoredBy[c.Key()], len(l.ignored))
	l.ignored = append(l.ignored, Ignored{Seq: seq, Event: c, Why: why})
}

// Event returns the creation event the record came from.
func (o *Obligation) Event() pinki.Event {
	r := &o.Record
	t := pinki.TypePromise
	switch o.Kind {
	case KindRequest:
		t = pinki.TypeRequest
	case KindAgreement:
		t = pinki.TypePropose
	}
	return pinki.Event{TS: r.TS, Type: t, ID: r.ID, Text: r.Text, By: r.By, To: r.To, On: r.On,
		Until: r.Until, Task: r.Task(), Lapse: r.Lapse(), Proposer: r.Proposer(), SchemaID: r.SchemaID(),
		Schema: r.Schema(), Meta: r.Meta(), At: r.At, UntilAt: r.UntilAt}
}

// Digest is the content digest of the obligation's creation event.
// It is computed once and remembered (safe for concurrent readers).
func (o *Obligation) Digest() string {
	if d := o.digest.Load(); d != nil {
		return *d
	}
	e := o.Event()
	d := pinki.Digest(&e)
	o.digest.Store(&d)
	return d
}
