package ledger

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
)

// Inbox is a seat's counters (SPEC §5). Overdue overlaps the others on
// purpose.
type Inbox struct {
	Seat           string `json:"seat"`
	ActionRequired int    `json:"action_required"` // the seat owes, owed now
	AwaitingPeer   int    `json:"awaiting_peer"`   // owed to the seat by another, owed now
	AwaitingHuman  int    `json:"awaiting_human"`  // phase pending_human, either side
	Overdue        int    `json:"overdue"`         // overdue, either side
	Failed         int    `json:"failed"`          // the seat's requests that failed
	Proposals      int    `json:"proposals"`       // agreements awaiting the seat's acceptance
}

// seatOf checks who may read a seat's view: the seat itself, an observer,
// verifier or admin, or anyone locally.
func seatOf(who pinki.Identity, q Query) (string, error) {
	seatName := strings.TrimSpace(q.Seat)
	if seatName == "" {
		seatName = who.Seat
	}
	if seatName == "" {
		return "", pinki.Invalid("seat", "no seat given: name the seat, or act as it")
	}
	if who.Role == pinki.RoleSeat && who.Seat != seatName {
		return "", forbidden("you are %q, and may read only your own seat's view, not %q", who.Seat, seatName)
	}
	return seatName, nil
}

// Inbox counts what a seat owes and is owed.
//
// Errors: CodeInvalid (no seat), CodeForbidden (another seat's inbox).
func (s *Service) Inbox(ctx context.Context, who pinki.Identity, q Query) (Inbox, error) {
	seatName, err := seatOf(who, q)
	if err != nil {
		return Inbox{}, err
	}
	in := Inbox{Seat: seatName}
	err = s.view(ctx, func(l *fold.Ledger) error {
		ev := l.At(s.at(q.Now))
		for _, o := range l.Of(seatName) {
			st := ev.Status(o)
			debtor := o.Debtor() == seatName
			switch {
			case st.State.Owed() && debtor:
				in.ActionRequired++
			case st.State.Owed():
				in.AwaitingPeer++
			}
			if st.State.Owed() && st.Phase == pinki.PhasePendingHuman {
				in.AwaitingHuman++
			}
			if st.State == fold.Overdue {
				in.Overdue++
			}
			if st.State == fold.Failed && o.Kind == fold.KindRequest && o.Creditor() == seatName {
				in.Failed++
			}
			if st.State == fold.Proposed && !o.AcceptedBy(seatName) {
				in.Proposals++
			}
		}
		return nil
	})
	return in, err
}

// BriefItem is one line of a briefing.
type BriefItem struct {
	ID       string      `json:"id"`
	Kind     string      `json:"kind"`
	Promise  string      `json:"promise"`
	Other    string      `json:"other"` // the other party
	State    fold.State  `json:"state"`
	Until    string      `json:"until"`
	Phase    pinki.Phase `json:"phase,omitempty"`
	Rev      int         `json:"rev"`
	On       string      `json:"on,omitempty"`
	SchemaID string      `json:"schema_id,omitempty"`
	Digest   string      `json:"digest,omitempty"`
	untilAt  int64
}

// Briefing is what a restarted seat reads at session start: what it owes
// (overdue first, then by deadline), the requests awaiting its answer, the
// proposals awaiting its acceptance, the proposals it accepted that await the
// other party's, and what it is owed. It holds no advice.
type Briefing struct {
	Seat      string      `json:"seat"`
	Now       string      `json:"now"`
	Owes      []BriefItem `json:"owes"`
	Requests  []BriefItem `json:"requests"`
	Proposals []BriefItem `json:"proposals"`
	Accepted  []BriefItem `json:"accepted"` // proposals the seat accepted, awaiting the other party
	Owed      []BriefItem `json:"owed"`
	Omitted   int         `json:"omitted"`
	Text      string      `json:"text"`
}

// primeBudget is the size the briefing's text stays under.
const primeBudget = 1900

