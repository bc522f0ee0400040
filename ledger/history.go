package ledger

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
)

// fetch reads the events at refs from the store, in the order of refs. The
// fold keeps state and references; the log keeps the history (reasons,
// notes, evidence, responses), so showing or exporting reads it back.
//
// Errors: CodeUnavailable when the store cannot be read; pinki.ErrReplaced
// (wrapped) when the lines are no longer where the fold saw them.
func (s *Service) fetch(ctx context.Context, refs []fold.Ref) ([]pinki.Event, error) {
	if len(refs) == 0 {
		return nil, nil
	}
	if f, ok := s.store.(pinki.Fetcher); ok {
		lines := make([]pinki.LineRef, len(refs))
		for i, r := range refs {
			lines[i] = pinki.LineRef{Seq: r.Seq, Offset: r.Offset}
		}
		entries, err := f.Fetch(ctx, lines)
		if err != nil {
			return nil, err
		}
		out := make([]pinki.Event, len(entries))
		for i := range entries {
			out[i] = entries[i].Event
		}
		return out, checkFetched(refs, out)
	}
	// Read sequentially from the earliest line wanted to the latest.
	want := make(map[int64]int, len(refs))
	lo, hi := refs[0].Seq, refs[0].Seq
	for i, r := range refs {
		want[r.Seq] = i
		lo, hi = min(lo, r.Seq), max(hi, r.Seq)
	}
	out := make([]pinki.Event, len(refs))
	found := 0
	_, err := s.store.Read(ctx, pinki.Position{Seq: lo - 1}, func(en pinki.Entry) error {
		if i, ok := want[en.Seq]; ok && en.Err == nil {
			out[i] = en.Event
			found++
		}
		if en.Seq >= hi {
			return errStop
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, err
	}
	if found != len(refs) {
		return nil, pinki.Errorf(pinki.CodeUnavailable, "the store no longer holds lines the fold saw")
	}
	return out, checkFetched(refs, out)
}

// checkFetched makes sure each fetched event is the one the fold saw: the
// same type (the caller also knows the obligation).
func checkFetched(refs []fold.Ref, events []pinki.Event) error {
	for i, r := range refs {
		if r.Type != "" && events[i].Type != r.Type {
			return fmt.Errorf("line %d is no longer the %s the fold saw: %w", r.Seq, r.Type, pinki.ErrReplaced)
		}
	}
	return nil
}

var errStop = errors.New("stop")

// lines holds the events a read or a decision needs from the log. The fold
// keeps references; reading the lines they name is store I/O (a pread, a
// PostgreSQL round trip, a whole export), which must not happen under the
// service's lock, or every writer, and every reader behind it, would wait on
// it. So a function run by withLines asks lines for what it needs; what is
// not fetched yet is noted, the function gives up with errMissing, the lines
// are fetched with no lock held, and it runs again. Lines never change once
// written, so what was fetched stays good however the fold moves on, as
// long as it is the same ledger: when the service folds a replaced ledger
// again (a new generation), what was fetched is dropped.
type lines struct {
	got        map[int64]pinki.Event
	missing    []wantedLine
	generation int
}

type wantedLine struct {
	ref fold.Ref
	id  string // the obligation the line must be about
}

// errMissing is returned by a function run by withLines that needs lines it
// does not have yet.
var errMissing = errors.New("ledger: lines not fetched yet")

// history returns o's applied events in ledger order; ok is false when some
// are not fetched yet (they are noted).
func (ls *lines) history(o *fold.Obligation) (events []pinki.Event, ok bool) {
	events = make([]pinki.Event, len(o.Events))
	ok = true
	for i, r := range o.Events {
		e, found := ls.got[r.Seq]
		if !found {
			ls.missing = append(ls.missing, wantedLine{r, o.ID()})
			ok = false
		}
		events[i] = e
	}
	return events, ok
}

// event returns the event at ref, about o.
func (ls *lines) event(o *fold.Obligation, ref fold.Ref) (pinki.Event, bool) {
	e, found := ls.got[ref.Seq]
	if !found {
		ls.missing = append(ls.missing, wantedLine{ref, o.ID()})
	}
	return e, found
}

// fetchRounds bounds how often withLines fetches outside the lock before it
// fetches under it (the fold moving on faster than lines arrive).
const fetchRounds = 3

// withLines runs fn against the fold (as view does) with the lines it asks
// ls for, fetched outside the lock; see lines. fn returns errMissing when it
// asked for lines ls did not have.
//
// Errors: fn's; CodeUnavailable when the store cannot be read;
// pinki.ErrReplaced (wrapped) when a line is not what the fold saw.
func (s *Service) withLines(ctx context.Context, fn func(l *fold.Ledger, ls *lines) error) error {
	ls := &lines{got: map[int64]pinki.Event{}, generation: -1}
	for round := 0; ; round++ {
		ls.missing = ls.missing[:0]
		last := round == fetchRounds
		err := s.view(ctx, func(l *fold.Ledger) error {
			if ls.generation != s.generation {
				clear(ls.got)
				ls.generation = s.generation
			}
			err := fn(l, ls)
			if !last || !errors.Is(err, errMissing) {
				return err
			}
			if err := s.fill(ctx, ls); err != nil {
				return err
			}
			ls.missing = ls.missing[:0]
			if err = fn(l, ls); errors.Is(err, errMissing) {
				return pinki.Errorf(pinki.CodeInternal, "lines fetched under the lock are still missing")
			}
			return err
		})
		if !errors.Is(err, errMissing) {
			return err
		}
		if err := s.fill(ctx, ls); err != nil {
			if errors.Is(err, pinki.ErrReplaced) {
				// The ledger was replaced since fn ran: what fn saw is
				// gone. Catch up (or let the follower) and run it again.
				clear(ls.got)
				continue
			}
			return err
		}
	}
}

// fill fetches the lines ls misses, in ledger order, and checks each is
// about the obligation the fold saw it about.
func (s *Service) fill(ctx context.Context, ls *lines) error {
	want := ls.missing
	sort.Slice(want, func(a, b int) bool { return want[a].ref.Seq < want[b].ref.Seq })
	refs := make([]fold.Ref, 0, len(want))
	ids := make([]string, 0, len(want))
	for i, w := range want {
		if i > 0 && w.ref.Seq == want[i-1].ref.Seq {
			continue
		}
		refs = append(refs, w.ref)
		ids = append(ids, w.id)
	}
	events, err := s.fetch(ctx, refs)
	if err != nil {
		return err
	}
	for i, e := range events {
		if e.Key() != ids[i] {
			return fmt.Errorf("line %d is no longer about %s, as the fold saw it: %w", refs[i].Seq, ids[i], pinki.ErrReplaced)
		}
		ls.got[refs[i].Seq] = e
	}
	return nil
}
