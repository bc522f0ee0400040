package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

// Unverifiable is the assessment state the Verifier records, once per
// target, when an adapter finds that a binding can never be satisfied.
const Unverifiable = "unverifiable"

// Config configures a Verifier.
type Config struct {
	// API is the ledger service (local or over HTTP).
	API ledger.API
	// As is the identity the Verifier reads and writes as: a verifier seat
	// (Role pinki.RoleVerifier), which the service lets write satisfied on
	// bound obligations of other seats. Its seat signs the assessments.
	As pinki.Identity
	// StatePath is the state file (see DefaultStatePath).
	StatePath string
	// Adapters are the kinds of target verified. nil means the todo adapter
	// alone.
	Adapters []Adapter
	// Clock stamps observations and starts a new state file. nil: time.Now.
	Clock func() time.Time
	// OnPass, if set, is called by Watch after every pass with its report
	// and error.
	OnPass func(Report, error)
}

// Verifier runs adapters over every unresolved bound obligation and records
// what they verify: satisfied with the proof as evidence for a verified
// delivery, an attributed assessment for anything else worth recording, and
// nothing at all for prose, "done" or a tool's plain success, which no
// adapter reads. It is safe to run again and again: a pass records nothing
// that is already on record.
type Verifier struct {
	cfg      Config
	adapters map[string]Adapter // by kind
}

// New returns a Verifier.
//
// Errors: CodeInvalid when API, the identity's seat or StatePath is missing,
// or two adapters share a kind.
func New(cfg Config) (*Verifier, error) {
	switch {
	case cfg.API == nil:
		return nil, pinki.Invalid("api", "a verifier needs a ledger")
	case !cfg.As.Known():
		return nil, pinki.Invalid("as", "a verifier writes as a seat: give one (--as SEAT)")
	case strings.TrimSpace(cfg.StatePath) == "":
		return nil, pinki.Invalid("state", "a verifier needs a state file path")
	}
	if cfg.Adapters == nil {
		cfg.Adapters = []Adapter{Todo{}}
	}
	v := &Verifier{cfg: cfg, adapters: map[string]Adapter{}}
	for _, a := range cfg.Adapters {
		if v.adapters[a.Kind()] != nil {
			return nil, pinki.Invalid("adapters", "two adapters verify the kind %q", a.Kind())
		}
		v.adapters[a.Kind()] = a
	}
	if v.cfg.Clock == nil {
		v.cfg.Clock = time.Now
	}
	return v, nil
}

// Action is what a pass did about one target.
type Action string

// The actions.
const (
	// ActNone: nothing to record (a pending verdict).
	ActNone Action = "none"
	// ActResolved: the obligation was resolved satisfied.
	ActResolved Action = "resolved"
	// ActAssessed: an assessment was appended.
	ActAssessed Action = "assessed"
	// ActOnRecord: the verdict was already on record; nothing appended.
	ActOnRecord Action = "on_record"
	// ActRefused: the service refused the write (Error says why); the
	// verdict is kept and the write tried again on the next pass. A
	// delivery on an agreement still proposed waits here until both parties
	// accept (or the proposal window passes: then it is satisfied late).
	ActRefused Action = "refused"
	// ActError: the observation failed (a missing or malformed file, a
	// server that does not answer); nothing changed, not even the memory.
	ActError Action = "error"
	// ActSkipped: another target of the same obligation was delivered first.
	ActSkipped Action = "skipped"
)

// Result is one target's outcome in a pass.
type Result struct {
	ID      string       `json:"id"`
	Kind    string       `json:"kind"`
	Target  string       `json:"target"`
	Ref     string       `json:"ref"`
	Verdict Verdict      `json:"verdict"`
	Action  Action       `json:"action"`
	Late    bool         `json:"late,omitempty"`
	Error   *pinki.Error `json:"error,omitempty"`
}

// String is the result as one line for people.
func (r Result) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: ", r.ID, r.Ref)
	switch r.Verdict.Kind {
	case Delivered:
		fmt.Fprintf(&b, "delivered (%s)", r.Verdict.Transition)
	case Assessed:
		fmt.Fprintf(&b, "%s", r.Verdict.State)
	case "":
		b.WriteString("not observed")
	default:
		b.WriteString(string(r.Verdict.Kind))
	}
	if r.Verdict.Note != "" {
		fmt.Fprintf(&b, ": %s", r.Verdict.Note)
	}
	fmt.Fprintf(&b, " [%s", r.Action)
	if r.Late {
		b.WriteString(", late")
	}
	b.WriteString("]")
	if r.Error != nil {
		fmt.Fprintf(&b, ": %s", r.Error.Message)
	}
	return b.String()
}

