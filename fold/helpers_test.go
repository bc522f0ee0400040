package fold_test

import (
	"bufio"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
)

// decodeAll decodes ledger lines, failing the test on any line it cannot.
func decodeAll(t testing.TB, lines []string) []pinki.Event {
	t.Helper()
	var dec pinki.Decoder
	events := make([]pinki.Event, 0, len(lines))
	for i, line := range lines {
		e, err := dec.Decode([]byte(line))
		if err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, line)
		}
		events = append(events, e)
	}
	return events
}

// foldEvents folds events in order, numbering them from 1.
func foldEvents(events []pinki.Event) *fold.Ledger {
	l := fold.New()
	for i := range events {
		l.Apply(int64(i+1), &events[i])
	}
	return l
}

// instants returns the instants at which a ledger's answers can change: every
// ts and until, a nanosecond either side, and two far ends, sorted and
// deduplicated.
func instants(events []pinki.Event) []int64 {
	set := map[int64]bool{math.MinInt64: true, math.MaxInt64: true}
	add := func(n int64) {
		set[n] = true
		if n > math.MinInt64 {
			set[n-1] = true
		}
		if n < math.MaxInt64 {
			set[n+1] = true
		}
	}
	for i := range events {
		add(events[i].At)
		if events[i].Until != "" {
			add(events[i].UntilAt)
		}
	}
	out := make([]int64, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// withMeta returns events with every meta replaced by meta(i, old).
func withMeta(events []pinki.Event, meta func(i int, old string) string) []pinki.Event {
	out := make([]pinki.Event, len(events))
	for i, e := range events {
		e.Meta = meta(i, e.Meta)
		out[i] = e
	}
	return out
}

// metaMutations are the ways every meta of a ledger is mutated: removed,
// replaced by (or set to) a different non-empty object that mimics fields
// the fold reads, and added where there was none.
var metaMutations = []struct {
	name string
	meta func(i int, old string) string
}{
	{"removed", func(int, string) string { return "" }},
	{"replaced", func(i int, _ string) string {
		return fmt.Sprintf(`{"mutated":%d,"state":"satisfied","until":"1970-01-01T00:00:00Z","rev":%d,"as":"cancelled","on":"x"}`, i, i)
	}},
	{"added", func(i int, old string) string {
		if old != "" {
			return old
		}
		return fmt.Sprintf(`{"added":[%d,{"lapse":"expire"}]}`, i)
	}},
}

// mutateLine re-encodes one ledger line with its meta set to meta.
func mutateLine(t testing.TB, line string, meta string) string {
	t.Helper()
	e, err := pinki.DecodeLine([]byte(line))
	if err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	e.Meta = meta
	b := pinki.AppendLine(nil, &e)
	return string(b[:len(b)-1])
}

// traceLedgers returns the input of every `ledger` command of a trace file,
// in order.
func traceLedgers(t testing.TB, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var blocks [][]string
	var cur []string
	in := false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "ledger":
			in, cur = true, nil
		case in && line == "----":
			in = false
			blocks = append(blocks, cur)
		case in:
			cur = append(cur, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return blocks
}

// traceFiles lists the fold traces.
func traceFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no traces: %v", err)
	}
	sort.Strings(files)
	return files
}

// genLedger writes n random but plausible ledger lines: a few ids (some of
// them never declared, some declared twice), three seats, every event type,
// ts mostly increasing with jumps back, antecedents that may be unknown,
// self-referencing or cyclic, accepts that name the current rev most of the
// time, and meta on about a third of the lines.
func genLedger(r *rand.Rand, n int) []string {
	ids := []string{"a", "b", "c", "d", "e", "desk/ship-91", "約束-7", "pnk_0c2b77"}
	ons := append(ids[:len(ids):len(ids)], "ghost")
	seats := []string{"alice", "bob", "carol"}
	outcomes := []pinki.Outcome{pinki.Satisfied, pinki.Satisfied, pinki.Failed, pinki.Cancelled, pinki.Released}
	phases := []pinki.Phase{pinki.PhaseAcknowledged, pinki.PhaseInProgress, pinki.PhaseBlocked, pinki.PhasePendingHuman}
	ts := time.Date(2026, 9, 1, 9, 0, 0, 0, time.UTC)
	l := fold.New()
	var out []string
	for i := 0; i < n; i++ {
		ts = ts.Add(time.Duration(r.Intn(150)-20) * time.Minute)
		id := ids[r.Intn(len(ids))]
		e := pinki.Event{TS: pinki.FormatTime(ts), Subject: id}
		seat := seats[r.Intn(len(seats))]
		k := r.Intn(20)
		if l.Get(id) == nil && r.Intn(4) != 0 {
			k = 0 // mostly declare an id before using it
		}
		switch {
		case k < 4:
			e.Subject = ""
			e.Type = []pinki.Type{pinki.TypePromise, pinki.TypeRequest, pinki.TypePropose}[r.Intn(3)]
			e.ID, e.Text, e.By, e.To = id, "text "+id, seat, seats[r.Intn(len(seats))]
			if r.Intn(2) == 0 {
				e.On = ons[r.Intn(len(ons))]
			}
			e.Until = pinki.FormatTime(ts.Add(time.Duration(r.Intn(30*60)-120) * time.Minute))
			switch r.Intn(6) {
			case 0:
				e.Lapse = pinki.LapseExpire
			case 1:
				e.Lapse = pinki.LapseOverdue
			}
			if e.Type == pinki.TypePropose {
				e.Proposer = []string{"by", "to"}[r.Intn(2)]
			}
		case k < 6:
			e.Type, e.By = pinki.TypeAmend, seat
			e.Until = pinki.FormatTime(ts.Add(time.Duration(r.Intn(12*60)-180) * time.Minute))
		case k < 10:
			e.Type, e.By, e.Rev = pinki.TypeAccept, seat, 1+r.Intn(6)
			var open []string // mostly accept a proposal still open
			for _, o := range l.Obligations() {
				if o.Kind == fold.KindAgreement && o.Resolution == nil {
					open = append(open, o.ID())
				}
			}
			if len(open) > 0 && r.Intn(5) != 0 {
				id = open[r.Intn(len(open))]
				e.Subject = id
			}
			if o := l.Get(id); o != nil && r.Intn(5) != 0 {
				e.Rev = o.Rev
				if r.Intn(5) != 0 {
					e.By = []string{o.Debtor(), o.Creditor()}[r.Intn(2)]
				}
			}
		case k < 12:
			e.Type, e.By, e.Phase = pinki.TypeProgress, seat, phases[r.Intn(len(phases))]
		case k < 15:
			e.Type, e.By, e.As = pinki.TypeResolve, seat, outcomes[r.Intn(len(outcomes))]
			if e.As == pinki.Satisfied {
				e.Evidence = []string{"https://example.org/" + id}
			} else {
				e.Reason = "because"
			}
		case k < 18:
			e.Type, e.Observer = pinki.TypeAssess, seat
			e.State = []string{"violated", "kept", "disputed"}[r.Intn(3)]
		default:
			e.Type, e.By, e.Target = pinki.TypeBind, seat, `{"kind":"todo","item":"`+id+`"}`
		}
		if r.Intn(3) == 0 {
			e.Meta = fmt.Sprintf(`{"n":%d}`, i)
		}
		b := pinki.AppendLine(nil, &e)
		line := string(b[:len(b)-1])
		d, err := pinki.DecodeLine([]byte(line))
		if err != nil {
			panic(fmt.Sprintf("generated line does not decode: %v: %s", err, line))
		}
		l.Apply(int64(i+1), &d)
		out = append(out, line)
	}
	return out
}

// statusesInOrder evaluates every obligation at now in the given order with
// one evaluator, and returns the statuses by id.
func statusesInOrder(l *fold.Ledger, now int64, order []int) map[string]fold.Status {
	ev := l.At(now)
	obs := l.Obligations()
	out := make(map[string]fold.Status, len(obs))
	for _, i := range order {
		out[obs[i].ID()] = ev.Status(obs[i])
	}
	return out
}

func describe(m map[string]fold.Status) string {
	var ids []string
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var b strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&b, "%s=%+v\n", id, m[id])
	}
	return b.String()
}
