package jsonl

import (
	"errors"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pinki-ledger/pinki"
)

// lockFile takes a flock on path (created if missing): exclusive or shared,
// waiting up to timeout. It returns the unlock function.
func lockFile(path string, exclusive bool, timeout time.Duration) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, pinki.Errorf(pinki.CodeUnavailable, "cannot open lock %s: %v", path, err)
	}
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	deadline := time.Now().Add(timeout)
	wait := time.Millisecond
	for {
		err := unix.Flock(int(f.Fd()), how|unix.LOCK_NB)
		if err == nil {
			return func() {
				unix.Flock(int(f.Fd()), unix.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			f.Close()
			return nil, pinki.Errorf(pinki.CodeUnavailable, "cannot lock %s: %v", path, err)
		}
		if timeout == 0 || time.Now().After(deadline) {
			f.Close()
			return nil, (&pinki.Error{Code: pinki.CodeUnavailable,
				Message: "timed out after " + timeout.String() + " waiting for the lock " + path}).
				WithHint("another pinki process is writing; if none is, the lock is stale and can be deleted")
		}
		time.Sleep(wait)
		if wait < 20*time.Millisecond {
			wait *= 2
		}
	}
}

// fileIdent identifies a file across renames: device and inode.
type fileIdent struct {
	dev, ino uint64
}

func identOf(f *os.File) (fileIdent, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return fileIdent{}, err
	}
	return fileIdent{dev: uint64(st.Dev), ino: st.Ino}, nil
}