// Report is what one pass saw and did.
type Report struct {
	// Obligations is how many unresolved bound obligations the pass looked at.
	Obligations int      `json:"obligations"`
	Results     []Result `json:"results"`
}

// Appended counts the results that appended an event.
func (r Report) Appended() int {
	n := 0
	for _, x := range r.Results {
		if x.Action == ActResolved || x.Action == ActAssessed {
			n++
		}
	}
	return n
}

// verifiable are the states an obligation may be resolved satisfied from:
// the open ones and expired (a late satisfied may follow a proposal window
// or an antecedent that ended; under lapse: expire it may not, see pass).
var verifiable = []fold.State{fold.Proposed, fold.Conditional, fold.Detached, fold.Overdue, fold.Expired}

// RunOnce makes one pass: it lists the unresolved bound obligations (those
// with a bind or naming an A2A task: ledger.Filter.Bound), observes
// every target the adapters select from them, records the verdicts, and
// saves the state file. Failures about one target (an unreadable file, a
// refused write) are in the report, never fatal.
//
// Errors: CodeUnavailable when the ledger cannot be listed or the state file
// cannot be locked or written; CodeInvalid when the state file is not one;
// the context's error when ctx ends. The report holds what was done before.
func (v *Verifier) RunOnce(ctx context.Context) (Report, error) {
	unlock, err := lockState(ctx, v.cfg.StatePath)
	if err != nil {
		return Report{}, err
	}
	defer unlock()
	st, _, err := loadState(v.cfg.StatePath, v.cfg.Clock())
	if err != nil {
		return Report{}, err
	}
	rep, err := v.pass(ctx, st)
	if serr := st.save(v.cfg.StatePath); err == nil {
		err = serr
	}
	return rep, err
}

func (v *Verifier) pass(ctx context.Context, st *state) (Report, error) {
	rep := Report{Results: []Result{}}
	// Only bound obligations (a bind, or an A2A task) have targets: list
	// those, so that a pass reads the history of no other.
	page, err := v.cfg.API.List(ctx, v.cfg.As, ledger.Filter{States: verifiable, Bound: true})
	if err != nil {
		return rep, err
	}
	live := map[string]map[string]bool{} // obligation -> target keys still verifiable
	for _, it := range page.Items {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if it.State == fold.Expired && it.Lapse == pinki.LapseExpire {
			continue // a resolve past the horizon no longer counts
		}
		d, err := v.cfg.API.Get(ctx, v.cfg.As, ledger.Query{ID: it.ID})
		if err != nil {
			if pinki.ErrorCode(err) == pinki.CodeNotFound {
				continue
			}
			// Keep its memory: a failed read says nothing about the target.
			keep := map[string]bool{}
			for key := range st.Obligations[it.ID] {
				keep[key] = true
			}
			live[it.ID] = keep
			rep.Results = append(rep.Results, Result{ID: it.ID, Action: ActError, Error: pinki.AsError(err)})
			continue
		}
		if d.Resolution != nil {
			continue
		}
		var targets []Target
		for _, a := range v.cfg.Adapters {
			for _, t := range a.Targets(&d) {
				t.Kind = a.Kind() // the adapter that selected it observes it
				targets = append(targets, t)
			}
		}
		if len(targets) == 0 {
			continue
		}
		rep.Obligations++
		keys := map[string]bool{}
		for _, t := range targets {
			keys[t.Key] = true
		}
		live[d.ID] = keys
		rep.Results = append(rep.Results, v.obligation(ctx, st, &d, targets)...)
	}
	// Forget what no longer needs watching: resolved obligations, and
	// targets no longer bound — of the kinds this verifier observes. What
	// another verifier sharing the state file remembers (other kinds) stays.
	mine := map[string]bool{}
	for _, a := range v.cfg.Adapters {
		mine[a.Kind()] = true
	}
	for id, targets := range st.Obligations {
		keep := live[id]
		for key, rec := range targets {
			if !keep[key] && mine[rec.Kind] {
				delete(targets, key)
			}
		}
		if len(targets) == 0 {
			delete(st.Obligations, id)
		}
	}
	return rep, nil
}

