package jsonl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/internal/groupcommit"
)

// Options configure a Store.
type Options struct {
	// LockTimeout bounds the wait for the exclusive lock. 0 means 10s.
	LockTimeout time.Duration
	// OnQuarantine is called when a torn last line is moved aside: the
	// quarantine file, and the fragment's length.
	OnQuarantine func(quarantine string, size int)
	// NoSync skips fsync. Only for benchmarks that measure everything else.
	NoSync bool
	// ReadOnly makes the store leave the ledger's folder exactly as it is:
	// Append is refused, a torn last line is skipped rather than
	// quarantined, no lock file is made and no snapshot is saved (reading
	// someone else's ledger, as reconcile does).
	ReadOnly bool
}

// Store is a file ledger. It is safe for concurrent use; concurrent Appends in
// one process are committed together (group commit): one lock, one write, one
// fsync for all of them.
type Store struct {
	path string
	opts Options

	queue *groupcommit.Queue

	// unsynced lists directories this store created whose entries are not
	// known durable yet (their parents not fsynced): kept across commits
	// until an fsync succeeds. Only the committer touches it.
	unsynced []string

	mu         sync.Mutex
	notify     chan struct{} // closed and replaced after each commit
	tracked    pinki.Position
	tracking   bool
	trackStart int64            // the sequence number tracking started from
	trackTail  []byte           // the bytes before tracked.Mark, to notice a rewrite
	touched    map[string]int64 // subject -> seq of the latest line naming it, from tracked on
	ident      fileIdent        // the file the tracked position belongs to

	// Positions this store handed out (ends of Reads and Appends) with the
	// bytes just before them, to tell a later Read that the file was
	// replaced or rewritten under a position.
	known struct {
		set    bool
		ident  fileIdent
		points []checkpoint
	}
}

// checkpoint is a position the store handed out, and the bytes before it.
// The file is append-only, so those bytes never change; when they do, the
// file was rewritten.
type checkpoint struct {
	seq  int64
	mark int64
	tail []byte
}

// maxCheckpoints bounds the positions remembered per store.
const maxCheckpoints = 16

// tailLen is how many bytes before a position a checkpoint keeps.
const tailLen = 64

type (
	request = groupcommit.Request
	result  = groupcommit.Result
)

// Open returns a Store for the ledger at path. The file and its folder are
// created on the first append; a missing file reads as an empty ledger.
func Open(path string, opts Options) (*Store, error) {
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = 10 * time.Second
	}
	s := &Store{path: path, opts: opts, notify: make(chan struct{}), touched: make(map[string]int64)}
	s.queue = groupcommit.Start(s.commit, 4096, s.errClosed)
	return s, nil
}

// Path is the ledger file's path.
func (s *Store) Path() string { return s.path }

// Dir is the folder holding the ledger, its lock, cache and quarantine.
func (s *Store) Dir() string { return filepath.Dir(s.path) }

func (s *Store) lockPath() string { return s.path + ".lock" }

// Close stops the committer after the appends already under way are
// decided, and wakes every Wait (which then returns a CodeUnavailable error).
// Appends after Close fail with CodeUnavailable. Close is idempotent.
func (s *Store) Close() error {
	s.queue.Close()
	return nil
}

func (s *Store) errClosed() error {
	return pinki.Errorf(pinki.CodeUnavailable, "ledger %s is closed", s.path)
}

// Append implements pinki.Store: concurrent appends are committed together.
func (s *Store) Append(ctx context.Context, events []pinki.Event, fences []pinki.Fence) (pinki.Position, error) {
	if s.opts.ReadOnly {
		return pinki.Position{}, pinki.Errorf(pinki.CodeInvalid, "ledger %s was opened read-only", s.path)
	}
	return s.queue.Append(ctx, events, fences)
}

