// Package jsonl is the file ledger (SPEC §3): one compact JSON event per line,
// appended under an exclusive lock with one write per batch and an fsync
// before success, a torn tail moved to a quarantine file, and a derived
// snapshot cache under .pinki/ that is always safe to delete.
//
// It imports nothing that opens a network connection.
package jsonl

import (
	"os"
	"path/filepath"
)

// DirName and FileName are where a ledger lives by default: .pinki/ledger.jsonl.
const (
	DirName  = ".pinki"
	FileName = "ledger.jsonl"
)

// Locate returns the ledger path (SPEC §3): explicit (a --ledger flag) if set,
// else env ($PINKI_LEDGER) if set, else the nearest .pinki/ledger.jsonl
// walking up from dir, else dir/.pinki/ledger.jsonl.
func Locate(explicit, env, dir string) string {
	if explicit != "" {
		return explicit
	}
	if env != "" {
		return env
	}
	for d := dir; ; {
		p := filepath.Join(d, DirName, FileName)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return filepath.Join(dir, DirName, FileName)
}
