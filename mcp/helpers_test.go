package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/jsonl"
	"github.com/pinki-ledger/pinki/ledger"
	"github.com/pinki-ledger/pinki/mcp"
)

// now is the fixed clock of every test ledger.
var now = time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)

var (
	seatA = pinki.Identity{Seat: "desk/a", Role: pinki.RoleSeat}
	seatB = pinki.Identity{Seat: "desk/b", Role: pinki.RoleSeat}
)

// versions are the protocol revisions every transport is exercised with.
var versions = []string{"2025-06-18", "2025-11-25", "2026-07-28"}

// newService returns a real service over a file ledger in a temporary
// folder, with a fixed clock.
func newService(t testing.TB) *ledger.Service {
	t.Helper()
	store, err := jsonl.Open(t.TempDir()+"/ledger.jsonl", jsonl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return ledger.New(store, ledger.Options{Clock: func() time.Time { return now }})
}

// connect serves api as who over in-memory transports and returns a client
// session that negotiated version ("" for the SDK's default).
func connect(t testing.TB, api ledger.API, who pinki.Identity, version string) *sdk.ClientSession {
	t.Helper()
	srv, err := mcp.NewServer(api, who, nil)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := sdk.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return clientOver(t, ct, version)
}

// clientOver connects an SDK client over t.
func clientOver(t testing.TB, tr sdk.Transport, version string) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "pinki-test", Version: "v0"}, nil)
	cs, err := c.Connect(context.Background(), tr, &sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect (%s): %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// caller calls tools on one session and checks every result against the
// tool's output schema, as a strict client would.
type caller struct {
	t       testing.TB
	cs      *sdk.ClientSession
	outputs map[string]*jsonschema.Schema
}

func newCaller(t testing.TB, cs *sdk.ClientSession) *caller {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &caller{t: t, cs: cs, outputs: map[string]*jsonschema.Schema{}}
	for _, tool := range res.Tools {
		if tool.OutputSchema == nil {
			t.Fatalf("tool %s has no output schema", tool.Name)
		}
		c.outputs[tool.Name] = compileSchema(t, tool.Name, tool.OutputSchema)
	}
	return c
}

func compileSchema(t testing.TB, name string, schema any) *jsonschema.Schema {
	t.Helper()
	raw, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	comp := jsonschema.NewCompiler()
	url := "urn:test:" + name
	if err := comp.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	s, err := comp.Compile(url)
	if err != nil {
		t.Fatalf("schema of %s does not compile: %v", name, err)
	}
	return s
}

// call calls a tool and returns its result, structured content decoded
// into a map (nil when absent).
func (c *caller) call(name string, args any) (*sdk.CallToolResult, map[string]any) {
	c.t.Helper()
	res, err := c.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		c.t.Fatalf("%s: protocol error: %v", name, err)
	}
	if len(res.Content) != 1 {
		c.t.Fatalf("%s: %d content blocks, want 1", name, len(res.Content))
	}
	if _, ok := res.Content[0].(*sdk.TextContent); !ok {
		c.t.Fatalf("%s: content is %T, want text", name, res.Content[0])
	}
	if res.StructuredContent == nil {
		c.t.Fatalf("%s: no structured content", name)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		c.t.Fatal(err)
	}
	if s := c.outputs[name]; s != nil {
		if err := s.Validate(doc); err != nil {
			c.t.Errorf("%s: structured content %s does not match the output schema: %v", name, raw, err)
		}
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		c.t.Fatalf("%s: structured content is not an object: %s", name, raw)
	}
	return res, m
}

// ok calls a tool that must succeed.
func (c *caller) ok(name string, args any) map[string]any {
	c.t.Helper()
	res, m := c.call(name, args)
	if res.IsError {
		c.t.Fatalf("%s %v: refused: %s", name, args, text(res))
	}
	return m
}

// refused calls a tool that must be refused with code, and returns the
// refusal's structured content.
func (c *caller) refused(name string, args any, code pinki.Code) map[string]any {
	c.t.Helper()
	res, m := c.call(name, args)
	if !res.IsError {
		c.t.Fatalf("%s %v: succeeded, want a %s refusal: %s", name, args, code, text(res))
	}
	if m["code"] != string(code) {
		c.t.Fatalf("%s: refusal code %v, want %s: %s", name, m["code"], code, text(res))
	}
	if want := fmt.Sprintf("%s: %s", code, m["message"]); !strings.HasPrefix(text(res), want) {
		c.t.Fatalf("%s: refusal text %q does not start with %q", name, text(res), want)
	}
	return m
}

func text(res *sdk.CallToolResult) string {
	if len(res.Content) == 0 {
		return ""
	}
	if tc, ok := res.Content[0].(*sdk.TextContent); ok {
		return tc.Text
	}
	return ""
}