// commit writes a batch under the lock: catch up with other writers, check
// each request's fences in order, write the accepted lines in one write, fsync.
func (s *Store) commit(batch []*request) {
	answer := func(err error) {
		for _, r := range batch {
			r.Reply(result{Err: err})
		}
	}
	newDirs, err := makeDirs(s.Dir())
	s.unsynced = append(s.unsynced, newDirs...)
	if err != nil {
		answer(pinki.Errorf(pinki.CodeUnavailable, "cannot create %s: %v", s.Dir(), err))
		return
	}
	unlock, err := lockFile(s.lockPath(), true, s.opts.LockTimeout)
	if err != nil {
		answer(err)
		return
	}
	defer unlock()
	f, err := os.OpenFile(s.path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		answer(pinki.Errorf(pinki.CodeUnavailable, "cannot open ledger %s: %v", s.path, err))
		return
	}
	defer f.Close()
	size, err := s.repairTail(f)
	if err != nil {
		answer(err)
		return
	}
	created := size == 0
	ident, err := s.track(f, size, batch)
	if err != nil {
		answer(err)
		return
	}
	var buf bytes.Buffer
	var accepted []*request
	var positions []pinki.Position
	pos := s.tracked
	batchTouched := map[string]bool{}
	verified := map[int64]error{} // fence mark -> sameFile's answer
	for _, r := range batch {
		if err := s.checkFences(f, ident, size, r.Fences, batchTouched, verified); err != nil {
			r.Reply(result{Err: err})
			continue
		}
		for i := range r.Events {
			buf.Write(pinki.AppendLine(nil, &r.Events[i]))
			pos.Seq++
			batchTouched[r.Events[i].Key()] = true
		}
		pos.Mark = size + int64(buf.Len())
		accepted = append(accepted, r)
		positions = append(positions, pos)
	}
	if len(accepted) == 0 {
		return
	}
	fail := func(err error) {
		// Cut whatever part of the batch reached the file, so that no event
		// whose append is reported as failed stays in the ledger (a retry
		// would append it twice). If the cut fails too, the next writer
		// quarantines a torn tail; whole lines would stay.
		f.Truncate(size)
		for _, r := range accepted {
			r.Reply(result{Err: err})
		}
		s.untrack()
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		fail(pinki.Errorf(pinki.CodeUnavailable, "cannot append to %s: %v", s.path, err))
		return
	}
	if !s.opts.NoSync {
		err = unix.Fdatasync(int(f.Fd()))
		if err == nil && created {
			// The file's entry, and the folder's own entry in its parent:
			// another process may have made the folder and not lived to
			// fsync it.
			err = syncDir(s.Dir())
			if err == nil {
				err = syncDir(filepath.Dir(s.Dir()))
			}
		}
		if err == nil {
			if err = syncParents(s.unsynced); err == nil {
				s.unsynced = nil
			}
		}
		if err != nil {
			fail(pinki.Errorf(pinki.CodeUnavailable, "cannot fsync %s: %v", s.path, err))
			return
		}
	}
	s.mu.Lock()
	seq := s.tracked.Seq
	for _, r := range accepted {
		for i := range r.Events {
			seq++
			s.touched[r.Events[i].Key()] = seq
		}
	}
	s.tracked = pos
	close(s.notify)
	s.notify = make(chan struct{})
	s.mu.Unlock()
	tail, err := tailBefore(f, pos.Mark)
	s.mu.Lock()
	s.trackTail = tail
	s.mu.Unlock()
	if err == nil {
		s.remember(ident, pos, tail, false)
	}
	for i, r := range accepted {
		r.Reply(result{Pos: positions[i]})
	}
}

// untrack forgets what the committer knew of the file, after a failure that
// may have left it in an unknown state.
func (s *Store) untrack() {
	s.mu.Lock()
	s.tracking = false
	s.touched = make(map[string]int64)
	s.mu.Unlock()
}

