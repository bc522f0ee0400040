// Package reconcile joins two parties' ledgers and lists where they do not
// align: the office the article says nobody holds yet. It joins on the
// promise id, never on meta, and changes nothing: both records stay true,
// and the report shows them side by side.
//
// It reads each ledger through ledger.API, so a side may be a file ledger, a
// server, or anything else that implements it.
package reconcile

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/jsonl"
	"github.com/pinki-ledger/pinki/ledger"
)

// Kind is one way two records of the same id can disagree.
type Kind string

// The kinds of misalignment, in the order a report lists them.
const (
	// OnlyA and OnlyB: one side holds the id, the other does not.
	OnlyA Kind = "only_a"
	OnlyB Kind = "only_b"
	// Record: the declarations differ (text, parties, antecedent, task,
	// declared deadline or lapse). Meta is never compared.
	Record Kind = "record"
	// Horizon: the deadlines in force differ (different amends).
	Horizon Kind = "horizon"
	// Resolution: one side holds a resolution the other does not, or they
	// resolved differently (outcome, writer, evidence or reason).
	Resolution Kind = "resolution"
	// Contradiction: judgments that cannot both hold, across or within the
	// two sides: a negative assessment (violated, task-failed, …) beside a
	// satisfied resolution (the article's case: an observer's violated beside
	// the debtor's late, evidenced satisfied), a positive one (kept, …)
	// beside an obligation that ended unsatisfied, or two observers' latest
	// assessments of opposite sense.
	Contradiction Kind = "contradicting_assessments"
	// State: the computed states differ at the same now for a reason none of
	// the above names (an antecedent that differs, for one).
	State Kind = "state"
)

// Side is one ledger to join.
type Side struct {
	// Name labels the side in the report (its path, or a party's name).
	Name string
	API  ledger.API
	// Who reads the side. The zero identity reads everything (a local file).
	Who pinki.Identity
}

// Options configure a reconciliation.
type Options struct {
	// Now is the instant both sides compute states at. Zero means the
	// wall clock, truncated to the second.
	Now time.Time
}

// Report is the join of two ledgers.
type Report struct {
	Format string `json:"format"`
	A      string `json:"a"`
	B      string `json:"b"`
	Now    string `json:"now"`
	// Both counts the ids both sides hold; Aligned those of them that agree.
	Both    int `json:"both"`
	OnlyA   int `json:"only_a"`
	OnlyB   int `json:"only_b"`
	Aligned int `json:"aligned"`
	// Counts holds, per kind, how many entries show it.
	Counts map[Kind]int `json:"counts"`
	// Entries are the misaligned ids, ordered by id.
	Entries []Entry `json:"entries"`
	// Unknown lists, per side, the lines that side's ledger holds and this
	// version cannot read (the CLI exits 3 when any are listed).
	Unknown []string `json:"unknown,omitempty"`
}

// ReportFormat is the value of Report.Format.
const ReportFormat = "pinki-reconcile/1"

// Entry is one misaligned id: what kinds of disagreement it shows, one line
// per difference, and the two records as each side holds them (nil for the
// side that lacks it).
type Entry struct {
	ID          string      `json:"id"`
	Kinds       []Kind      `json:"kinds"`
	Differences []string    `json:"differences"`
	A           *SideRecord `json:"a"`
	B           *SideRecord `json:"b"`
}

// SideRecord is one side's view of an obligation.
type SideRecord struct {
	Promise       string                  `json:"promise"`
	By            string                  `json:"by"`
	To            string                  `json:"to"`
	On            string                  `json:"on,omitempty"`
	Task          string                  `json:"task,omitempty"`
	OriginalUntil string                  `json:"original_until"`
	Until         string                  `json:"until"`
	Lapse         pinki.Lapse             `json:"lapse,omitempty"`
	State         fold.State              `json:"state"`
	Late          bool                    `json:"late,omitempty"`
	Resolution    *ledger.ResolutionView  `json:"resolution"`
	Assessments   []ledger.AssessmentView `json:"assessments"`
}

// Compare joins a and b on the obligation id.
//
// Errors: the first error either side returns while listing or reading.
func Compare(ctx context.Context, a, b Side, o Options) (Report, error) {
	now := o.Now
	if now.IsZero() {
		now = time.Now().UTC().Truncate(time.Second)
	}
	r := Report{Format: ReportFormat, A: a.Name, B: b.Name, Now: pinki.FormatTime(now),
		Counts: map[Kind]int{}, Entries: []Entry{}}
	ra, err := load(ctx, a, now)
	if err != nil {
		return r, err
	}
	rb, err := load(ctx, b, now)
	if err != nil {
		return r, err
	}
	ids := map[string]bool{}
	for id := range ra {
		ids[id] = true
	}
	for id := range rb {
		ids[id] = true
	}
	sorted := make([]string, 0, len(ids))
	for id := range ids {
		sorted = append(sorted, id)
	}
	sort.Strings(sorted)
	for _, id := range sorted {
		x, y := ra[id], rb[id]
		switch {
		case y == nil:
			r.OnlyA++
		case x == nil:
			r.OnlyB++
		default:
			r.Both++
		}
		e := join(id, x, y, a.Name, b.Name)
		if len(e.Kinds) == 0 {
			r.Aligned++
			continue
		}
		for _, k := range e.Kinds {
			r.Counts[k]++
		}
		r.Entries = append(r.Entries, e)
	}
	return r, nil
}

