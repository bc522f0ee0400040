// Package ledgergen writes realistic, deterministic pinki ledgers for
// benchmarks: a quarter of the events create obligations (promises, one in
// ten a request, one in ten a proposal) spread over the seats, with
// antecedents, amends, progress, acceptances, resolves and assessments, in
// time order; a tenth of the obligations are never resolved.
package ledgergen

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/pinki-ledger/pinki"
)

// Write writes a ledger of total events over nseats seats to w, the same
// bytes for the same arguments.
func Write(w io.Writer, total, nseats int, seed uint64) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	return generate(bw, total, nseats, seed)
}

type open struct {
	id       string
	kind     pinki.Type
	by, to   string
	until    time.Time
	rev      int
	accepted int
	events   int    // events still planned for it
	digest   string // of its creation, for a request's response
}

func generate(w *bufio.Writer, total, nseats int, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	seats := make([]string, nseats)
	for i := range seats {
		seats[i] = fmt.Sprintf("https://agents.example.org/fleet/seat-%02d", i)
	}
	texts := []string{
		"hand back a reviewed schema", "ship the nightly build with release notes",
		"summarize the incident and link the postmortem", "answer the inventory question",
		"rotate the staging credentials", "write the migration plan for the billing tables",
		"review pull request and leave comments", "deliver the weekly metrics digest",
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	creations := total / 4
	var live []*open
	var done []string // resolved ids, for antecedents
	written, created, minted := 0, 0, 0
	buf := make([]byte, 0, 1024)
	emit := func(e *pinki.Event) error {
		e.TS = pinki.FormatTime(now)
		buf = pinki.AppendLine(buf[:0], e)
		written++
		_, err := w.Write(buf)
		return err
	}
	for written < total {
		now = now.Add(time.Duration(20+rng.IntN(40)) * time.Second)
		// Create while creations remain and the live set is small, else act.
		if created < creations && (len(live) < 2000 || rng.IntN(4) == 0) {
			minted++
			o := &open{id: fmt.Sprintf("pnk_%06x", minted), kind: pinki.TypePromise, rev: 1}
			if minted%7 == 0 {
				o.id = fmt.Sprintf("desk/ship-%d", minted)
			}
			switch r := rng.IntN(10); {
			case r == 0:
				o.kind = pinki.TypeRequest
			case r == 1:
				o.kind = pinki.TypePropose
			}
			o.by = seats[rng.IntN(nseats)]
			o.to = seats[rng.IntN(nseats)]
			o.until = now.Add(time.Duration(1+rng.IntN(72)) * time.Hour)
			o.events = 2 + rng.IntN(3)
			e := &pinki.Event{Type: o.kind, ID: o.id, Text: texts[rng.IntN(len(texts))], By: o.by, To: o.to,
				Until: pinki.FormatTime(o.until)}
			if o.kind == pinki.TypePropose {
				e.Proposer = "to"
				o.events = 4
			}
			if o.kind == pinki.TypeRequest {
				e.Text = "how many units of SKU ABC-123 are in stock?"
			}
			if o.kind == pinki.TypePromise && len(done) > 0 && rng.IntN(5) == 0 {
				e.On = done[rng.IntN(len(done))] // satisfied: the promise is owed at once
			}
			if rng.IntN(10) == 0 {
				e.Meta = `{"component":"dispatcher","policy":"p7"}`
			}
			if err := emit(e); err != nil {
				return err
			}
			o.digest = pinki.Digest(e)
			created++
			live = append(live, o)
			continue
		}
		if len(live) == 0 {
			break
		}
		i := rng.IntN(len(live))
		o := live[i]
		var e *pinki.Event
		switch {
		case o.kind == pinki.TypePropose && o.accepted < 2 && now.After(o.until):
			// The window closed before both accepted: the proposer reopens it.
			o.until = now.Add(time.Duration(1+rng.IntN(48)) * time.Hour)
			e = &pinki.Event{Type: pinki.TypeAmend, Subject: o.id, By: o.to, Until: pinki.FormatTime(o.until), Reason: "reopen"}
			o.accepted = 0
			o.rev++
			o.events++
		case o.kind == pinki.TypePropose && o.accepted < 2:
			by := o.to
			if o.accepted == 1 {
				by = o.by
			}
			e = &pinki.Event{Type: pinki.TypeAccept, Subject: o.id, By: by, Rev: o.rev}
			o.accepted++
			if o.by == o.to {
				o.accepted++ // an agreement with oneself needs one acceptance
			}
			o.rev++
		case o.events > 1 && o.kind != pinki.TypePropose && rng.IntN(3) == 0:
			o.until = o.until.Add(time.Duration(15+rng.IntN(120)) * time.Minute)
			e = &pinki.Event{Type: pinki.TypeAmend, Subject: o.id, By: o.by, Until: pinki.FormatTime(o.until), Reason: "nudge"}
			o.rev++
		case o.events > 1 && rng.IntN(2) == 0:
			phases := []pinki.Phase{pinki.PhaseAcknowledged, pinki.PhaseInProgress, pinki.PhaseBlocked}
			e = &pinki.Event{Type: pinki.TypeProgress, Subject: o.id, By: o.by, Phase: phases[rng.IntN(len(phases))]}
			o.rev++
		case o.events > 1:
			e = &pinki.Event{Type: pinki.TypeAssess, Subject: o.id, Observer: seats[rng.IntN(nseats)], State: "violated", Note: "nothing delivered yet"}
		default:
			live[i] = live[len(live)-1]
			live = live[:len(live)-1]
			if rng.IntN(10) == 0 {
				// A tenth are never resolved: they stay open (overdue) for good.
				e = &pinki.Event{Type: pinki.TypeAssess, Subject: o.id, Observer: o.to, State: "violated", Note: "abandoned"}
				break
			}
			e = resolve(rng, o)
			if e.As == pinki.Satisfied {
				done = append(done, o.id)
			}
		}
		o.events--
		if err := emit(e); err != nil {
			return err
		}
	}
	return w.Flush()
}

func resolve(rng *rand.Rand, o *open) *pinki.Event {
	e := &pinki.Event{Type: pinki.TypeResolve, Subject: o.id, As: pinki.Satisfied, By: o.by}
	switch r := rng.IntN(20); {
	case r < 16:
		e.Evidence = []string{fmt.Sprintf("https://git.example.org/commits/%08x", rng.Uint32())}
		if o.kind == pinki.TypeRequest {
			e.Evidence = nil
			e.Response = `{"quantity":4}`
			e.Digest = o.digest
		}
	case r < 18:
		e.As, e.Reason = pinki.Cancelled, "superseded by a newer plan"
	case r < 19:
		e.As, e.Reason = pinki.Failed, "the upstream service was down all day"
	default:
		e.As, e.By = pinki.Released, o.to
	}
	return e
}