// track brings the committer's knowledge of the file (its end, and which
// subjects each line since names) up to size, reading what other processes
// appended. The first time, it starts from the earliest position any fence in
// the batch was seen at. It returns the file's identity.
func (s *Store) track(f *os.File, size int64, batch []*request) (fileIdent, error) {
	ident, err := identOf(f)
	if err != nil {
		return ident, pinki.Errorf(pinki.CodeUnavailable, "cannot stat %s: %v", s.path, err)
	}
	// Only the committer changes what it tracks; the lock is for the others
	// that look (and is not held across seek, which takes it).
	s.mu.Lock()
	tracking := s.tracking && ident == s.ident && size >= s.tracked.Mark // else replaced or truncated
	tracked, trackTail := s.tracked, s.trackTail
	s.mu.Unlock()
	if tracking {
		if tail, err := tailBefore(f, tracked.Mark); err != nil || !bytes.Equal(tail, trackTail) {
			tracking = false // rewritten in place
		}
	}
	if !tracking {
		from := pinki.Position{Seq: -1}
		for _, r := range batch {
			for _, fe := range r.Fences {
				if from.Seq < 0 || fe.Seen.Seq < from.Seq {
					from = fe.Seen
				}
			}
		}
		if from.Seq < 0 {
			// No fences: only the end matters. Count lines from the start.
			from = pinki.Position{}
		}
		start, err := s.seek(f, from, size)
		if err != nil {
			if pinki.ErrorCode(err) != pinki.CodeConflict {
				s.untrack()
				return ident, err
			}
			// The earliest fence names a point this file does not hold (its
			// check fails in checkFences): track from the start for the rest.
			start = pinki.Position{}
		}
		s.mu.Lock()
		s.tracked, s.tracking, s.ident, s.trackStart = start, true, ident, start.Seq
		s.touched = make(map[string]int64)
		s.mu.Unlock()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	next, err := scan(f, s.tracked, size, func(seq int64, line []byte) {
		if subject := subjectOf(line); subject != "" {
			s.touched[subject] = seq
		}
	})
	if err != nil {
		s.tracking = false
		return ident, pinki.Errorf(pinki.CodeUnavailable, "cannot read %s: %v", s.path, err)
	}
	s.tracked = next
	if s.trackTail, err = tailBefore(f, next.Mark); err != nil {
		s.tracking = false
		return ident, pinki.Errorf(pinki.CodeUnavailable, "cannot read %s: %v", s.path, err)
	}
	return ident, nil
}

// seek returns a position for from that is valid in f (of size bytes): from
// itself when its mark lies on a line boundary, or the position of line
// from.Seq found by counting lines when from has no mark. A mark beyond the
// end or inside a line means the file was replaced or rewritten: the error
// wraps pinki.ErrReplaced.
func (s *Store) seek(f *os.File, from pinki.Position, size int64) (pinki.Position, error) {
	if from.Seq == 0 {
		return pinki.Position{}, nil
	}
	if from.Mark == 0 {
		// Count lines, from the nearest position handed out before.
		at := s.nearest(f, from.Seq, size)
		if err := countLines(f, &at, from.Seq, size); err != nil {
			return from, pinki.Errorf(pinki.CodeUnavailable, "cannot read %s: %v", s.path, err)
		}
		if at.Seq < from.Seq {
			return from, fmt.Errorf("%s holds fewer than %d lines: %w", s.path, from.Seq, pinki.ErrReplaced)
		}
		return at, nil
	}
	if from.Mark > size {
		return from, fmt.Errorf("%s ends before byte %d: %w", s.path, from.Mark, pinki.ErrReplaced)
	}
	var b [1]byte
	if _, err := f.ReadAt(b[:], from.Mark-1); err != nil {
		return from, pinki.Errorf(pinki.CodeUnavailable, "cannot read %s: %v", s.path, err)
	}
	if b[0] != '\n' {
		return from, fmt.Errorf("%s: byte %d does not end a line: %w", s.path, from.Mark, pinki.ErrReplaced)
	}
	return from, nil
}

// checkFences reports a conflict when a fenced subject was named by a line
// after the fence's position, or by an earlier request in this batch, or
// when the fence's position is not one this file holds: the file (ident, of
// size bytes) was replaced or rewritten since the write was decided, which
// wraps pinki.ErrReplaced. verified memoizes that check by mark.
func (s *Store) checkFences(f *os.File, ident fileIdent, size int64, fences []pinki.Fence, batchTouched map[string]bool, verified map[int64]error) error {
	for _, fe := range fences {
		if batchTouched[fe.Subject] {
			return conflict(fe.Subject)
		}
		err, done := verified[fe.Seen.Mark]
		if !done {
			err = s.sameFile(f, ident, fe.Seen, size)
			verified[fe.Seen.Mark] = err
		}
		if err != nil {
			return err
		}
		s.mu.Lock()
		seq, seen := s.touched[fe.Subject]
		from, start := s.tracked, s.trackStart
		s.mu.Unlock()
		if fe.Seen.Seq > from.Seq || fe.Seen.Mark > from.Mark {
			return fmt.Errorf("%s holds %d lines, fewer than the %d a write was decided on: %w",
				s.path, from.Seq, fe.Seen.Seq, pinki.ErrReplaced)
		}
		if seen && seq > fe.Seen.Seq {
			return conflict(fe.Subject)
		}
		if fe.Seen.Seq < start {
			// The committer started tracking after this fence was seen: look at
			// the lines in between.
			at, err := s.seek(f, fe.Seen, from.Mark)
			if err != nil {
				return err
			}
			hit := false
			if _, err := scanLines(f, at, from.Mark, func(seq, _ int64, line []byte) error {
				if subjectOf(line) == fe.Subject {
					hit = true
					return errStop
				}
				return nil
			}); err != nil && err != errStop {
				return pinki.Errorf(pinki.CodeUnavailable, "cannot read %s: %v", s.path, err)
			}
			if hit {
				return conflict(fe.Subject)
			}
		}
	}
	return nil
}

func conflict(subject string) error {
	return &pinki.Error{Code: pinki.CodeConflict,
		Message: fmt.Sprintf("%s changed while this write was being decided", subject),
		Hint:    "read it again and retry"}
}

// Read implements pinki.Store. It returns an error wrapping
// pinki.ErrReplaced when from is not a position of the file as it is now: the
// file is gone, shorter, another file, or its bytes before a position this
// store handed out changed.
func (s *Store) Read(ctx context.Context, from pinki.Position, fn func(pinki.Entry) error) (pinki.Position, error) {
	f, err := os.Open(s.path)
	if errors.Is(err, os.ErrNotExist) {
		if from.Seq > 0 {
			return from, fmt.Errorf("ledger %s is gone: it held %d lines when last read: %w", s.path, from.Seq, pinki.ErrReplaced)
		}
		return from, nil
	}
	if err != nil {
		return from, pinki.Errorf(pinki.CodeUnavailable, "cannot open ledger %s: %v", s.path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return from, pinki.Errorf(pinki.CodeUnavailable, "cannot stat %s: %v", s.path, err)
	}
	size := fi.Size()
	ident, err := identOf(f)
	if err != nil {
		return from, pinki.Errorf(pinki.CodeUnavailable, "cannot stat %s: %v", s.path, err)
	}
	if err := s.sameFile(f, ident, from, size); err != nil {
		return from, err
	}
	start, err := s.seek(f, from, size)
	if err != nil {
		return from, err
	}
	r := readEntries(ctx, f, start, size, fn)
	if r.ferr != nil {
		if r.stop.Mark > 0 {
			if tail, err := tailBefore(f, r.stop.Mark); err == nil {
				s.remember(ident, r.stop, tail, false)
			}
			return r.stop, r.ferr // after the last entry fn accepted
		}
		return from, r.ferr
	}
	if r.err != nil {
		return from, pinki.Errorf(pinki.CodeUnavailable, "cannot read %s: %v", s.path, r.err)
	}
	end := r.end
	if tail, err := tailBefore(f, end.Mark); err == nil {
		s.remember(ident, end, tail, from.Seq == 0)
	}
	if end.Mark < size {
		// An unterminated last line: a write in progress, or a torn one left
		// by a crash. Quarantine it if no writer holds the lock.
		s.quarantineIfTorn()
	}
	return end, nil
}

// sameFile checks that reading on from the position from makes sense: the
// file is the one this store last handed positions out for, not shorter than
// the position, and the bytes before every position it handed out up to
// from are unchanged. A position without a mark names a line number only:
// only the file's identity is checked.
func (s *Store) sameFile(f *os.File, ident fileIdent, from pinki.Position, size int64) error {
	if from.Seq == 0 {
		return nil
	}
	s.mu.Lock()
	set, known := s.known.set, s.known.ident
	points := append([]checkpoint(nil), s.known.points...)
	s.mu.Unlock()
	if set && ident != known {
		return fmt.Errorf("%s: %w", s.path, pinki.ErrReplaced)
	}
	if from.Mark == 0 {
		return nil
	}
	if from.Mark > size {
		return fmt.Errorf("%s: %w", s.path, pinki.ErrReplaced)
	}
	for _, p := range points {
		if p.mark > from.Mark {
			continue
		}
		got := make([]byte, len(p.tail))
		if _, err := f.ReadAt(got, p.mark-int64(len(p.tail))); err != nil || !bytes.Equal(got, p.tail) {
			return fmt.Errorf("%s: %w", s.path, pinki.ErrReplaced)
		}
	}
	return nil
}

// nearest returns the position handed out in f (verified unchanged) with the
// greatest seq not beyond seq, or the start.
func (s *Store) nearest(f *os.File, seq, size int64) pinki.Position {
	ident, err := identOf(f)
	if err != nil {
		return pinki.Position{}
	}
	s.mu.Lock()
	var points []checkpoint
	if s.known.set && s.known.ident == ident {
		points = append(points, s.known.points...)
	}
	s.mu.Unlock()
	var best pinki.Position
	for _, p := range points {
		if p.seq > seq || p.seq <= best.Seq || p.mark > size {
			continue
		}
		if got, err := tailBefore(f, p.mark); err == nil && bytes.Equal(got, p.tail) {
			best = pinki.Position{Seq: p.seq, Mark: p.mark}
		}
	}
	return best
}

// tailBefore returns the (up to tailLen) bytes of f before mark.
func tailBefore(f *os.File, mark int64) ([]byte, error) {
	n := min(int64(tailLen), mark)
	tail := make([]byte, n)
	if _, err := f.ReadAt(tail, mark-n); err != nil {
		return nil, err
	}
	return tail, nil
}

// remember records a position handed out in the file ident, with the bytes
// before it. adopt makes ident the known file (a Read from the start);
// otherwise a position in a file other than the known one is not recorded, so
// that positions from before a replacement keep failing sameFile.
func (s *Store) remember(ident fileIdent, end pinki.Position, tail []byte, adopt bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := &s.known
	switch {
	case adopt || !k.set:
		if !k.set || k.ident != ident {
			k.set, k.ident, k.points = true, ident, nil
		}
	case k.ident != ident:
		return
	}
	if len(tail) == 0 {
		return
	}
	for _, p := range k.points {
		if p.mark == end.Mark {
			return
		}
	}
	if len(k.points) == maxCheckpoints {
		k.points = append(k.points[:0], k.points[1:]...)
	}
	k.points = append(k.points, checkpoint{seq: end.Seq, mark: end.Mark, tail: tail})
}

// Wait implements pinki.Store: it returns when the ledger holds a whole line
// after position after (or no longer holds that position at all, which the
// next Read reports), polling the file for appends by other processes.
// After Close it returns a CodeUnavailable error.
func (s *Store) Wait(ctx context.Context, after pinki.Position) error {
	var counted pinki.Position // how far counting lines got, for a position without a mark
	for {
		s.mu.Lock()
		ch, closed := s.notify, s.queue.Closed()
		s.mu.Unlock()
		if closed {
			return s.errClosed()
		}
		more, err := s.beyond(after, &counted)
		if err != nil {
			return err
		}
		if more {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.queue.Closing():
			return s.errClosed()
		case <-ch:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// beyond reports whether the file holds a whole line after position after,
// or no longer holds that position. For a position without a mark it counts
// lines, resuming from counted.
func (s *Store) beyond(after pinki.Position, counted *pinki.Position) (bool, error) {
	f, err := os.Open(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return after.Seq > 0, nil
	}
	if err != nil {
		return false, pinki.Errorf(pinki.CodeUnavailable, "cannot open ledger %s: %v", s.path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, pinki.Errorf(pinki.CodeUnavailable, "cannot stat %s: %v", s.path, err)
	}
	size := fi.Size()
	mark := after.Mark
	if after.Seq > 0 && mark == 0 {
		if counted.Mark > size {
			*counted = pinki.Position{}
		}
		if err := countLines(f, counted, after.Seq, size); err != nil {
			return false, pinki.Errorf(pinki.CodeUnavailable, "cannot read %s: %v", s.path, err)
		}
		if counted.Seq < after.Seq {
			return false, nil
		}
		mark = counted.Mark
	}
	if size < mark {
		return true, nil
	}
	ok, err := hasNewline(f, mark, size)
	if err != nil {
		return false, pinki.Errorf(pinki.CodeUnavailable, "cannot read %s: %v", s.path, err)
	}
	return ok, nil
}

var _ pinki.Store = (*Store)(nil)

// makeDirs creates dir and its missing parents, returning the directories
// it created, deepest first: their entries are durable only once each
// parent is fsynced (syncParents).
func makeDirs(dir string) ([]string, error) {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if len(missing) == 0 {
		return nil, nil
	}
	return missing, os.MkdirAll(dir, 0o755)
}

// syncParents fsyncs the parent of every directory makeDirs created.
func syncParents(created []string) error {
	for _, d := range created {
		if err := syncDir(filepath.Dir(d)); err != nil {
			return err
		}
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// subjectOf extracts the id a line concerns without a full decode: "id" on a
// creation, "promise" otherwise. It returns "" for lines it cannot read.
func subjectOf(line []byte) string {
	e, err := pinki.DecodeLine(line)
	if err != nil {
		return ""
	}
	return e.Key()
}

// errStop is what a scanLines callback returns to stop early.
var errStop = errors.New("stop")

// scan reads whole lines of f from position from up to size, calling fn for
// each non-blank line with its 1-based line number, and returns the position
// after the last whole line.
func scan(f *os.File, from pinki.Position, size int64, fn func(seq int64, line []byte)) (pinki.Position, error) {
	return scanLines(f, from, size, func(seq, _ int64, line []byte) error {
		fn(seq, line)
		return nil
	})
}

// scanLines is scan with a callback that can stop it: an error from fn ends
// the scan and is returned with the position after that line. fn also gets
// the offset the line starts at. The line passed to fn is only valid during
// the call.
func scanLines(f *os.File, from pinki.Position, size int64, fn func(seq, offset int64, line []byte) error) (pinki.Position, error) {
	pos := from
	if pos.Mark >= size {
		return pos, nil
	}
	r := io.NewSectionReader(f, pos.Mark, size-pos.Mark)
	buf := make([]byte, min(1<<20, size-pos.Mark))
	var carry []byte
	for {
		n, err := r.Read(buf)
		chunk := buf[:n]
		for len(chunk) > 0 {
			i := bytes.IndexByte(chunk, '\n')
			if i < 0 {
				carry = append(carry, chunk...)
				break
			}
			line := chunk[:i]
			if len(carry) > 0 {
				carry = append(carry, line...)
				line = carry
			}
			start := pos.Mark
			pos.Seq++
			pos.Mark += int64(len(line)) + 1
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1] // a CRLF ledger
			}
			if !blank(line) {
				if ferr := fn(pos.Seq, start, line); ferr != nil {
					return pos, ferr
				}
			}
			carry = carry[:0]
			chunk = chunk[i+1:]
		}
		if err == io.EOF {
			return pos, nil
		}
		if err != nil {
			return pos, err
		}
	}
}

// countLines advances at (a valid position in f) line by line until at.Seq
// reaches seq or no whole line is left before size.
func countLines(f *os.File, at *pinki.Position, seq int64, size int64) error {
	if at.Seq >= seq || at.Mark >= size {
		return nil
	}
	r := io.NewSectionReader(f, at.Mark, size-at.Mark)
	buf := make([]byte, min(64<<10, size-at.Mark))
	base := at.Mark
	for {
		n, err := r.Read(buf)
		for i := 0; i < n; i++ {
			if buf[i] == '\n' {
				at.Seq++
				at.Mark = base + int64(i) + 1
				if at.Seq == seq {
					return nil
				}
			}
		}
		base += int64(n)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// hasNewline reports whether f holds a '\n' in [from, size).
func hasNewline(f *os.File, from, size int64) (bool, error) {
	if from >= size {
		return false, nil
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return false, err
	}
	if last[0] == '\n' {
		return true, nil
	}
	buf := make([]byte, min(64<<10, size-from))
	for at := from; at < size-1; {
		n, err := f.ReadAt(buf[:min(int64(len(buf)), size-1-at)], at)
		if bytes.IndexByte(buf[:n], '\n') >= 0 {
			return true, nil
		}
		if err != nil && err != io.EOF {
			return false, err
		}
		if n == 0 {
			return false, nil
		}
		at += int64(n)
	}
	return false, nil
}

// blank reports whether a line holds nothing but white space. A line of the
// ledger starts with '{', so the first byte decides almost always.
func blank(line []byte) bool {
	for _, c := range line {
		if c != ' ' && c != '\t' && c != '\r' && c != '\v' && c != '\f' {
			return false
		}
	}
	return true
}
