// Package ledger is pinki's service layer: the one place that holds the rules.
// Every surface (CLI, HTTP, MCP, A2A, verifiers) calls a Service; none of them
// validates, mints ids, checks authority, decides idempotency or compares
// revisions on its own.
//
// A Service keeps the fold of its Store in memory, catches up with whatever
// other writers appended, validates each write against that fold, and appends
// with fences so that a concurrent change to the same obligation makes the
// append fail rather than land on a stale decision.
//
// Errors: every method returns *pinki.Error values (see pinki.Code).
package ledger

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
)

// Options configure a Service. The zero value uses the wall clock and
// crypto/rand.
type Options struct {
	// Clock returns the current time. Events are stamped with it, truncated to
	// whole seconds (the ledger's ts precision); states are computed at it.
	Clock func() time.Time
	// Random is the source for minted ids.
	Random io.Reader
	// Follow makes the Service follow the store in the background and answer
	// reads from its fold without first catching up (servers). Without it,
	// every call catches up first (the CLI: one call per process).
	Follow bool
	// SnapshotEvery is how many events a catch-up must read before the
	// Service saves a fresh snapshot to a store that keeps them. 0 means 4096.
	SnapshotEvery int
	// OnUnknownLine, if set, is called once for each line the store could not
	// decode, as the fold meets it, and for each such line Events skips.
	OnUnknownLine func(seq int64, raw []byte, err error)
}

// Service is the ledger's rules over a Store. It is safe for concurrent use.
type Service struct {
	store pinki.Store
	opts  Options

	// catching serializes catch-ups (the fold's only writer); mu guards
	// the fold, taken for reading by every read and decision, and for
	// writing only to apply one entry or swap the fold.
	catching sync.Mutex
	mu       sync.RWMutex
	fold     *fold.Ledger
	loaded   bool
	// generation counts the folds swapped in (a replaced ledger folded
	// again): lines fetched for one fold are not taken for another's.
	generation int

	followCancel context.CancelFunc
	followDone   chan struct{}
}

// New returns a Service over store. It reads nothing until first used.
func New(store pinki.Store, opts Options) *Service {
	if opts.Clock == nil {
		opts.Clock = time.Now
	}
	if opts.Random == nil {
		opts.Random = rand.Reader
	}
	if opts.SnapshotEvery <= 0 {
		opts.SnapshotEvery = 4096
	}
	s := &Service{store: store, opts: opts, fold: fold.New()}
	if opts.Follow {
		ctx, cancel := context.WithCancel(context.Background())
		s.followCancel = cancel
		s.followDone = make(chan struct{})
		go s.follow(ctx)
	}
	return s
}

// Close stops following the store. It does not close the store.
func (s *Service) Close() {
	if s.followCancel != nil {
		s.followCancel()
		<-s.followDone
	}
}

// Store returns the service's store.
func (s *Service) Store() pinki.Store { return s.store }

// Now is the service clock's current time.
func (s *Service) Now() time.Time { return s.opts.Clock() }

