package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/internal/atomicfile"
)

// StateFormat is the value of the state file's "format" key.
const StateFormat = "pinki-verify-state/1"

// DefaultStatePath is where the state file lives for a ledger at
// ledgerPath: .pinki/verify/state.json next to .pinki/ledger.jsonl.
func DefaultStatePath(ledgerPath string) string {
	return filepath.Join(filepath.Dir(ledgerPath), "verify", "state.json")
}

// state is the Verifier's durable memory between passes (the state file):
//
//	{
//	  "format": "pinki-verify-state/1",
//	  "since": "2026-09-01T17:00:00Z",
//	  "obligations": {
//	    "pnk_1a2b3c": {
//	      "bind:sha256:…": {"kind": "todo", "observed_at": "2026-09-01T17:05:00Z", "memory": {…}}
//	    }
//	  }
//	}
//
// since is when this file began: a target bound at or after it has been
// watched without a break (Prior.Continuous). memory is the adapter's own,
// opaque to the Verifier. Obligations that are resolved, or no longer
// verifiable, are dropped on the next pass.
type state struct {
	Format      string                           `json:"format"`
	Since       string                           `json:"since"`
	Obligations map[string]map[string]*targetRec `json:"obligations"`

	sinceAt time.Time
}

// targetRec is what the state file holds about one target.
type targetRec struct {
	Kind       string          `json:"kind"`
	ObservedAt string          `json:"observed_at,omitempty"`
	Memory     json.RawMessage `json:"memory,omitempty"`
}

// Init makes sure a state file exists at path, starting it at now when it
// does not, so that targets bound from now on count as watched since their
// binding (their bind snapshot is their first observation). A host calls it
// when it sets up a ledger or before it binds a target; a Verifier also
// starts the file on its first pass, but then the targets bound before that
// pass are re-baselined conservatively.
//
// Errors: CodeUnavailable when the file cannot be read or written;
// CodeInvalid when an existing file is not a state file.
func Init(path string, now time.Time) error {
	unlock, err := lockState(context.Background(), path)
	if err != nil {
		return err
	}
	defer unlock()
	st, existed, err := loadState(path, now)
	if err != nil || existed {
		return err
	}
	return st.save(path)
}

// loadState reads the state file, or starts a new state at now when there is
// none. existed reports whether the file was there.
func loadState(path string, now time.Time) (st *state, existed bool, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		t := now.UTC().Truncate(time.Second)
		return &state{Format: StateFormat, Since: pinki.FormatTime(t), sinceAt: t,
			Obligations: map[string]map[string]*targetRec{}}, false, nil
	}
	if err != nil {
		return nil, false, &pinki.Error{Code: pinki.CodeUnavailable, Field: "state",
			Message: fmt.Sprintf("cannot read the verifier state file %s: %v", path, err)}
	}
	bad := func(why string) *pinki.Error {
		return pinki.Invalid("state", "%s is not a pinki verifier state file: %s", path, why).
			WithHint("delete it to start over: the verifier then re-baselines every target conservatively")
	}
	st = &state{}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(st); err != nil {
		return nil, true, bad(err.Error())
	}
	if st.Format != StateFormat {
		return nil, true, bad(fmt.Sprintf("format %q, want %q", st.Format, StateFormat))
	}
	if st.sinceAt, err = pinki.ParseTime(st.Since); err != nil {
		return nil, true, bad("since is not an RFC 3339 instant")
	}
	if st.Obligations == nil {
		st.Obligations = map[string]map[string]*targetRec{}
	}
	return st, true, nil
}

// continuous reports whether a target bound at boundAt (an RFC 3339 ts) has
// been watched since its binding: the state began no later than the bind.
func (st *state) continuous(boundAt string) bool {
	t, err := pinki.ParseTime(boundAt)
	return err == nil && !t.Before(st.sinceAt)
}

func (st *state) get(id, key string) *targetRec {
	return st.Obligations[id][key]
}

func (st *state) put(id, key string, rec *targetRec) {
	m := st.Obligations[id]
	if m == nil {
		m = map[string]*targetRec{}
		st.Obligations[id] = m
	}
	m[key] = rec
}

// save writes the state atomically: a temporary file in the same folder,
// synced, then renamed over path.
func (st *state) save(path string) error {
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return &pinki.Error{Code: pinki.CodeInternal, Message: "encoding the verifier state: " + err.Error()}
	}
	data = append(data, '\n')
	if err := atomicfile.Write(path, data, 0o644); err != nil {
		return &pinki.Error{Code: pinki.CodeUnavailable, Field: "state",
			Message: fmt.Sprintf("cannot write the verifier state file %s: %v", path, err)}
	}
	return nil
}

// lockState takes the exclusive lock on path + ".lock", so that two
// verifiers sharing a state file take turns. It waits while another holds it,
// until ctx ends or a minute passes.
//
// Errors: CodeUnavailable when the lock cannot be had.
func lockState(ctx context.Context, path string) (func(), error) {
	fail := func(err error) error {
		return &pinki.Error{Code: pinki.CodeUnavailable, Field: "state",
			Message: fmt.Sprintf("cannot lock the verifier state file %s: %v", path, err)}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fail(err)
	}
	f, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fail(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() {
				unix.Flock(int(f.Fd()), unix.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) || time.Now().After(deadline) {
			f.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				err = errors.New("another verifier holds it")
			}
			return nil, fail(err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fail(ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}
