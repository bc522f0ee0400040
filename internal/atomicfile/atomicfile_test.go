package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "state.json")
	for _, body := range []string{"one\n", "two, longer\n"} {
		if err := Write(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != body {
			t.Fatalf("read %q, %v; want %q", got, err, body)
		}
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v", fi.Mode())
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("temporary files left: %v", entries)
	}
	// A folder that cannot be written leaves the file as it was.
	if err := os.Chmod(filepath.Dir(path), 0o500); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(filepath.Dir(path), 0o755)
	if os.Geteuid() != 0 { // root writes anywhere
		if err := Write(path, []byte("three\n"), 0o600); err == nil {
			t.Fatal("wrote into a read-only folder")
		}
		if got, _ := os.ReadFile(path); string(got) != "two, longer\n" {
			t.Fatalf("file changed to %q", got)
		}
	}
}
