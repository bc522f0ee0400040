package main

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/jsonl"
	"github.com/pinki-ledger/pinki/ledger"
)

// backend is the ledger API one invocation talks to, where it is (for
// messages), and how to let it go.
type backend struct {
	api   ledger.API
	where string
	close func()
}

// api returns the ledger API, opening it on first use. This is the one place
// a ledger.API is made: every verb goes through it, so that a server mode
// (--server URL) only has to return an HTTP client here.
//
// Errors: *pinki.Error (CodeUnavailable when the store cannot be opened).
func (a *app) api() (ledger.API, error) {
	if a.backend == nil {
		b, err := a.openFile(a.ledgerPath(true))
		if err != nil {
			return nil, err
		}
		a.backend = b
	}
	return a.backend.api, nil
}

// where is the ledger the invocation uses, as messages name it.
func (a *app) where() string {
	if a.backend != nil {
		return a.backend.where
	}
	return a.ledgerPath(true)
}

// openFile opens the file ledger at path and the service over it. Lines the
// service cannot decode are reported on stderr as it meets them and counted
// (a read then exits 3); a torn last line moved aside is reported too.
func (a *app) openFile(path string) (*backend, error) {
	store, err := jsonl.Open(path, jsonl.Options{
		OnQuarantine: func(quarantine string, size int) {
			a.warn("moved a torn last line (%d bytes) of %s to %s", size, path, quarantine)
		},
	})
	if err != nil {
		return nil, pinki.AsError(err)
	}
	opts := ledger.Options{
		OnUnknownLine: func(seq int64, raw []byte, err error) {
			a.unknown++
			a.warn("%s line %d: %v", path, seq, err)
		},
	}
	if a.fixed {
		now := a.now
		opts.Clock = func() time.Time { return now }
	}
	svc := ledger.New(store, opts)
	return &backend{api: svc, where: path, close: func() {
		svc.Close()
		store.Close()
	}}, nil
}

func (a *app) close() {
	if a.backend != nil {
		a.backend.close()
		a.backend = nil
	}
}

// ledgerPath is the ledger file (SPEC §3): --ledger, else $PINKI_LEDGER, else
// (when discover is set) the nearest .pinki/ledger.jsonl walking up from the
// working directory, else ./.pinki/ledger.jsonl. A discovered path is shown
// relative to the working directory.
func (a *app) ledgerPath(discover bool) string {
	if a.ledgerFlag != "" {
		return a.ledgerFlag
	}
	if env := os.Getenv("PINKI_LEDGER"); env != "" {
		return env
	}
	cwd, err := os.Getwd()
	if err != nil {
		return filepath.Join(".", jsonl.DirName, jsonl.FileName)
	}
	p := filepath.Join(cwd, jsonl.DirName, jsonl.FileName)
	if discover {
		p = jsonl.Locate("", "", cwd)
	}
	rel, err := filepath.Rel(cwd, p)
	if err != nil {
		return p
	}
	if !strings.HasPrefix(rel, "..") {
		rel = "./" + rel
	}
	return rel
}
