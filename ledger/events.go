package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/pinki-ledger/pinki"
)

// EventRecord is one ledger line with its sequence number.
type EventRecord struct {
	Seq   int64           `json:"seq"`
	Event json.RawMessage `json:"event"`
}

var errPageFull = errors.New("page full")

// Events returns up to limit events after sequence number after, in ledger
// order, as the lines the ledger holds; for a seat, only the events about
// obligations it is a party to. Next is the sequence number to continue
// after. Lines this version does not understand are skipped, and reported to
// Options.OnUnknownLine.
//
// Errors: CodeUnavailable when the store cannot be read.
func (s *Service) Events(ctx context.Context, who pinki.Identity, after int64, limit int) ([]EventRecord, int64, error) {
	if limit <= 0 || limit > 10000 {
		limit = 1000
	}
	out := []EventRecord{}
	next := after
	seatOnly := who.Role == pinki.RoleSeat
	if seatOnly && s.Position().Seq < after {
		// The fold must know every obligation created up to after: those
		// created later are met in this read.
		if err := s.catchUp(ctx); err != nil {
			return nil, after, err
		}
	}
	// met holds whether the seat is a party to the obligations created in
	// this read that the fold does not know yet (it may lag the store).
	met := map[string]bool{}
	mine := func(e *pinki.Event) bool {
		key := e.Key()
		if v, ok := met[key]; ok {
			return v
		}
		if known, party := s.partyOf(who.Seat, key); known {
			return party
		}
		if e.Type.Creates() {
			met[key] = e.By == who.Seat || e.To == who.Seat
			return met[key]
		}
		return false
	}
	_, err := s.store.Read(ctx, pinki.Position{Seq: after}, func(en pinki.Entry) error {
		if len(out) == limit {
			return errPageFull
		}
		next = en.Seq
		if en.Err != nil {
			if s.opts.OnUnknownLine != nil {
				s.opts.OnUnknownLine(en.Seq, en.Raw, en.Err)
			}
			return nil
		}
		if seatOnly && !mine(&en.Event) {
			return nil
		}
		line := pinki.AppendLine(nil, &en.Event)
		out = append(out, EventRecord{Seq: en.Seq, Event: json.RawMessage(line[:len(line)-1])})
		return nil
	})
	if err != nil && !errors.Is(err, errPageFull) {
		return nil, after, pinki.AsError(err)
	}
	return out, next, nil
}

// partyOf reports whether the fold knows id and, if so, whether seat is one
// of its parties.
func (s *Service) partyOf(seat, id string) (known, party bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	o := s.fold.Get(id)
	return o != nil, o != nil && o.Party(seat)
}

// Import appends events exactly as given, with no rules: a ledger moved from
// another store, or history with past deadlines. Into a store that already
// holds events it refuses, unless add is set. It appends in batches of 1,000
// events, each atomic, and returns how many events it appended: on an error
// part way, the first n events are in the ledger and the rest are not, so a
// caller resumes from event n (with add set).
//
// Errors: CodeForbidden unless who is an admin or unknown; CodeConflict when
// the store is not empty and add is false; the store's append errors.
func (s *Service) Import(ctx context.Context, who pinki.Identity, events []pinki.Event, add bool) (int, error) {
	if who.Known() && who.Role != pinki.RoleAdmin {
		return 0, forbidden("import writes history as any seat: it needs an admin token")
	}
	if err := s.catchUp(ctx); err != nil {
		return 0, err
	}
	pos := s.Position()
	if pos.Seq > 0 && !add {
		return 0, (&pinki.Error{Code: pinki.CodeConflict,
			Message: "the target ledger already holds " + strconv.FormatInt(pos.Seq, 10) + " lines"}).
			WithHint("import into an empty ledger, or append to this one")
	}
	const batch = 1000
	n := 0
	for len(events) > 0 {
		k := min(batch, len(events))
		if _, err := s.store.Append(ctx, events[:k], nil); err != nil {
			return n, pinki.AsError(err)
		}
		n += k
		events = events[k:]
	}
	return n, s.catchUp(ctx)
}
