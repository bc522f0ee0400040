package ledger

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
)

// The snapshots a service keeps in a store that keeps them (pinki.Snapshots):
// the whole fold, and per seat a view of its open obligations (fold.Subset).
// Both are derived: a missing, stale or unreadable one only means folding
// more of the ledger, and never changes an answer.
const foldSnapshot = "fold"

func viewSnapshot(seat string) string {
	sum := sha256.Sum256([]byte(seat))
	return "seat-" + hex.EncodeToString(sum[:8])
}

// loadSnapshot replaces the empty fold with the store's snapshot of it, when
// there is a valid one. Called with mu held, before the first catch-up.
func (s *Service) loadSnapshot() {
	snaps, ok := s.store.(pinki.Snapshots)
	if !ok {
		return
	}
	data, at, ok := snaps.LoadSnapshot(foldSnapshot)
	if !ok {
		return
	}
	l, err := fold.LoadSnapshot(data)
	if err != nil || l.Seat() != "" || l.Position().Seq != at.Seq {
		return
	}
	l.SetPosition(at)
	s.reportUnknown(l.Unknown())
	s.fold = l
}

// saveSnapshot stores the fold for the next process. Called with mu held
// (for reading, with catching held so that the fold does not change). A
// failure only costs the next reader time, so it is not reported.
func (s *Service) saveSnapshot() {
	if snaps, ok := s.store.(pinki.Snapshots); ok {
		snaps.SaveSnapshot(foldSnapshot, s.fold.Position(), s.fold.WriteSnapshot)
	}
}

// reportUnknown passes lines a snapshot recorded as not understood to
// OnUnknownLine, as reading them again would have.
func (s *Service) reportUnknown(lines []fold.UnknownLine) {
	if s.opts.OnUnknownLine == nil {
		return
	}
	for _, u := range lines {
		s.opts.OnUnknownLine(u.Seq, nil, errors.New(u.Err))
	}
}

// fromView answers a question about one seat's open obligations from the
// seat's cached view, when the service has not folded the whole ledger yet
// (a fresh CLI process) and the store holds a valid view: it folds only the
// lines appended since the view was saved. It reports false when it could not
// answer (no view, a view that needs the whole ledger); the caller then folds
// the whole ledger and calls saveView.
func (s *Service) fromView(ctx context.Context, seat string, fn func(l *fold.Ledger) error) (bool, error) {
	snaps, ok := s.store.(pinki.Snapshots)
	if !ok || seat == "" || s.opts.Follow || s.isLoaded() {
		return false, nil
	}
	data, at, ok := snaps.LoadSnapshot(viewSnapshot(seat))
	if !ok {
		return false, nil
	}
	v, err := fold.LoadSnapshot(data)
	if err != nil || v.Seat() != seat || v.Position().Seq != at.Seq || v.Incomplete() {
		return false, nil
	}
	v.SetPosition(at)
	read := 0
	pos, err := s.store.Read(ctx, at, func(en pinki.Entry) error {
		v.ApplyEntry(&en)
		read++
		return nil
	})
	if errors.Is(err, pinki.ErrReplaced) {
		return false, nil
	}
	if err != nil {
		return true, pinki.AsError(err)
	}
	if v.Incomplete() {
		return false, nil
	}
	v.SetPosition(pos)
	s.reportUnknown(v.Unknown())
	if read >= s.opts.SnapshotEvery {
		snaps.SaveSnapshot(viewSnapshot(seat), pos, v.WriteSnapshot)
	}
	return true, fn(v)
}

// saveView stores a seat's view of the folded ledger for the next process.
func (s *Service) saveView(seat string) {
	snaps, ok := s.store.(pinki.Snapshots)
	if !ok || seat == "" || s.opts.Follow {
		return
	}
	// No catch-up in between: the fold is at the end of one, whose
	// position carries the store's mark.
	s.catching.Lock()
	defer s.catching.Unlock()
	s.mu.RLock()
	defer s.mu.RUnlock()
	snaps.SaveSnapshot(viewSnapshot(seat), s.fold.Position(), s.fold.Subset(seat).WriteSnapshot)
}