// Prime builds a seat's session-start briefing.
//
// Errors: CodeInvalid (no seat), CodeForbidden (another seat's briefing).
func (s *Service) Prime(ctx context.Context, who pinki.Identity, q Query) (Briefing, error) {
	seatName, err := seatOf(who, q)
	if err != nil {
		return Briefing{}, err
	}
	now := s.at(q.Now)
	b := Briefing{Seat: seatName, Now: pinki.FormatTime(time.Unix(0, now).Truncate(time.Second))}
	var owes, requests, proposals, accepted, owed []BriefItem
	answer := func(l *fold.Ledger) error {
		owes, requests, proposals, accepted, owed = nil, nil, nil, nil, nil
		ev := l.At(now)
		for _, o := range l.Of(seatName) {
			st := ev.Status(o)
			if !st.State.Open() {
				continue
			}
			until, untilAt := o.Horizon()
			it := BriefItem{ID: o.ID(), Kind: o.Kind.String(), Promise: o.Record.Text, State: st.State,
				Until: until, untilAt: untilAt, Phase: st.Phase, Rev: o.Rev}
			debtor := o.Debtor() == seatName
			it.Other = o.Creditor()
			if !debtor {
				it.Other = o.Debtor()
			}
			if st.State == fold.Conditional {
				it.On = o.Record.On
			}
			switch {
			case st.State == fold.Proposed && o.AcceptedBy(seatName):
				accepted = append(accepted, it)
			case st.State == fold.Proposed:
				proposals = append(proposals, it)
			case debtor && o.Kind == fold.KindRequest:
				it.SchemaID, it.Digest = o.Record.SchemaID(), o.Digest()
				requests = append(requests, it)
			case debtor:
				owes = append(owes, it)
			default:
				owed = append(owed, it)
			}
		}
		return nil
	}
	done, err := s.fromView(ctx, seatName, answer)
	if !done && err == nil {
		if err = s.view(ctx, answer); err == nil {
			s.saveView(seatName)
		}
	}
	if err != nil {
		return Briefing{}, err
	}
	for _, list := range [][]BriefItem{owes, requests, proposals, accepted, owed} {
		sort.SliceStable(list, func(i, j int) bool {
			oi, oj := list[i].State == fold.Overdue, list[j].State == fold.Overdue
			if oi != oj {
				return oi
			}
			return list[i].untilAt < list[j].untilAt
		})
	}
	b.render(now, owes, requests, proposals, accepted, owed)
	return b, nil
}

// render writes the briefing's text within primeBudget, keeping in the
// structured lists exactly the items the text shows.
func (b *Briefing) render(now int64, owes, requests, proposals, accepted, owed []BriefItem) {
	var out strings.Builder
	fmt.Fprintf(&out, "pinki briefing for %s at %s\n", b.Seat, b.Now)
	total := len(owes) + len(requests) + len(proposals) + len(accepted) + len(owed)
	if total == 0 {
		out.WriteString("nothing open: the seat owes nothing and is owed nothing.\n")
		b.Text = out.String()
		b.Owes, b.Requests, b.Proposals, b.Accepted, b.Owed = []BriefItem{}, []BriefItem{}, []BriefItem{}, []BriefItem{}, []BriefItem{}
		return
	}
	sections := []struct {
		title string
		items []BriefItem
		dst   *[]BriefItem
	}{
		{"owes", owes, &b.Owes},
		{"requests awaiting its answer", requests, &b.Requests},
		{"proposals awaiting its acceptance", proposals, &b.Proposals},
		{"proposals it accepted, awaiting the other party", accepted, &b.Accepted},
		{"is owed", owed, &b.Owed},
	}
	// Every non-empty section keeps its heading and count, whatever the
	// budget; the items fill what is left, most pressing first.
	const reserve = 48 // room for the omitted line
	room := primeBudget - out.Len() - reserve
	for _, sec := range sections {
		if len(sec.items) > 0 {
			room -= len(heading(sec.title, len(sec.items)))
		}
	}
	shown := 0
	for _, sec := range sections {
		*sec.dst = []BriefItem{}
		if len(sec.items) == 0 {
			continue
		}
		out.WriteString(heading(sec.title, len(sec.items)))
		for _, it := range sec.items {
			line := briefLine(now, it)
			if len(line) > room {
				continue
			}
			room -= len(line)
			out.WriteString(line)
			*sec.dst = append(*sec.dst, it)
			shown++
		}
	}
	b.Omitted = total - shown
	if b.Omitted > 0 {
		fmt.Fprintf(&out, "%d more not shown.\n", b.Omitted)
	}
	b.Text = out.String()
}