// load reads every obligation of a side at now.
func load(ctx context.Context, s Side, now time.Time) (map[string]*SideRecord, error) {
	page, err := s.API.List(ctx, s.Who, ledger.Filter{Scope: ledger.ScopeAll, Now: now})
	if err != nil {
		return nil, err
	}
	out := make(map[string]*SideRecord, len(page.Items))
	for _, it := range page.Items {
		d, err := s.API.Get(ctx, s.Who, ledger.Query{ID: it.ID, Now: now})
		if err != nil {
			return nil, err
		}
		out[it.ID] = &SideRecord{Promise: d.Promise, By: d.By, To: d.To, On: d.On, Task: d.Task,
			OriginalUntil: d.OriginalUntil, Until: d.Until, Lapse: d.Lapse, State: d.State, Late: d.Late,
			Resolution: d.Resolution, Assessments: d.Assessments}
	}
	return out, nil
}

// join compares the two records of one id.
func join(id string, a, b *SideRecord, nameA, nameB string) Entry {
	e := Entry{ID: id, A: a, B: b, Kinds: []Kind{}, Differences: []string{}}
	add := func(k Kind, format string, args ...any) {
		if !slices.Contains(e.Kinds, k) {
			e.Kinds = append(e.Kinds, k)
		}
		e.Differences = append(e.Differences, fmt.Sprintf(format, args...))
	}
	switch {
	case b == nil:
		add(OnlyA, "only %s holds %s (%s there)", label("A", nameA), id, a.State)
	case a == nil:
		add(OnlyB, "only %s holds %s (%s there)", label("B", nameB), id, b.State)
	default:
		for _, f := range []struct{ key, x, y string }{
			{"promise", a.Promise, b.Promise}, {"by", a.By, b.By}, {"to", a.To, b.To},
			{"on", a.On, b.On}, {"task", a.Task, b.Task}, {"declared until", a.OriginalUntil, b.OriginalUntil},
			{"lapse", string(a.Lapse), string(b.Lapse)},
		} {
			if f.x != f.y {
				add(Record, "%s differs: A %s, B %s", f.key, quote(f.x), quote(f.y))
			}
		}
		if a.Until != b.Until {
			add(Horizon, "horizon differs: A until %s, B until %s", a.Until, b.Until)
		}
		switch ra, rb := a.Resolution, b.Resolution; {
		case ra != nil && rb == nil:
			add(Resolution, "A holds a resolution B does not: %s (B: %s)", resolution(ra), b.State)
		case ra == nil && rb != nil:
			add(Resolution, "B holds a resolution A does not: %s (A: %s)", resolution(rb), a.State)
		case ra != nil && !sameResolution(ra, rb):
			add(Resolution, "resolutions differ: A %s, B %s", resolution(ra), resolution(rb))
		}
	}
	for _, c := range contradictions(a, b) {
		add(Contradiction, "%s", c)
	}
	if a != nil && b != nil && a.State != b.State && len(e.Kinds) == 0 {
		add(State, "states differ at the same now: A %s, B %s", a.State, b.State)
	}
	return e
}

func label(side, name string) string {
	if name == "" {
		return side
	}
	return side + " (" + name + ")"
}

func quote(s string) string {
	if s == "" {
		return "(none)"
	}
	return fmt.Sprintf("%q", s)
}

func sameResolution(a, b *ledger.ResolutionView) bool {
	return a.As == b.As && a.By == b.By && slices.Equal(a.Evidence, b.Evidence) && a.Reason == b.Reason
}

// resolution renders a resolution on one line.
func resolution(r *ledger.ResolutionView) string {
	s := fmt.Sprintf("%s by %s at %s", r.As, r.By, r.TS)
	if len(r.Evidence) > 0 {
		s += " evidence " + strings.Join(r.Evidence, ", ")
	}
	if r.Reason != "" {
		s += ": " + r.Reason
	}
	return s
}

// Polarity is the sense of an assessment word.
type Polarity int

// The polarities. Words not listed are Neutral (disputed, …) and contradict
// nothing.
const (
	Neutral  Polarity = 0
	Negative Polarity = -1
	Positive Polarity = 1
)

