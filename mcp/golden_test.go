package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var rewrite = flag.Bool("rewrite", false, "rewrite mcp/testdata/tools.json from the server's tools/list (or set PINKI_REWRITE=1)")

// TestToolsGolden keeps the tool list a model reads in a file, so that every
// change to a name, a description or a schema shows in review. Run with
// -rewrite (or PINKI_REWRITE=1) after an intended change.
func TestToolsGolden(t *testing.T) {
	cs := connect(t, newService(t), seatA, "")
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(res.Tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "tools.json")
	if *rewrite || os.Getenv("PINKI_REWRITE") != "" {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./mcp -run ToolsGolden -rewrite)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("tools/list differs from %s; if the change is intended, run go test ./mcp -run ToolsGolden -rewrite", path)
	}
}
