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
}

// Store is a file ledger. It is safe for concurrent use; concurrent Appends in
// one process are committed together (group commit): one lock, one write, one
// fsync for all of them.
type Store struct {
	path string
	opts Options

	pending chan *request
	quit    chan struct{}
	done    chan struct{}

	mu         sync.Mutex
	notify     chan struct{} // closed and replaced after each commit
	tracked    pinki.Position
	tracking   bool
	trackStart int64            // the sequence number tracking started from
	touched    map[string]int64 // subject -> seq of the latest line naming it, from tracked on
	ident      fileIdent        // the file the tracked position belongs to
	closed     bool

	// What the last Read saw, to tell a later Read that the file was
	// replaced or rewritten under the position it hands back.
	lastRead struct {
		known bool
		ident fileIdent
		mark  int64
		tail  []byte
	}
}

type request struct {
	events []pinki.Event
	fences []pinki.Fence
	reply  chan result
}

type result struct {
	pos pinki.Position
	err error
}

// Open returns a Store for the ledger at path. The file and its folder are
// created on the first append; a missing file reads as an empty ledger.
func Open(path string, opts Options) (*Store, error) {
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = 10 * time.Second
	}
	s := &Store{path: path, opts: opts, pending: make(chan *request, 1024),
		quit: make(chan struct{}), done: make(chan struct{}), notify: make(chan struct{}),
		touched: make(map[string]int64)}
	go s.commitLoop()
	return s, nil
}

// Path is the ledger file's path.
func (s *Store) Path() string { return s.path }

// Dir is the folder holding the ledger, its lock, cache and quarantine.
func (s *Store) Dir() string { return filepath.Dir(s.path) }

func (s *Store) lockPath() string { return s.path + ".lock" }

// Close stops the committer after the pending appends are done.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	close(s.quit)
	<-s.done
	return nil
}

// Append implements pinki.Store.
func (s *Store) Append(ctx context.Context, events []pinki.Event, fences []pinki.Fence) (pinki.Position, error) {
	if len(events) == 0 {
		return pinki.Position{}, pinki.Errorf(pinki.CodeInternal, "append of no events")
	}
	r := &request{events: events, fences: fences, reply: make(chan result, 1)}
	select {
	case s.pending <- r:
	case <-s.quit:
		return pinki.Position{}, pinki.Errorf(pinki.CodeUnavailable, "ledger %s is closed", s.path)
	case <-ctx.Done():
		return pinki.Position{}, ctx.Err()
	}
	// Once queued, the append will be decided; wait for the answer even if ctx
	// ends, so that a caller never reports failure for an event that landed.
	res := <-r.reply
	return res.pos, res.err
}

// commitLoop takes whatever appends are pending and commits them together.
func (s *Store) commitLoop() {
	defer close(s.done)
	for {
		var batch []*request
		select {
		case r := <-s.pending:
			batch = append(batch, r)
		case <-s.quit:
			// Drain what was queued before Close.
			for {
				select {
				case r := <-s.pending:
					s.commit([]*request{r})
				default:
					return
				}
			}
		}
	more:
		for len(batch) < 4096 {
			select {
			case r := <-s.pending:
				batch = append(batch, r)
			default:
				break more
			}
		}
		s.commit(batch)
	}
}

