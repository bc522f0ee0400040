package jsonl

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/pinki-ledger/pinki"
)

// CacheDir is the folder, beside the ledger, that holds derived snapshots.
// Deleting it is always safe: the next read folds the ledger again.
const CacheDir = "cache"

// cacheMagic starts every snapshot file; cacheFormat changes with the header.
const (
	cacheMagic  = "pinki-cache\n"
	cacheFormat = 2
)

// cacheHeader says which ledger, at which point, a snapshot belongs to, and
// how to tell that the ledger still holds the same bytes up to that point.
type cacheHeader struct {
	Format  int    `json:"format"`
	Ledger  string `json:"ledger"` // the ledger file's base name
	Dev     uint64 `json:"dev"`
	Ino     uint64 `json:"ino"`
	Seq     int64  `json:"seq"`
	Mark    int64  `json:"mark"`
	Samples string `json:"samples"` // sha256 of sampled bytes of the ledger before Mark
	// Size and MTime are the ledger's when the snapshot was saved: the same
	// size with another modification time means bytes changed in place
	// (pinki only appends), which the samples may not cover.
	Size  int64 `json:"size"`
	MTime int64 `json:"mtime"`
}

// exactBelow is the prefix size up to which the whole prefix is hashed; above
// it, samples are.
const exactBelow = 8 << 20

// prefixSamples hashes what a snapshot's validity rests on: the ledger's bytes
// before mark — all of them for a ledger under 8 MiB; else its first and last
// 64 KiB before mark and 64 blocks of 4 KiB spread evenly between.
func prefixSamples(f *os.File, mark int64) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "%d\n", mark)
	take := func(off, n int64) error {
		_, err := io.Copy(h, io.NewSectionReader(f, off, n))
		return err
	}
	var err error
	if mark <= exactBelow {
		err = take(0, mark)
	} else {
		const edge, block, blocks = 64 << 10, 4 << 10, 64
		err = take(0, edge)
		step := (mark - 2*edge) / blocks
		for i := int64(0); i < blocks && err == nil; i++ {
			err = take(edge+i*step, block)
		}
		if err == nil {
			err = take(mark-edge, edge)
		}
	}
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func (s *Store) cachePath(name string) string {
	return filepath.Join(s.Dir(), CacheDir, filepath.Base(s.path)+"."+name+".snap")
}

// SaveSnapshot implements pinki.Snapshots: it writes what write writes as the
// snapshot name for position at, which must be a position this store handed out for
// the file as it is now. It writes to a temporary file and renames it, so a
// reader sees the old snapshot or the new one; it does not fsync (a lost
// snapshot is only a slower next read).
//
// Errors: CodeUnavailable for I/O; ErrReplaced (wrapped) when the ledger is
// no longer the file at was read from.
func (s *Store) SaveSnapshot(name string, at pinki.Position, write func(io.Writer) error) error {
	if s.opts.ReadOnly {
		return nil // derived data: a read-only store simply keeps none
	}
	f, err := os.Open(s.path)
	if err != nil {
		return pinki.Errorf(pinki.CodeUnavailable, "cannot open ledger %s: %v", s.path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return pinki.Errorf(pinki.CodeUnavailable, "cannot stat %s: %v", s.path, err)
	}
	ident, err := identOf(f)
	if err != nil {
		return pinki.Errorf(pinki.CodeUnavailable, "cannot stat %s: %v", s.path, err)
	}
	s.mu.Lock()
	known := s.known.set && s.known.ident == ident
	s.mu.Unlock()
	if !known && at.Seq > 0 {
		return fmt.Errorf("%s: %w", s.path, pinki.ErrReplaced)
	}
	if err := s.sameFile(f, ident, at, fi.Size()); err != nil {
		return err
	}
	samples, err := prefixSamples(f, at.Mark)
	if err != nil {
		return pinki.Errorf(pinki.CodeUnavailable, "cannot read %s: %v", s.path, err)
	}
	hdr, _ := json.Marshal(cacheHeader{Format: cacheFormat, Ledger: filepath.Base(s.path), Dev: ident.dev,
		Ino: ident.ino, Seq: at.Seq, Mark: at.Mark, Samples: samples, Size: fi.Size(), MTime: fi.ModTime().UnixNano()})
	dst := s.cachePath(name)
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return pinki.Errorf(pinki.CodeUnavailable, "cannot create %s: %v", filepath.Dir(dst), err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".snap-*")
	if err != nil {
		return pinki.Errorf(pinki.CodeUnavailable, "cannot write a snapshot: %v", err)
	}
	w := bufio.NewWriterSize(tmp, 1<<20)
	w.WriteString(cacheMagic)
	w.Write(hdr)
	w.WriteByte('\n')
	werr := write(w)
	if werr == nil {
		werr = w.Flush()
	}
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return pinki.Errorf(pinki.CodeUnavailable, "cannot write a snapshot: %v", errorsJoin(werr, cerr))
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		os.Remove(tmp.Name())
		return pinki.Errorf(pinki.CodeUnavailable, "cannot write a snapshot: %v", err)
	}
	return nil
}

func errorsJoin(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// LoadSnapshot implements pinki.Snapshots. It returns ok=false, and the
// caller folds from the start, unless the snapshot belongs to this ledger
// file (same device and inode), the file still holds at least the snapshot's
// bytes with a line ending where the snapshot stopped, those bytes still
// hash to the samples taken when it was saved, and the file was not modified
// without growing (same size, another modification time). A ledger replaced by a checkout
// or a restore, truncated, or rewritten in place therefore never answers from
// a stale snapshot.
func (s *Store) LoadSnapshot(name string) ([]byte, pinki.Position, bool) {
	raw, err := os.ReadFile(s.cachePath(name))
	if err != nil || !strings.HasPrefix(string(raw[:min(len(raw), len(cacheMagic))]), cacheMagic) {
		return nil, pinki.Position{}, false
	}
	rest := raw[len(cacheMagic):]
	nl := bytes.IndexByte(rest, '\n')
	if nl < 0 {
		return nil, pinki.Position{}, false
	}
	var h cacheHeader
	if json.Unmarshal(rest[:nl], &h) != nil || h.Format != cacheFormat || h.Ledger != filepath.Base(s.path) {
		return nil, pinki.Position{}, false
	}
	f, err := os.Open(s.path)
	if err != nil {
		return nil, pinki.Position{}, false
	}
	defer f.Close()
	fi, err := f.Stat()
	ident, ierr := identOf(f)
	if err != nil || ierr != nil || ident != (fileIdent{dev: h.Dev, ino: h.Ino}) || fi.Size() < h.Mark || h.Mark < 0 {
		return nil, pinki.Position{}, false
	}
	if fi.Size() == h.Size && fi.ModTime().UnixNano() != h.MTime {
		return nil, pinki.Position{}, false // rewritten in place
	}
	if h.Mark > 0 {
		var b [1]byte
		if _, err := f.ReadAt(b[:], h.Mark-1); err != nil || b[0] != '\n' {
			return nil, pinki.Position{}, false
		}
	}
	if samples, err := prefixSamples(f, h.Mark); err != nil || samples != h.Samples {
		return nil, pinki.Position{}, false
	}
	at := pinki.Position{Seq: h.Seq, Mark: h.Mark}
	if tail, err := tailBefore(f, h.Mark); err == nil {
		s.remember(ident, at, tail, true)
	}
	return rest[nl+1:], at, true
}

var _ pinki.Snapshots = (*Store)(nil)
