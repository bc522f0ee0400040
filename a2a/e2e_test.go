package a2a_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki/a2a"
)

// jsSDK is the independent client the end-to-end test installs from npm.
const jsSDK = "@a2a-js/sdk@1.3.0"

// installJSClient installs jsSDK (once per machine: into the user cache) and
// copies the client script beside it, returning the script's path. It skips
// the test, saying why, when node or npm is missing, under -short, or when
// PINKI_SKIP_NPM is set; .ci/run has both and runs it.
func installJSClient(t *testing.T) string {
	t.Helper()
	switch {
	case testing.Short():
		t.Skip("skipping the npm end-to-end test under -short")
	case os.Getenv("PINKI_SKIP_NPM") != "":
		t.Skip("skipping the npm end-to-end test: PINKI_SKIP_NPM is set")
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("skipping the npm end-to-end test: %s is not installed (it needs node and npm to run %s)", tool, jsSDK)
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "pinki-test", strings.NewReplacer("@", "", "/", "-").Replace(jsSDK))
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@a2a-js", "sdk", "package.json")); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"pinki-a2a-e2e","private":true,"type":"module"}`+"\n"), 0o644)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error", jsSDK)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm install %s: %v\n%s", jsSDK, err, out)
		}
	}
	script, err := os.ReadFile(filepath.Join("testdata", "e2e", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "client.mjs")
	if err := os.WriteFile(path, script, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestJSClientEndToEnd: an independent client, @a2a-js/sdk, fetches the
// ledger agent's card, sends a promise, reads it back, resolves it, and is
// refused a message without a record.
func TestJSClientEndToEnd(t *testing.T) {
	script := installJSClient(t)
	la := startLedgerAgent(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script, la.srv.URL, reviewer)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v\n%s", err, stderr.Bytes())
	}
	var got struct {
		Extension map[string]any `json:"extension"`
		Declared  taskJSON       `json:"declared"`
		Fetched   taskJSON       `json:"fetched"`
		Resolved  taskJSON       `json:"resolved"`
		Refused   *struct {
			Message string `json:"message"`
		} `json:"refused"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("node client printed %s: %v", out, err)
	}
	if got.Extension["uri"] != a2a.ExtensionURI || got.Extension["required"] == true {
		t.Errorf("card extension as the JS client reads it: %v", got.Extension)
	}
	for name, task := range map[string]taskJSON{"declared": got.Declared, "fetched": got.Fetched} {
		if task.ID != "js/ship-1" || task.Status.State != "TASK_STATE_WORKING" || task.Metadata[a2a.MetadataKey]["by"] != reviewer {
			t.Errorf("%s: %+v", name, task)
		}
	}
	if got.Resolved.Status.State != "TASK_STATE_COMPLETED" || len(got.Resolved.Artifacts) != 2 {
		t.Errorf("resolved: %+v", got.Resolved)
	}
	if got.Refused == nil || !strings.Contains(got.Refused.Message, "carries no promise record") {
		t.Errorf("a message without a record: %+v", got.Refused)
	}
	if d := la.get(t, "js/ship-1"); d.Resolution == nil || d.Resolution.Evidence[0] != "https://example.org/reviews/1" {
		t.Errorf("the ledger holds %+v", d)
	}
}

type taskJSON struct {
	ID     string `json:"id"`
	Status struct {
		State string `json:"state"`
	} `json:"status"`
	Artifacts []json.RawMessage         `json:"artifacts"`
	Metadata  map[string]map[string]any `json:"metadata"`
}
