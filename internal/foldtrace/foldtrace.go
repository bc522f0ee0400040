// Package foldtrace runs the fold's data-driven traces (fold/testdata) against
// any way of holding a ledger: the pure fold directly, or a store that events
// are appended to and read back from. The same files, the same answers.
package foldtrace

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/internal/trace"
)

// Backend holds a ledger for a trace file.
type Backend interface {
	// Append appends decoded events in order.
	Append(t *testing.T, events []pinki.Event)
	// Ledger returns the fold of everything appended so far.
	Ledger(t *testing.T) *fold.Ledger
}

// Pure is the backend that folds in memory.
type Pure struct{ l *fold.Ledger }

// NewPure returns an empty in-memory backend.
func NewPure() *Pure { return &Pure{l: fold.New()} }

func (p *Pure) Append(t *testing.T, events []pinki.Event) {
	for i := range events {
		p.l.Apply(p.l.Position().Seq+1, &events[i])
	}
}

func (p *Pure) Ledger(t *testing.T) *fold.Ledger { return p.l }

// Runner returns a trace runner over b. Commands:
//
//	ledger              append the input lines (JSONL); prints nothing
//	state now=T [ids]   one line per obligation: id, state, flags, rev, horizon;
//	                    with ids, those in that order, which is the order one
//	                    evaluator computes them in (so it can be varied)
//	ignored             one line per event the fold did not apply, with the reason
//	ended now=T [ids]   one line per ended obligation: id, state, when it ended
//	version [ids]       one line per id: how many events name it, and its rev
func Runner(t *testing.T, b Backend) trace.Runner {
	return func(c *trace.Case) string {
		switch c.Cmd {
		case "ledger":
			var events []pinki.Event
			var dec pinki.Decoder
			for i, line := range strings.Split(strings.TrimSuffix(c.Input, "\n"), "\n") {
				e, err := dec.Decode([]byte(line))
				if err != nil {
					t.Fatalf("%s: input line %d: %v", c.Pos, i+1, err)
				}
				events = append(events, e)
			}
			b.Append(t, events)
			return ""
		case "state":
			now, err := pinki.ParseInstant(c.Arg("now", ""))
			if err != nil {
				t.Fatalf("%s: state needs now=RFC3339: %v", c.Pos, err)
			}
			return States(b.Ledger(t), now, c.Words)
		case "ended":
			now, err := pinki.ParseInstant(c.Arg("now", ""))
			if err != nil {
				t.Fatalf("%s: ended needs now=RFC3339: %v", c.Pos, err)
			}
			return Ended(b.Ledger(t), now, c.Words)
		case "version":
			return Versions(b.Ledger(t), c.Words)
		case "ignored":
			var out strings.Builder
			for _, ig := range b.Ledger(t).Ignored() {
				fmt.Fprintf(&out, "%d %s %s: %s\n", ig.Seq, ig.Event.Type, ig.Event.Key(), ig.Why)
			}
			return out.String()
		}
		t.Fatalf("%s: unknown command %q", c.Pos, c.Cmd)
		return ""
	}
}

// States renders the status of the obligations (all, or those named in ids)
// at now, one line each.
func States(l *fold.Ledger, now int64, ids []string) string {
	ev := l.At(now)
	var out strings.Builder
	line := func(o *fold.Obligation) {
		s := ev.Status(o)
		horizon, _ := o.Horizon()
		fmt.Fprintf(&out, "%s %s", o.ID(), s.State)
		if o.Kind != fold.KindPromise {
			fmt.Fprintf(&out, " kind=%s", o.Kind)
		}
		if s.Late {
			out.WriteString(" late")
		}
		if s.Phase != "" {
			fmt.Fprintf(&out, " phase=%s", s.Phase)
		}
		fmt.Fprintf(&out, " rev=%d horizon=%s", o.Rev, horizon)
		if o.Kind == fold.KindAgreement {
			var by []string
			for _, a := range o.CurrentAccepts() {
				by = append(by, a.By)
			}
			fmt.Fprintf(&out, " accepted=[%s]", strings.Join(by, ","))
		}
		for _, a := range o.Assessments {
			fmt.Fprintf(&out, " assessed=%s(%s)", a.State, a.Observer)
		}
		out.WriteByte('\n')
	}
	if len(ids) == 0 {
		for _, o := range l.Obligations() {
			line(o)
		}
		return out.String()
	}
	for _, id := range ids {
		if o := l.Get(id); o != nil {
			line(o)
		} else {
			fmt.Fprintf(&out, "%s unknown\n", id)
		}
	}
	return out.String()
}

// Ended renders, for every ended obligation (or those named in ids), its state
// and the instant it ended: its resolution's ts, or when it expired.
func Ended(l *fold.Ledger, now int64, ids []string) string {
	ev := l.At(now)
	var out strings.Builder
	for _, o := range pick(l, ids) {
		if o == nil {
			continue
		}
		s := ev.Status(o)
		if s.State.Open() {
			continue
		}
		fmt.Fprintf(&out, "%s %s ended=%s\n", o.ID(), s.State, pinki.FormatTime(time.Unix(0, s.EndedAt)))
	}
	return out.String()
}

// Versions renders, for every obligation (or each id in ids, declared or
// not), the number of events that name it and its revision.
func Versions(l *fold.Ledger, ids []string) string {
	var out strings.Builder
	if len(ids) == 0 {
		for _, o := range l.Obligations() {
			ids = append(ids, o.ID())
		}
	}
	for _, id := range ids {
		if o := l.Get(id); o != nil {
			fmt.Fprintf(&out, "%s version=%d rev=%d\n", id, o.Version, o.Rev)
		} else {
			fmt.Fprintf(&out, "%s version=%d undeclared taken=%t\n", id, l.Version(id), l.Taken(id))
		}
	}
	return out.String()
}

func pick(l *fold.Ledger, ids []string) []*fold.Obligation {
	if len(ids) == 0 {
		return l.Obligations()
	}
	var obs []*fold.Obligation
	for _, id := range ids {
		obs = append(obs, l.Get(id))
	}
	return obs
}

// Snapshot renders everything the fold computes at now that a state, a flag
// or a rule depends on: per obligation its kind, state, late flag, phase,
// end, rev, version, horizon, current acceptances, resolution and the
// assessments' words; then every ignored event with its reason. Two folds
// that must agree (a ledger and the same ledger with every meta mutated)
// have equal snapshots.
func Snapshot(l *fold.Ledger, now int64) string {
	ev := l.At(now)
	var out strings.Builder
	for _, o := range l.Obligations() {
		s := ev.Status(o)
		horizon, horizonAt := o.Horizon()
		fmt.Fprintf(&out, "%s kind=%s state=%s late=%t phase=%s ended=%d rev=%d version=%d horizon=%s@%d",
			o.ID(), o.Kind, s.State, s.Late, s.Phase, s.EndedAt, o.Rev, o.Version, horizon, horizonAt)
		for _, a := range o.CurrentAccepts() {
			fmt.Fprintf(&out, " accept=%s@%d", a.By, a.Rev)
		}
		if r := o.Resolution; r != nil {
			fmt.Fprintf(&out, " resolved=%s@%d/%d", r.As, r.Seq, r.HorizonAt)
		}
		for _, a := range o.Assessments {
			fmt.Fprintf(&out, " assessed=%s(%s)", a.State, a.Observer)
		}
		out.WriteByte('\n')
	}
	for _, ig := range l.Ignored() {
		fmt.Fprintf(&out, "ignored %d %s %s: %s\n", ig.Seq, ig.Event.Type, ig.Event.Key(), ig.Why)
	}
	return out.String()
}
