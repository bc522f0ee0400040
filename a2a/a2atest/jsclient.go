package a2atest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// JSSDK is the independent A2A client the end-to-end tests install from npm.
const JSSDK = "@a2a-js/sdk@1.3.0"

// InstallJSClient installs JSSDK (once per machine: into the user cache) and
// copies the client script (a2a/testdata/e2e/client.mjs) beside it,
// returning the script's path; run it as `node SCRIPT BASE_URL SEAT
// [TOKEN]`. It skips the test, saying why, when node or npm is missing,
// under -short, or when PINKI_SKIP_NPM is set; .ci/run has both and runs it.
func InstallJSClient(t testing.TB) string {
	t.Helper()
	switch {
	case testing.Short():
		t.Skip("skipping the npm end-to-end test under -short")
	case os.Getenv("PINKI_SKIP_NPM") != "":
		t.Skip("skipping the npm end-to-end test: PINKI_SKIP_NPM is set")
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("skipping the npm end-to-end test: %s is not installed (it needs node and npm to run %s)", tool, JSSDK)
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "pinki-test", strings.NewReplacer("@", "", "/", "-").Replace(JSSDK))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@a2a-js", "sdk", "package.json")); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"pinki-a2a-e2e","private":true,"type":"module"}`+"\n"), 0o644)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error", JSSDK)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm install %s: %v\n%s", JSSDK, err, out)
		}
	}
	_, self, _, _ := runtime.Caller(0)
	script, err := os.ReadFile(filepath.Join(filepath.Dir(self), "..", "testdata", "e2e", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "client.mjs")
	if err := os.WriteFile(path, script, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
