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

// fetchOne reads the event at one ref.
func (s *Service) fetchOne(ctx context.Context, ref fold.Ref) (pinki.Event, error) {
	evs, err := s.fetch(ctx, []fold.Ref{ref})
	if err != nil {
		return pinki.Event{}, err
	}
	return evs[0], nil
}

// histories fetches the applied events of several obligations at once,
// reading each line once, and returns them per obligation in ledger order.
func (s *Service) histories(ctx context.Context, obs []*fold.Obligation) ([][]pinki.Event, error) {
	var refs []fold.Ref
	for _, o := range obs {
		refs = append(refs, o.Events...)
	}
	order := make([]int, len(refs))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return refs[order[a]].Seq < refs[order[b]].Seq })
	sorted := make([]fold.Ref, len(refs))
	for i, j := range order {
		sorted[i] = refs[j]
	}
	events, err := s.fetch(ctx, sorted)
	if err != nil {
		return nil, err
	}
	flat := make([]pinki.Event, len(refs))
	for i, j := range order {
		flat[j] = events[i]
	}
	out := make([][]pinki.Event, len(obs))
	k := 0
	for i, o := range obs {
		out[i] = flat[k : k+len(o.Events)]
		k += len(o.Events)
	}
	return out, nil
}