func (s *Service) follow(ctx context.Context) {
	defer close(s.followDone)
	for ctx.Err() == nil {
		if err := s.catchUp(ctx); err != nil {
			select {
			case <-ctx.Done():
				return
			case <-time.After(200 * time.Millisecond):
			}
			continue
		}
		s.mu.RLock()
		pos := s.fold.Position()
		s.mu.RUnlock()
		if err := s.store.Wait(ctx, pos); err != nil && ctx.Err() == nil {
			select {
			case <-ctx.Done():
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}
}

// catchUp folds whatever the store holds beyond the fold's position. The
// first call loads a snapshot when the store keeps one.
func (s *Service) catchUp(ctx context.Context) error {
	// One catch-up at a time: it is the fold's only writer, so while it
	// holds catching, a read lock is enough to read the fold whole. The
	// store is read with mu not held; what it reads is applied under mu in
	// one go when the read ends (in blocks of applyBlock entries for a long
	// one), so that a slow read (a PostgreSQL round trip, a large tail)
	// never keeps readers and deciders waiting, and so that they see the
	// lines of one append together.
	s.catching.Lock()
	defer s.catching.Unlock()
	s.mu.Lock()
	if !s.loaded {
		s.loadSnapshot()
		s.loaded = true
	}
	from := s.fold.Position()
	s.mu.Unlock()
	read := 0
	var pending []pinki.Entry
	applyPending := func() { // with mu held
		for i := range pending {
			s.fold.ApplyEntry(&pending[i])
		}
		clear(pending)
		pending = pending[:0]
	}
	collect := func(en pinki.Entry) error {
		if en.Err != nil && s.opts.OnUnknownLine != nil {
			s.opts.OnUnknownLine(en.Seq, en.Raw, en.Err)
		}
		pending = append(pending, en)
		read++
		if len(pending) >= applyBlock {
			s.mu.Lock()
			applyPending()
			s.mu.Unlock()
		}
		return nil
	}
	pos, err := s.store.Read(ctx, from, collect)
	if errors.Is(err, pinki.ErrReplaced) {
		// The file under the fold was replaced (a checkout, a restore): fold
		// it again from the start, aside, and swap it in whole.
		clear(pending)
		pending = nil
		fresh := fold.New()
		read = 0
		pos, err = s.store.Read(ctx, pinki.Position{}, func(en pinki.Entry) error {
			if en.Err != nil && s.opts.OnUnknownLine != nil {
				s.opts.OnUnknownLine(en.Seq, en.Raw, en.Err)
			}
			fresh.ApplyEntry(&en)
			read++
			return nil
		})
		if err != nil {
			return pinki.AsError(err)
		}
		s.mu.Lock()
		s.fold = fresh
		s.generation++
		s.mu.Unlock()
	}
	s.mu.Lock()
	applyPending()
	if err != nil {
		// Cut short: the fold holds what it applied, at a position without
		// the store's mark; take the store's mark when it names that point.
		if pos.Seq == s.fold.Position().Seq && pos.Mark > 0 {
			s.fold.SetPosition(pos)
		}
		s.mu.Unlock()
		return pinki.AsError(err)
	}
	s.fold.SetPosition(pos)
	s.mu.Unlock()
	if read >= s.opts.SnapshotEvery {
		s.mu.RLock()
		s.saveSnapshot()
		s.mu.RUnlock()
	}
	return nil
}

// applyBlock is how many entries a long catch-up reads before it applies
// them: a bound on what it holds in memory. Only a catch-up longer than that
// (a first fold, a big import) can show readers part of one append.
const applyBlock = 4096

// view runs fn with the fold read-locked, after catching up unless the
// service follows the store.
func (s *Service) view(ctx context.Context, fn func(l *fold.Ledger) error) error {
	if !s.opts.Follow || !s.isLoaded() {
		if err := s.catchUp(ctx); err != nil {
			return err
		}
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return fn(s.fold)
}

func (s *Service) isLoaded() bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.loaded
}

// Position is the point up to which the service has folded the ledger.
func (s *Service) Position() pinki.Position {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.fold.Position()
}

// Sync catches up with the store now, whether or not the service follows it.
func (s *Service) Sync(ctx context.Context) error { return s.catchUp(ctx) }

// now is the clock truncated to the ledger's precision.
func (s *Service) stamp() (string, int64) {
	t := s.opts.Clock().UTC().Truncate(time.Second)
	return pinki.FormatTime(t), t.UnixNano()
}

// plan is what a rule decided for one write: the events to append with their
// fences, or nothing (an idempotent retry), and the receipt to return.
type plan struct {
	events  []pinki.Event
	fences  []pinki.Fence
	receipt Receipt
}

// maxAttempts bounds the retries of a write that lost a race it did not ask to
// be fenced against (no expected rev).
const maxAttempts = 16

// errDecideAgain is returned by a decision that saw the ledger part way
// through an append: write catches up and decides again.
var errDecideAgain = errors.New("ledger: decide again")

// write decides with decide against the current fold and appends the result.
// When the append fails a fence and the caller gave no expected revision, it
// catches up and decides again.
func (s *Service) write(ctx context.Context, fenced bool, decide func(l *fold.Ledger, ls *lines, ts string, at int64) (plan, error)) (Receipt, error) {
	var last error
	if fenced {
		// The caller named the revision it saw: compare it with the latest.
		if err := s.catchUp(ctx); err != nil {
			return Receipt{}, err
		}
	}
	for attempt := 0; attempt < maxAttempts; attempt++ {
		var p plan
		err := s.withLines(ctx, func(l *fold.Ledger, ls *lines) error {
			ts, at := s.stamp()
			var err error
			p, err = decide(l, ls, ts, at)
			return err
		})
		if errors.Is(err, errDecideAgain) {
			last = pinki.Errorf(pinki.CodeConflict, "the ledger kept changing while this write was decided")
			if err := s.catchUp(ctx); err != nil {
				return Receipt{}, err
			}
			continue
		}
		if err != nil {
			return Receipt{}, err
		}
		if len(p.events) == 0 {
			p.receipt.Idempotent = true
			return s.finish(ctx, p.receipt)
		}
		if err := readsBack(p.events); err != nil {
			return Receipt{}, err
		}
		pos, err := s.store.Append(ctx, p.events, p.fences)
		if err == nil {
			p.receipt.Seq = pos.Seq
			// The events are durable: catching up must not fail because the
			// caller stopped waiting, or a landed write would read as failed.
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), landedCatchUp)
			err := s.catchUpTo(cctx, pos)
			cancel()
			if err != nil {
				return Receipt{}, err
			}
			if err := s.counted(p.events, pos.Seq); err != nil {
				return Receipt{}, err
			}
			return s.finish(ctx, p.receipt)
		}
		last = err
		if pinki.ErrorCode(err) != pinki.CodeConflict || fenced {
			return Receipt{}, pinki.AsError(err)
		}
		if err := s.catchUp(ctx); err != nil {
			return Receipt{}, err
		}
	}
	return Receipt{}, pinki.AsError(last)
}