// polarity of the assessment words pinki and its watchers write; any other
// word is neutral.
var polarity = map[string]Polarity{
	"violated": Negative, "broken": Negative, "breached": Negative, "failed": Negative,
	"abandoned": Negative, "lapsed": Negative, "unverifiable": Negative,
	"task-failed": Negative, "task-rejected": Negative, "task-canceled": Negative,
	"task-unknown": Negative, "task-completed-without-artifact": Negative,
	"kept": Positive, "fulfilled": Positive, "honored": Positive, "satisfied": Positive,
	"delivered": Positive, "verified": Positive,
}

// PolarityOf returns the sense of an assessment word.
func PolarityOf(state string) Polarity { return polarity[strings.ToLower(state)] }

// held is a judgment or an outcome, with the sides that hold it ("A",
// "B" or "A+B").
type held struct {
	sides string
	key   string
	text  string
	pol   Polarity
}

func hold(list []held, side, key, text string, p Polarity) []held {
	for i := range list {
		if list[i].key == key {
			list[i].sides += "+" + side
			return list
		}
	}
	return append(list, held{sides: side, key: key, text: text, pol: p})
}

// contradictions finds the judgments that cannot both hold, over the union
// of the two sides (either may be nil). What both sides hold is named once.
func contradictions(a, b *SideRecord) []string {
	var judgments, outcomes []held
	for _, s := range []struct {
		side string
		r    *SideRecord
	}{{"A", a}, {"B", b}} {
		if s.r == nil {
			continue
		}
		seen := map[string]bool{}
		var mine []ledger.AssessmentView // latest per observer, in time order
		for i := len(s.r.Assessments) - 1; i >= 0; i-- {
			if as := s.r.Assessments[i]; !seen[as.Observer] {
				seen[as.Observer] = true
				mine = append([]ledger.AssessmentView{as}, mine...)
			}
		}
		for _, as := range mine {
			judgments = hold(judgments, s.side, as.Observer+"\x00"+as.State+"\x00"+as.TS,
				fmt.Sprintf("%s assessed %s at %s", as.Observer, as.State, as.TS), PolarityOf(as.State))
		}
		if r := s.r.Resolution; r != nil && s.r.State == fold.Satisfied {
			late := ""
			if s.r.Late {
				late = " late,"
			}
			outcomes = hold(outcomes, s.side, "resolved\x00"+resolution(r),
				fmt.Sprintf("%s resolved it%s satisfied at %s%s", r.By, late, r.TS, evidenced(r)), Positive)
		} else if !s.r.State.Open() && s.r.State != fold.Satisfied {
			outcomes = hold(outcomes, s.side, "ended\x00"+string(s.r.State),
				fmt.Sprintf("it ended %s", s.r.State), Negative)
		}
	}
	var out []string
	for _, j := range judgments {
		for _, o := range outcomes {
			if j.pol*o.pol == -1 {
				out = append(out, fmt.Sprintf("%s: %s, while %s: %s", j.sides, j.text, o.sides, o.text))
			}
		}
	}
	for i := 0; i < len(judgments); i++ {
		for k := i + 1; k < len(judgments); k++ {
			if x, y := judgments[i], judgments[k]; x.pol*y.pol == -1 {
				out = append(out, fmt.Sprintf("%s: %s, while %s: %s", x.sides, x.text, y.sides, y.text))
			}
		}
	}
	return out
}

func evidenced(r *ledger.ResolutionView) string {
	if len(r.Evidence) == 0 {
		return ""
	}
	return " with evidence " + strings.Join(r.Evidence, ", ")
}

// Files reconciles two file ledgers, read where they lie (nothing is
// written to either).
//
// Errors: CodeNotFound (field "ledger") when a path holds no ledger file; the
// errors of reading either ledger. Lines a ledger holds that this version
// cannot read are listed in Report.Unknown, not returned as errors.
func Files(ctx context.Context, pathA, pathB string, o Options) (Report, error) {
	var unknown []string
	open := func(label, path string) (*ledger.Service, func(), error) {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, nil, &pinki.Error{Code: pinki.CodeNotFound, Field: "ledger",
				Message: fmt.Sprintf("no ledger at %s", path)}
		}
		st, err := jsonl.Open(path, jsonl.Options{ReadOnly: true})
		if err != nil {
			return nil, nil, pinki.AsError(err)
		}
		svc := ledger.New(st, ledger.Options{OnUnknownLine: func(seq int64, _ []byte, err error) {
			unknown = append(unknown, fmt.Sprintf("%s %s:%d: %v", label, path, seq, err))
		}})
		return svc, func() { svc.Close(); st.Close() }, nil
	}
	sa, closeA, err := open("A", pathA)
	if err != nil {
		return Report{}, err
	}
	defer closeA()
	sb, closeB, err := open("B", pathB)
	if err != nil {
		return Report{}, err
	}
	defer closeB()
	r, err := Compare(ctx, Side{Name: pathA, API: sa}, Side{Name: pathB, API: sb}, o)
	r.Unknown = unknown
	return r, err
}
