package tokens

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/internal/atomicfile"
)

// FileName is the token file's name in the ledger's folder.
const FileName = "tokens.json"

// File is a Store kept in one JSON file (mode 0600), rewritten atomically
// (temporary file, fsync, rename, fsync of the folder) under an exclusive
// flock on FILE.lock, so that `pinki token` in one process and a server in
// another can share it. Lookup checks the file's identity, size and times on
// every call and re-reads it when any changed: a revocation by another
// process takes effect on the server's next request.
type File struct {
	path  string
	clock func() time.Time

	mu     sync.Mutex
	stamp  fileStamp
	loaded bool
	byHash map[string]Token
}

// fileDoc is the file's content.
type fileDoc struct {
	Format  string  `json:"format"`
	Version int     `json:"version"`
	Tokens  []Token `json:"tokens"`
}

// fileStamp is what tells that the file changed.
type fileStamp struct {
	dev, ino    uint64
	size        int64
	mtime, ctim int64
	exists      bool
}

// OpenFile returns a File store at path (see PathFor). The file is created by
// the first Add; a missing file holds no tokens. clock stamps creations and
// revocations; nil means time.Now.
func OpenFile(path string, clock func() time.Time) *File {
	if clock == nil {
		clock = time.Now
	}
	return &File{path: path, clock: clock}
}

// PathFor returns the token file's path for the file ledger at ledgerPath:
// tokens.json in the same folder (.pinki/tokens.json by default).
func PathFor(ledgerPath string) string {
	return filepath.Join(filepath.Dir(ledgerPath), FileName)
}

// Path is the token file's path.
func (f *File) Path() string { return f.path }

var _ Store = (*File)(nil)

// Add implements Store.
func (f *File) Add(ctx context.Context, seat string, role pinki.Role) (string, Token, error) {
	secret, t, err := Mint(seat, role, f.clock())
	if err != nil {
		return "", Token{}, err
	}
	err = f.update(func(doc *fileDoc) error {
		for _, old := range doc.Tokens {
			if old.ID == t.ID { // 48 bits: only if the random source repeats
				return pinki.Errorf(pinki.CodeUnavailable, "a token with id %s already exists: try again", t.ID)
			}
		}
		doc.Tokens = append(doc.Tokens, t)
		return nil
	})
	if err != nil {
		return "", Token{}, err
	}
	return secret, t, nil
}

// List implements Store.
func (f *File) List(ctx context.Context) ([]Token, error) {
	doc, _, err := f.read()
	if err != nil {
		return nil, err
	}
	return doc.Tokens, nil
}

// Revoke implements Store.
func (f *File) Revoke(ctx context.Context, ref string) (Token, error) {
	id, err := RefID(ref)
	if err != nil {
		return Token{}, err
	}
	var out Token
	err = f.update(func(doc *fileDoc) error {
		for i := range doc.Tokens {
			if doc.Tokens[i].ID == id {
				if doc.Tokens[i].Revoked == "" {
					doc.Tokens[i].Revoked = stamp(f.clock())
				}
				out = doc.Tokens[i]
				return nil
			}
		}
		return NotFound(id)
	})
	return out, err
}

// Lookup implements Store. The secret is hashed before it is compared with
// anything, and the stored hash is compared in constant time, so timing says
// nothing about the secret.
func (f *File) Lookup(ctx context.Context, secret string) (pinki.Identity, error) {
	hash, err := Presented(secret)
	if err != nil {
		return pinki.Identity{}, err
	}
	byHash, err := f.current()
	if err != nil {
		return pinki.Identity{}, err
	}
	t, ok := byHash[hash]
	return Grant(t, ok, hash)
}

// current returns the tokens by hash, re-reading the file when it changed.
func (f *File) current() (map[string]Token, error) {
	st, err := statFile(f.path)
	if err != nil {
		return nil, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.loaded && st == f.stamp {
		return f.byHash, nil
	}
	doc, st, err := f.read()
	if err != nil {
		return nil, err
	}
	m := make(map[string]Token, len(doc.Tokens))
	for _, t := range doc.Tokens {
		m[t.Hash] = t
	}
	f.byHash, f.stamp, f.loaded = m, st, true
	return m, nil
}

// read reads the file and the stamp it had when read.
func (f *File) read() (fileDoc, fileStamp, error) {
	doc := fileDoc{Format: "pinki-tokens", Version: 1, Tokens: []Token{}}
	fh, err := os.Open(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return doc, fileStamp{}, nil
	}
	if err != nil {
		return doc, fileStamp{}, pinki.Errorf(pinki.CodeUnavailable, "cannot open %s: %v", f.path, err)
	}
	defer fh.Close()
	st, err := stampOf(fh)
	if err != nil {
		return doc, st, pinki.Errorf(pinki.CodeUnavailable, "cannot stat %s: %v", f.path, err)
	}
	dec := json.NewDecoder(fh)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return doc, st, pinki.Errorf(pinki.CodeUnavailable, "%s is not a pinki token file: %v", f.path, err)
	}
	if doc.Tokens == nil {
		doc.Tokens = []Token{}
	}
	return doc, st, nil
}

// update changes the file under its lock, atomically.
func (f *File) update(change func(doc *fileDoc) error) error {
	dir := filepath.Dir(f.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return pinki.Errorf(pinki.CodeUnavailable, "cannot create %s: %v", dir, err)
	}
	unlock, err := lock(f.path + ".lock")
	if err != nil {
		return err
	}
	defer unlock()
	doc, _, err := f.read()
	if err != nil {
		return err
	}
	if err := change(&doc); err != nil {
		return err
	}
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return pinki.Errorf(pinki.CodeInternal, "cannot encode tokens: %v", err)
	}
	data = append(data, '\n')
	err = atomicfile.Write(f.path, data, 0o600)
	if err != nil {
		return pinki.Errorf(pinki.CodeUnavailable, "cannot write %s: %v", f.path, err)
	}
	return nil
}

func lock(path string) (func(), error) {
	fh, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, pinki.Errorf(pinki.CodeUnavailable, "cannot open lock %s: %v", path, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := unix.Flock(int(fh.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() {
				unix.Flock(int(fh.Fd()), unix.LOCK_UN)
				fh.Close()
			}, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) || time.Now().After(deadline) {
			fh.Close()
			return nil, pinki.Errorf(pinki.CodeUnavailable, "cannot lock %s: %v", path, err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func statFile(path string) (fileStamp, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return fileStamp{}, nil
		}
		return fileStamp{}, pinki.Errorf(pinki.CodeUnavailable, "cannot stat %s: %v", path, err)
	}
	return stampFrom(&st), nil
}

func stampOf(fh *os.File) (fileStamp, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(fh.Fd()), &st); err != nil {
		return fileStamp{}, err
	}
	return stampFrom(&st), nil
}

func stampFrom(st *unix.Stat_t) fileStamp {
	return fileStamp{dev: uint64(st.Dev), ino: st.Ino, size: st.Size,
		mtime: st.Mtim.Nano(), ctim: st.Ctim.Nano(), exists: true}
}