// readsBack makes sure every event will be understood when read back: the
// line AppendLine writes for it decodes. A write the ledger could not read
// would be acknowledged and then lost (and would make every read exit 3).
//
// Errors: CodeInvalid naming what the decoder refused.
func readsBack(events []pinki.Event) error {
	for i := range events {
		line := pinki.AppendLine(nil, &events[i])
		if _, err := pinki.DecodeLine(line[:len(line)-1]); err != nil {
			return pinki.Errorf(pinki.CodeInvalid, "the %s would not read back from the ledger: %v", events[i].Type, err)
		}
	}
	return nil
}

// counted checks that the fold applied the lines of an append that ended
// at line last: a line the fences let through but the fold ignores (a race
// no fence covered) is a conflict for the writer, not a success.
func (s *Service) counted(events []pinki.Event, last int64) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	first := last - int64(len(events)) + 1
	for i := range events {
		id := events[i].Key()
		for _, ig := range s.fold.IgnoredFor(id) {
			if ig.Seq == first+int64(i) {
				return &pinki.Error{Code: pinki.CodeConflict,
					Message: fmt.Sprintf("%s changed while this write was being decided: the ledger holds the write, and the fold does not count it (%s)", id, ig.Why),
					Hint:    fmt.Sprintf("show %s for what counts", id)}
			}
		}
	}
	return nil
}

// landedCatchUp bounds the catch-up after an append that landed: it goes on
// when the caller stops waiting (the write is durable, and must not read as
// failed), but not forever on a store that hangs.
const landedCatchUp = 30 * time.Second

// catchUpTo makes sure the fold includes pos (a follower may not have got
// there yet).
func (s *Service) catchUpTo(ctx context.Context, pos pinki.Position) error {
	s.mu.RLock()
	have := s.fold.Position().Seq
	s.mu.RUnlock()
	if have >= pos.Seq {
		return nil
	}
	return s.catchUp(ctx)
}

// finish fills the receipt's revision and state from the fold.
func (s *Service) finish(ctx context.Context, r Receipt) (Receipt, error) {
	if r.hidden {
		return r, nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if o := s.fold.Get(r.ID); o != nil {
		r.Rev = o.Rev
		st := s.fold.At(s.nowNanos()).Status(o)
		r.State = st.State
		r.Late = st.Late
	}
	return r, nil
}

func (s *Service) nowNanos() int64 { return s.opts.Clock().UnixNano() }