// commit writes a batch under the lock: catch up with other writers, check
// each request's fences in order, write the accepted lines in one write, fsync.
func (s *Store) commit(batch []*request) {
	answer := func(err error) {
		for _, r := range batch {
			r.reply <- result{err: err}
		}
	}
	if err := os.MkdirAll(s.Dir(), 0o755); err != nil {
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
	created := false
	size, err := s.repairTail(f)
	if err != nil {
		answer(err)
		return
	}
	if size == 0 {
		created = true
	}
	if err := s.track(f, size, batch); err != nil {
		answer(err)
		return
	}
	var buf bytes.Buffer
	var accepted []*request
	var positions []pinki.Position
	pos := s.tracked
	batchTouched := map[string]bool{}
	for _, r := range batch {
		if err := s.checkFences(f, r.fences, batchTouched); err != nil {
			r.reply <- result{err: err}
			continue
		}
		for i := range r.events {
			buf.Write(pinki.AppendLine(nil, &r.events[i]))
			pos.Seq++
			batchTouched[r.events[i].Key()] = true
		}
		pos.Mark = size + int64(buf.Len())
		accepted = append(accepted, r)
		positions = append(positions, pos)
	}
	if len(accepted) == 0 {
		return
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		// A partial write leaves a torn tail, quarantined by the next writer.
		for _, r := range accepted {
			r.reply <- result{err: pinki.Errorf(pinki.CodeUnavailable, "cannot append to %s: %v", s.path, err)}
		}
		s.untrack()
		return
	}
	if !s.opts.NoSync {
		err = unix.Fdatasync(int(f.Fd()))
		if err == nil && created {
			err = syncDir(s.Dir())
		}
		if err != nil {
			for _, r := range accepted {
				r.reply <- result{err: pinki.Errorf(pinki.CodeUnavailable, "cannot fsync %s: %v", s.path, err)}
			}
			s.untrack()
			return
		}
	}
	s.mu.Lock()
	seq := s.tracked.Seq
	for _, r := range accepted {
		for i := range r.events {
			seq++
			s.touched[r.events[i].Key()] = seq
		}
	}
	s.tracked = pos
	close(s.notify)
	s.notify = make(chan struct{})
	s.mu.Unlock()
	for i, r := range accepted {
		r.reply <- result{pos: positions[i]}
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
// the batch was seen at.
func (s *Store) track(f *os.File, size int64, batch []*request) error {
	ident, err := identOf(f)
	if err != nil {
		return pinki.Errorf(pinki.CodeUnavailable, "cannot stat %s: %v", s.path, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tracking && (ident != s.ident || size < s.tracked.Mark) {
		s.tracking = false // replaced or truncated under us
	}
	if !s.tracking {
		from := pinki.Position{Seq: -1}
		for _, r := range batch {
			for _, fe := range r.fences {
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
			return err
		}
		s.tracked, s.tracking, s.ident, s.trackStart = start, true, ident, start.Seq
		s.touched = make(map[string]int64)
	}
	next, err := scan(f, s.tracked, size, func(seq int64, line []byte) {
		if subject := subjectOf(line); subject != "" {
			s.touched[subject] = seq
		}
	})
	if err != nil {
		return pinki.Errorf(pinki.CodeUnavailable, "cannot read %s: %v", s.path, err)
	}
	s.tracked = next
	return nil
}

// seek returns a position for from that is valid in f: from itself when its
// mark lies on a line boundary, or the same sequence number found by counting
// lines.
func (s *Store) seek(f *os.File, from pinki.Position, size int64) (pinki.Position, error) {
	if from.Seq == 0 {
		return pinki.Position{}, nil
	}
	if from.Mark > 0 && from.Mark <= size {
		var b [1]byte
		if _, err := f.ReadAt(b[:], from.Mark-1); err == nil && b[0] == '\n' {
			return from, nil
		}
	}
	return offsetOf(f, from.Seq, size)
}

// checkFences reports a conflict when a fenced subject was named by a line
// after the fence's position, or by an earlier request in this batch.
func (s *Store) checkFences(f *os.File, fences []pinki.Fence, batchTouched map[string]bool) error {
	for _, fe := range fences {
		if batchTouched[fe.Subject] {
			return conflict(fe.Subject)
		}
		s.mu.Lock()
		seq, seen := s.touched[fe.Subject]
		from, start := s.tracked, s.trackStart
		s.mu.Unlock()
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
			if _, err := scan(f, at, from.Mark, func(seq int64, line []byte) {
				if subjectOf(line) == fe.Subject {
					hit = true
				}
			}); err != nil {
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

// Read implements pinki.Store.
func (s *Store) Read(ctx context.Context, from pinki.Position, fn func(pinki.Entry) error) (pinki.Position, error) {
	f, err := os.Open(s.path)
	if errors.Is(err, os.ErrNotExist) {
		if from.Seq > 0 {
			return from, pinki.Errorf(pinki.CodeConflict, "ledger %s is gone: it held %d lines when last read", s.path, from.Seq)
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
	var dec pinki.Decoder
	var ferr error
	end, err := scan(f, start, size, func(seq int64, line []byte) {
		if ferr != nil {
			return
		}
		if ctx.Err() != nil {
			ferr = ctx.Err()
			return
		}
		e, err := dec.Decode(line)
		en := pinki.Entry{Seq: seq, Event: e}
		if err != nil {
			en = pinki.Entry{Seq: seq, Err: err, Raw: append([]byte(nil), line...)}
		}
		ferr = fn(en)
	})
	if err != nil {
		return from, pinki.Errorf(pinki.CodeUnavailable, "cannot read %s: %v", s.path, err)
	}
	if ferr != nil {
		return from, ferr
	}
	s.remember(f, ident, end)
	if end.Mark < size {
		// An unterminated last line: a write in progress, or a torn one left
		// by a crash. Quarantine it if no writer holds the lock.
		s.quarantineIfTorn()
	}
	return end, nil
}

// sameFile checks that reading on from the position from makes sense: the
// file is the one the last Read saw, not shorter than the position, and the
// bytes just before the position are the ones that Read ended on.
func (s *Store) sameFile(f *os.File, ident fileIdent, from pinki.Position, size int64) error {
	if from.Seq == 0 {
		return nil
	}
	s.mu.Lock()
	known, lastIdent, mark, tail := s.lastRead.known, s.lastRead.ident, s.lastRead.mark, s.lastRead.tail
	s.mu.Unlock()
	if from.Mark > size || known && ident != lastIdent {
		return fmt.Errorf("%s: %w", s.path, pinki.ErrReplaced)
	}
	if known && from.Mark == mark && len(tail) > 0 {
		got := make([]byte, len(tail))
		if _, err := f.ReadAt(got, mark-int64(len(tail))); err != nil || !bytes.Equal(got, tail) {
			return fmt.Errorf("%s: %w", s.path, pinki.ErrReplaced)
		}
	}
	return nil
}

// remember records where a Read ended, and the bytes before that point.
func (s *Store) remember(f *os.File, ident fileIdent, end pinki.Position) {
	n := int64(64)
	if end.Mark < n {
		n = end.Mark
	}
	tail := make([]byte, n)
	if _, err := f.ReadAt(tail, end.Mark-n); err != nil {
		tail = nil
	}
	s.mu.Lock()
	s.lastRead.known, s.lastRead.ident, s.lastRead.mark, s.lastRead.tail = true, ident, end.Mark, tail
	s.mu.Unlock()
}

// Wait implements pinki.Store: it returns when the ledger holds more than
// after, polling the file for appends by other processes.
func (s *Store) Wait(ctx context.Context, after pinki.Position) error {
	for {
		s.mu.Lock()
		ch := s.notify
		s.mu.Unlock()
		if fi, err := os.Stat(s.path); err == nil && fi.Size() > after.Mark {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		case <-time.After(50 * time.Millisecond):
		}
	}
}

var _ pinki.Store = (*Store)(nil)

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

// scan reads whole lines of f from position from up to size, calling fn for
// each non-blank line with its 1-based line number, and returns the position
// after the last whole line.
func scan(f *os.File, from pinki.Position, size int64, fn func(seq int64, line []byte)) (pinki.Position, error) {
	pos := from
	if pos.Mark >= size {
		return pos, nil
	}
	r := io.NewSectionReader(f, pos.Mark, size-pos.Mark)
	buf := make([]byte, 1<<20)
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
			pos.Seq++
			pos.Mark += int64(len(line)) + 1
			if len(bytes.TrimSpace(line)) > 0 {
				fn(pos.Seq, bytes.TrimSuffix(line, []byte{'\r'}))
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

// offsetOf finds the position of line number seq by counting lines.
func offsetOf(f *os.File, seq int64, size int64) (pinki.Position, error) {
	var found pinki.Position
	pos := pinki.Position{}
	r := io.NewSectionReader(f, 0, size)
	buf := make([]byte, 1<<20)
	for {
		n, err := r.Read(buf)
		for i := 0; i < n; i++ {
			if buf[i] == '\n' {
				pos.Seq++
				if pos.Seq == seq {
					found = pinki.Position{Seq: seq, Mark: pos.Mark + int64(i) + 1}
					return found, nil
				}
			}
		}
		pos.Mark += int64(n)
		if err == io.EOF {
			break
		}
		if err != nil {
			return found, err
		}
	}
	return found, fmt.Errorf("ledger holds fewer than %d lines: %w", seq, pinki.ErrReplaced)
}
