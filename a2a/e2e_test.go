package a2a_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki/a2a"
	"github.com/pinki-ledger/pinki/a2a/a2atest"
)

// TestJSClientEndToEnd: an independent client, @a2a-js/sdk, fetches the
// ledger agent's card, sends a promise, reads it back, resolves it, and is
// refused a message without a record.
func TestJSClientEndToEnd(t *testing.T) {
	script := a2atest.InstallJSClient(t)
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