func heading(title string, n int) string { return fmt.Sprintf("%s (%d):\n", title, n) }

func briefLine(now int64, it BriefItem) string {
	var b strings.Builder
	b.WriteString("- ")
	b.WriteString(it.ID)
	fmt.Fprintf(&b, " [%s", it.State)
	if it.Kind != "promise" {
		fmt.Fprintf(&b, " %s", it.Kind)
	}
	switch it.State {
	case fold.Detached, fold.Proposed, fold.Conditional:
		fmt.Fprintf(&b, ", due in %s", Span(it.untilAt-now))
	case fold.Overdue:
		fmt.Fprintf(&b, " %s", Span(now-it.untilAt))
	}
	if it.Phase != "" && it.Phase != pinki.PhaseAcknowledged {
		fmt.Fprintf(&b, ", %s", it.Phase)
	}
	fmt.Fprintf(&b, ", rev %d] %s: %s", it.Rev, it.Other, Clip(it.Promise, 44))
	if it.On != "" {
		fmt.Fprintf(&b, " (waits on %s)", it.On)
	}
	if it.SchemaID != "" {
		fmt.Fprintf(&b, " (schema %s)", it.SchemaID)
	}
	if it.Digest != "" {
		fmt.Fprintf(&b, " digest %s", it.Digest)
	}
	b.WriteByte('\n')
	return b.String()
}

// Clip shortens s to at most n characters, ending with "..." when cut, and
// replaces control characters with spaces.
func Clip(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-3]) + "..."
}

// Span renders a duration for people: 45s, 12m, 3h, 3h20m, 2d, 2d4h.
func Span(ns int64) string {
	d := time.Duration(ns)
	if d < 0 {
		d = -d
	}
	d = d.Round(time.Second) // "+2h" read a moment later is still 2h, not 1h59m
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d/time.Second))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 24*time.Hour:
		h, m := int(d/time.Hour), int(d%time.Hour/time.Minute)
		if m == 0 || h >= 10 {
			return fmt.Sprintf("%dh", h)
		}
		return fmt.Sprintf("%dh%dm", h, m)
	default:
		days, h := int(d/(24*time.Hour)), int(d%(24*time.Hour)/time.Hour)
		if h == 0 || days >= 10 {
			return fmt.Sprintf("%dd", days)
		}
		return fmt.Sprintf("%dd%dh", days, h)
	}
}

// AgreementSet is a seat's agreements, grouped: current (agreed and owed,
// not overdue: detached, or conditional on an antecedent), pending
// proposals, overdue, and ended.
type AgreementSet struct {
	Seat    string `json:"seat"`
	Current []Item `json:"current"`
	Pending []Item `json:"pending"`
	Overdue []Item `json:"overdue"`
	Ended   []Item `json:"ended"`
}

// Agreements lists a seat's agreements by group.
//
// Errors: CodeInvalid (no seat), CodeForbidden (another seat's agreements).
func (s *Service) Agreements(ctx context.Context, who pinki.Identity, q Query) (AgreementSet, error) {
	seatName, err := seatOf(who, q)
	if err != nil {
		return AgreementSet{}, err
	}
	set := AgreementSet{Seat: seatName, Current: []Item{}, Pending: []Item{}, Overdue: []Item{}, Ended: []Item{}}
	err = s.view(ctx, func(l *fold.Ledger) error {
		ev := l.At(s.at(q.Now))
		for _, o := range l.Of(seatName) {
			if o.Kind != fold.KindAgreement {
				continue
			}
			st := ev.Status(o)
			it := item(o, st)
			switch st.State {
			case fold.Detached, fold.Conditional:
				set.Current = append(set.Current, it)
			case fold.Proposed:
				set.Pending = append(set.Pending, it)
			case fold.Overdue:
				set.Overdue = append(set.Overdue, it)
			default:
				set.Ended = append(set.Ended, it)
			}
		}
		return nil
	})
	return set, err
}
