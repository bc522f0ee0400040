// Package atomicfile replaces a small file durably: a reader sees the old
// contents or the new, never a mix, and once Write returns the new contents
// survive a crash.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write replaces path with data: it writes a temporary file beside it with
// mode perm, fsyncs it, renames it over path and fsyncs the folder (made if
// missing).
//
// Errors: the operating system's. On an error before the rename, path is
// unchanged and no temporary file is left; when only the final fsync of the
// folder fails, path holds the new contents, not yet known to be durable.
func Write(path string, data []byte, perm os.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = f.Chmod(perm)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