// obligation observes every target of one obligation, then records: a
// resolve for the first delivered target, else an assessment for each
// assessed or broken one.
func (v *Verifier) obligation(ctx context.Context, st *state, d *ledger.Detail, targets []Target) []Result {
	out := make([]Result, 0, len(targets))
	for _, t := range targets {
		r := Result{ID: d.ID, Kind: t.Kind, Target: t.Key, Ref: t.Ref}
		if note, ok := v.brokenOnRecord(d, t); ok {
			r.Verdict, r.Action = Break(note), ActOnRecord
			out = append(out, r)
			continue
		}
		rec := st.get(d.ID, t.Key)
		prior := Prior{Continuous: st.continuous(t.BoundAt)}
		if rec != nil && rec.Kind == t.Kind {
			prior.Memory = rec.Memory
		}
		obs, err := v.adapters[t.Kind].Observe(ctx, t, prior)
		if err != nil {
			r.Action, r.Error = ActError, pinki.AsError(err)
			out = append(out, r)
			continue
		}
		st.put(d.ID, t.Key, &targetRec{Kind: t.Kind, Memory: obs.Memory,
			ObservedAt: pinki.FormatTime(v.cfg.Clock().UTC().Truncate(time.Second))})
		r.Verdict, r.Action = obs.Verdict, ActNone
		out = append(out, r)
	}
	resolved := false
	for i := range out {
		r := &out[i]
		switch {
		case r.Action != ActNone:
		case r.Verdict.Kind == Delivered && resolved:
			r.Action = ActSkipped
		case r.Verdict.Kind == Delivered:
			v.resolve(ctx, d, r)
			resolved = r.Action == ActResolved || r.Action == ActOnRecord
		}
	}
	for i := range out {
		r := &out[i]
		switch {
		case r.Action != ActNone:
		case resolved && (r.Verdict.Kind == Assessed || r.Verdict.Kind == Broken):
			r.Action = ActSkipped
		case r.Verdict.Kind == Assessed:
			v.assess(ctx, d, r, r.Verdict.State)
		case r.Verdict.Kind == Broken:
			v.assess(ctx, d, r, Unverifiable)
		}
	}
	return out
}

// provenance is the meta the Verifier puts on what it writes: which target
// of which kind, and for a delivery, the transition seen.
type provenance struct {
	Verify struct {
		Kind       string `json:"kind"`
		Target     string `json:"target"`
		Transition string `json:"transition,omitempty"`
	} `json:"verify"`
}

func meta(r *Result) json.RawMessage {
	var p provenance
	p.Verify.Kind, p.Verify.Target, p.Verify.Transition = r.Kind, r.Target, r.Verdict.Transition
	b, _ := json.Marshal(p)
	return b
}

func targetOf(m json.RawMessage) string {
	var p provenance
	if json.Unmarshal(m, &p) != nil {
		return ""
	}
	return p.Verify.Target
}

func (v *Verifier) resolve(ctx context.Context, d *ledger.Detail, r *Result) {
	rc, err := v.cfg.API.Resolve(ctx, v.cfg.As, ledger.ResolveInput{ID: d.ID, As: pinki.Satisfied,
		Evidence: r.Verdict.Evidence, Meta: meta(r)})
	if err != nil {
		r.Action, r.Error = ActRefused, pinki.AsError(err)
		return
	}
	r.Action, r.Late = ActResolved, rc.Late
	if rc.Idempotent {
		r.Action = ActOnRecord
	}
}

// assess records the verdict as this verifier's assessment, unless the same
// assessment of the same target is already on record.
func (v *Verifier) assess(ctx context.Context, d *ledger.Detail, r *Result, state string) {
	note := oneLine(r.Ref + ": " + r.Verdict.Note)
	for _, a := range d.Assessments {
		if a.Observer == v.cfg.As.Seat && a.State == state && a.Note == note && targetOf(a.Meta) == r.Target {
			r.Action = ActOnRecord
			return
		}
	}
	rc, err := v.cfg.API.Assess(ctx, v.cfg.As, ledger.AssessInput{ID: d.ID, State: state, Note: note, Meta: meta(r)})
	switch {
	case err != nil:
		r.Action, r.Error = ActRefused, pinki.AsError(err)
	case rc.Idempotent:
		r.Action = ActOnRecord
	default:
		r.Action = ActAssessed
	}
}

// brokenOnRecord reports whether this verifier already recorded the target
// as unverifiable, so that a lost or deleted state file never revives a
// binding found broken.
func (v *Verifier) brokenOnRecord(d *ledger.Detail, t Target) (string, bool) {
	for _, a := range d.Assessments {
		if a.Observer == v.cfg.As.Seat && a.State == Unverifiable && targetOf(a.Meta) == t.Key {
			return "recorded as " + Unverifiable + " at " + a.TS, true
		}
	}
	return "", false
}

// Watch runs a pass every interval until ctx ends, calling Config.OnPass
// after each. A failed pass (the ledger or the state file unavailable) is
// reported to OnPass and retried at the next interval; it never stops the
// watch.
//
// Errors: CodeInvalid for an interval that is not positive; nil when ctx
// ends.
func (v *Verifier) Watch(ctx context.Context, interval time.Duration) error {
	if interval <= 0 {
		return pinki.Invalid("interval", "the watch interval must be positive, not %s", interval)
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		rep, err := v.RunOnce(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if v.cfg.OnPass != nil {
			v.cfg.OnPass(rep, err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
