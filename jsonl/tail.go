package jsonl

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pinki-ledger/pinki"
)

// QuarantineDir is the folder, beside the ledger, that torn tails are moved to.
const QuarantineDir = "quarantine"

// repairTail runs under the exclusive lock. A last line without its newline
// can only be a write that a crash cut short (writers hold the lock while
// they write): it is copied to a quarantine file, made durable, and cut from
// the ledger. It returns the ledger's size afterwards.
func (s *Store) repairTail(f *os.File) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, pinki.Errorf(pinki.CodeUnavailable, "cannot stat %s: %v", s.path, err)
	}
	size := fi.Size()
	if size == 0 {
		return 0, nil
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], size-1); err != nil {
		return 0, pinki.Errorf(pinki.CodeUnavailable, "cannot read %s: %v", s.path, err)
	}
	if last[0] == '\n' {
		return size, nil
	}
	keep, err := lastNewline(f, size)
	if err != nil {
		return 0, pinki.Errorf(pinki.CodeUnavailable, "cannot read %s: %v", s.path, err)
	}
	fragment := make([]byte, size-keep)
	if _, err := f.ReadAt(fragment, keep); err != nil {
		return 0, pinki.Errorf(pinki.CodeUnavailable, "cannot read %s: %v", s.path, err)
	}
	dir := filepath.Join(s.Dir(), QuarantineDir)
	newDirs, err := makeDirs(dir)
	if err != nil {
		return 0, pinki.Errorf(pinki.CodeUnavailable, "cannot create %s: %v", dir, err)
	}
	name := filepath.Join(dir, fmt.Sprintf("%s.%d.torn", filepath.Base(s.path), time.Now().UnixNano()))
	q, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return 0, pinki.Errorf(pinki.CodeUnavailable, "cannot create quarantine %s: %v", name, err)
	}
	_, werr := q.Write(fragment)
	serr := q.Sync()
	cerr := q.Close()
	if werr != nil || serr != nil || cerr != nil {
		return 0, pinki.Errorf(pinki.CodeUnavailable, "cannot write quarantine %s", name)
	}
	if err := syncDir(dir); err != nil {
		return 0, pinki.Errorf(pinki.CodeUnavailable, "cannot fsync %s: %v", dir, err)
	}
	if err := syncParents(newDirs); err != nil {
		return 0, pinki.Errorf(pinki.CodeUnavailable, "cannot fsync the parent of %s: %v", dir, err)
	}
	if err := f.Truncate(keep); err != nil {
		return 0, pinki.Errorf(pinki.CodeUnavailable, "cannot cut the torn tail of %s: %v", s.path, err)
	}
	if err := unix.Fdatasync(int(f.Fd())); err != nil {
		return 0, pinki.Errorf(pinki.CodeUnavailable, "cannot fsync %s: %v", s.path, err)
	}
	if s.opts.OnQuarantine != nil {
		s.opts.OnQuarantine(name, len(fragment))
	}
	return keep, nil
}

// quarantineIfTorn is a reader's repair: if no writer holds the lock, an
// unterminated last line is torn, and is moved aside as a writer would.
func (s *Store) quarantineIfTorn() {
	if s.opts.ReadOnly {
		return
	}
	// Wait a moment for a writer at work to finish its line; under the lock,
	// repairTail looks again and cuts only what is still unterminated.
	unlock, err := lockFile(s.lockPath(), true, 100*time.Millisecond)
	if err != nil {
		return // a writer is still at work: the line is being written
	}
	defer unlock()
	f, err := os.OpenFile(s.path, os.O_RDWR, 0)
	if err != nil {
		return
	}
	defer f.Close()
	s.repairTail(f)
}

// lastNewline returns the offset just after the last '\n' before size (0 if
// there is none).
func lastNewline(f *os.File, size int64) (int64, error) {
	buf := make([]byte, 64<<10)
	end := size
	for end > 0 {
		start := end - int64(len(buf))
		if start < 0 {
			start = 0
		}
		n, err := f.ReadAt(buf[:end-start], start)
		if err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}
