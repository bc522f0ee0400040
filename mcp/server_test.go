package mcp_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/mcp"
)

func TestNewServerNeedsASeat(t *testing.T) {
	_, err := mcp.NewServer(newService(t), pinki.Identity{}, nil)
	if pinki.ErrorCode(err) != pinki.CodeInvalid {
		t.Fatalf("NewServer with no seat: %v, want a %s error", err, pinki.CodeInvalid)
	}
}

func TestToolsList(t *testing.T) {
	cs := connect(t, newService(t), seatA, "")
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Description == "" {
			t.Errorf("%s has no description", tool.Name)
		}
		in, _ := tool.InputSchema.(map[string]any)
		if in["type"] != "object" || in["additionalProperties"] != false {
			t.Errorf("%s: input schema %v is not a closed object", tool.Name, in)
		}
		props, _ := in["properties"].(map[string]any)
		for _, k := range []string{"seat", "observer", "proposer", "as_seat", "writer"} {
			if _, ok := props[k]; ok {
				t.Errorf("%s takes an identity argument %q", tool.Name, k)
			}
		}
		compileSchema(t, tool.Name+".in", tool.InputSchema)
		compileSchema(t, tool.Name+".out", tool.OutputSchema)
	}
	want := []string{"accept", "agreements", "amend", "assess", "inbox", "list", "make_promise", "make_request",
		"prime", "propose", "report_progress", "resolve", "show"}
	if !slices.Equal(names, want) || !slices.Equal(mcp.ToolNames(), want) {
		t.Fatalf("tools %v (ToolNames %v), want %v", names, mcp.ToolNames(), want)
	}
	if cs.InitializeResult().Instructions == "" || !strings.Contains(cs.InitializeResult().Instructions, "desk/a") {
		t.Errorf("instructions %q do not name the bound seat", cs.InitializeResult().Instructions)
	}
}

// TestEveryTool walks every verb through two seats sharing one ledger.
func TestEveryTool(t *testing.T) {
	api := newService(t)
	a := newCaller(t, connect(t, api, seatA, ""))
	b := newCaller(t, connect(t, api, seatB, ""))

	// A promise, its progress, a deadline move, and its delivery.
	p := a.ok("make_promise", map[string]any{"promise": "ship the report", "to": "desk/b", "until": "+2d", "meta": map[string]any{"src": "test"}})
	id := p["id"].(string)
	if p["state"] != "detached" || p["rev"] != 1.0 || !strings.HasPrefix(p["digest"].(string), "sha256:") {
		t.Fatalf("make_promise receipt %v", p)
	}
	if r := a.ok("report_progress", map[string]any{"id": id, "phase": "in_progress", "note": "drafting"}); r["rev"] != 2.0 {
		t.Fatalf("report_progress receipt %v", r)
	}
	if r := a.ok("amend", map[string]any{"id": id, "until": "+3d", "reason": "waiting on data", "rev": 2}); r["rev"] != 3.0 {
		t.Fatalf("amend receipt %v", r)
	}
	d := b.ok("show", map[string]any{"id": id})
	if d["by"] != "desk/a" || d["to"] != "desk/b" || d["phase"] != "in_progress" || d["until"] != "2026-09-04T12:00:00Z" {
		t.Fatalf("show %v", d)
	}
	if l := a.ok("list", map[string]any{}); len(l["items"].([]any)) != 1 {
		t.Fatalf("list %v", l)
	}
	if r := a.ok("resolve", map[string]any{"id": id, "as": "satisfied", "evidence": []string{"https://example.com/report"}}); r["state"] != "satisfied" {
		t.Fatalf("resolve receipt %v", r)
	}
	if r := a.ok("resolve", map[string]any{"id": id, "as": "satisfied", "evidence": []string{"https://example.com/report"}}); r["idempotent"] != true {
		t.Fatalf("repeated resolve %v, want idempotent", r)
	}
	if l := a.ok("list", map[string]any{"scope": "all", "kind": "promise", "debtor": "desk/a"}); len(l["items"].([]any)) != 1 {
		t.Fatalf("list all %v", l)
	}
	b.ok("assess", map[string]any{"id": id, "state": "kept", "note": "on time"})

	// The other outcomes: failed and cancelled by the debtor, released by
	// the creditor.
	for _, c := range []struct {
		who  *caller
		args map[string]any
	}{
		{a, map[string]any{"as": "failed", "reason": "the source is gone"}},
		{a, map[string]any{"as": "cancelled", "reason": "no longer needed"}},
		{b, map[string]any{"as": "released"}},
	} {
		id := a.ok("make_promise", map[string]any{"promise": "tidy " + c.args["as"].(string), "to": "desk/b", "until": "+1d"})["id"]
		c.args["id"] = id
		if r := c.who.ok("resolve", c.args); r["state"] != c.args["as"] {
			t.Fatalf("resolve %v: %v", c.args, r)
		}
	}

	// A typed request: a wrong answer is refused with every violation, the
	// right one closes it.
	schema := map[string]any{"type": "object", "required": []string{"count"},
		"properties": map[string]any{"count": map[string]any{"type": "integer"}, "sku": map[string]any{"type": "string"}}}
	rq := a.ok("make_request", map[string]any{"promise": "count the stock", "by": "desk/b", "until": "+1d", "schema": schema, "schema_id": "stock.v1"})
	rid, digest := rq["id"].(string), rq["digest"].(string)
	e := b.refused("resolve", map[string]any{"id": rid, "as": "satisfied", "response": map[string]any{"count": "x", "sku": 3},
		"digest": digest, "schema_id": "stock.v1"}, pinki.CodeInvalid)
	if det, _ := e["details"].([]any); len(det) != 2 || e["field"] != "response" {
		t.Fatalf("schema refusal %v, want two details on field response", e)
	}
	if r := b.ok("resolve", map[string]any{"id": rid, "as": "satisfied", "response": map[string]any{"count": 7},
		"digest": digest, "schema_id": "stock.v1"}); r["state"] != "satisfied" {
		t.Fatalf("answer %v", r)
	}

	// An agreement: proposed, accepted by both, then owed.
	ag := a.ok("propose", map[string]any{"terms": "review each other's drafts", "with": "desk/b", "role": "creditor", "until": "+5d"})
	gid := ag["id"].(string)
	if ag["state"] != "proposed" {
		t.Fatalf("propose %v", ag)
	}
	if g := b.ok("show", map[string]any{"id": gid}); g["by"] != "desk/b" || g["to"] != "desk/a" || g["proposer"] != "to" {
		t.Fatalf("agreement %v: desk/a proposed as creditor", g)
	}
	if in := b.ok("inbox", nil); in["proposals"] != 1.0 {
		t.Fatalf("inbox of desk/b %v, want one proposal", in)
	}
	a.ok("accept", map[string]any{"id": gid, "rev": 1})
	b.refused("accept", map[string]any{"id": gid, "rev": 1}, pinki.CodeConflict)
	if r := b.ok("accept", map[string]any{"id": gid, "rev": 2}); r["state"] != "detached" {
		t.Fatalf("accepted agreement %v", r)
	}
	if s := a.ok("agreements", map[string]any{}); len(s["current"].([]any)) != 1 || s["seat"] != "desk/a" {
		t.Fatalf("agreements %v", s)
	}

	// The seat's views.
	if in := b.ok("inbox", map[string]any{}); in["seat"] != "desk/b" || in["action_required"] != 1.0 {
		t.Fatalf("inbox of desk/b %v", in)
	}
	res, br := b.call("prime", nil)
	if res.IsError || br["seat"] != "desk/b" || !strings.Contains(text(res), gid) || text(res) != br["text"] {
		t.Fatalf("prime of desk/b: %s %v", text(res), br)
	}
}

func TestRefusals(t *testing.T) {
	api := newService(t)
	a := newCaller(t, connect(t, api, seatA, ""))
	b := newCaller(t, connect(t, api, seatB, ""))
	id := a.ok("make_promise", map[string]any{"promise": "x", "to": "desk/b", "until": "+1d"})["id"]

	e := a.refused("resolve", map[string]any{"id": id, "as": "satisfied"}, pinki.CodeInvalid)
	if e["field"] != "evidence" || e["hint"] == nil {
		t.Fatalf("refusal %v, want field evidence and a hint", e)
	}
	res, _ := a.call("resolve", map[string]any{"id": id, "as": "satisfied"})
	if !strings.Contains(text(res), "\nhint: ") {
		t.Fatalf("refusal text %q carries no hint line", text(res))
	}
	a.refused("show", map[string]any{"id": "pnk_000000"}, pinki.CodeNotFound)
	a.refused("make_promise", map[string]any{"promise": "x", "to": "desk/b", "until": "2026-09-01T17:00:00"}, pinki.CodeInvalid)
	// The service's authority rules hold: the creditor cannot deliver for
	// the debtor, nor a stranger report progress.
	b.refused("resolve", map[string]any{"id": id, "as": "satisfied", "evidence": []string{"x"}}, pinki.CodeForbidden)
	b.refused("report_progress", map[string]any{"id": id, "phase": "blocked"}, pinki.CodeForbidden)
	a.ok("resolve", map[string]any{"id": id, "as": "cancelled", "reason": "moot"})
	a.refused("resolve", map[string]any{"id": id, "as": "failed", "reason": "other"}, pinki.CodeConflict)
	a.refused("amend", map[string]any{"id": id, "until": "+2d", "rev": 1}, pinki.CodeConflict)
}

func TestSchemaViolationListsEachPath(t *testing.T) {
	a := newCaller(t, connect(t, newService(t), seatA, ""))
	args := map[string]any{"promise": 5, "by": "desk/b", "lapse": "never", "meta": []int{1}}
	e := a.refused("make_request", args, pinki.CodeInvalid)
	want := []any{
		"/lapse: value must be one of 'overdue', 'expire'",
		"/meta: got array, want object",
		"/promise: got number, want string",
		"/until: required",
	}
	if got, _ := e["details"].([]any); !slices.Equal(got, want) {
		t.Fatalf("details %q, want %q", got, want)
	}
	if e["field"] != "arguments" || strings.Contains(e["message"].(string), "\n") {
		t.Fatalf("refusal %v: want field arguments and a one-line message", e)
	}
	res, _ := a.call("make_request", args)
	for _, w := range want {
		if !strings.Contains(text(res), "\n- "+w.(string)) {
			t.Errorf("refusal text %q lacks the line %q", text(res), w)
		}
	}
	e = a.refused("resolve", map[string]any{"id": "x", "as": "done", "evidence": []any{}, "bogus": 1}, pinki.CodeInvalid)
	want = []any{"/as: value must be one of 'satisfied', 'failed', 'cancelled', 'released'",
		"/bogus: unknown argument", "/evidence: minItems: got 0, want 1"}
	if got, _ := e["details"].([]any); !slices.Equal(got, want) {
		t.Fatalf("details %q, want %q", got, want)
	}
}

func TestIdentityArgumentsAreRefused(t *testing.T) {
	api := newService(t)
	a := newCaller(t, connect(t, api, seatA, ""))
	id := a.ok("make_promise", map[string]any{"promise": "x", "to": "desk/b", "until": "+1d"})["id"]
	for _, c := range []struct {
		tool string
		args map[string]any
		arg  string
	}{
		{"make_promise", map[string]any{"promise": "y", "to": "desk/c", "until": "+1d", "by": "desk/b"}, "by"},
		{"make_request", map[string]any{"promise": "y", "by": "desk/c", "until": "+1d", "to": "desk/b"}, "to"},
		{"propose", map[string]any{"terms": "y", "with": "desk/c", "role": "debtor", "until": "+1d", "proposer": "to"}, "proposer"},
		{"resolve", map[string]any{"id": id, "as": "released", "by": "desk/b"}, "by"},
		{"amend", map[string]any{"id": id, "until": "+2d", "by": "desk/b"}, "by"},
		{"report_progress", map[string]any{"id": id, "phase": "blocked", "by": 7}, "by"},
		{"assess", map[string]any{"id": id, "state": "violated", "observer": "desk/b"}, "observer"},
		{"prime", map[string]any{"seat": "desk/b"}, "seat"},
		{"inbox", map[string]any{"seat": "desk/b"}, "seat"},
		{"list", map[string]any{"seat": "desk/b"}, "seat"},
	} {
		e := a.refused(c.tool, c.args, pinki.CodeForbidden)
		if e["field"] != c.arg {
			t.Errorf("%s: refusal on field %v, want %s", c.tool, e["field"], c.arg)
		}
	}
	// Naming the bound seat itself is harmless.
	a.ok("report_progress", map[string]any{"id": id, "phase": "acknowledged", "by": "desk/a"})
	a.ok("prime", map[string]any{"seat": "desk/a"})
	// by names the other party on a request, and is a plain unknown
	// argument on propose.
	a.ok("make_request", map[string]any{"promise": "y", "by": "desk/c", "until": "+1d"})
	a.refused("propose", map[string]any{"terms": "y", "with": "desk/c", "role": "debtor", "until": "+1d", "by": "desk/a"}, pinki.CodeInvalid)
}

func TestBriefingPromptAndResource(t *testing.T) {
	api := newService(t)
	a := newCaller(t, connect(t, api, seatA, ""))
	id := a.ok("make_promise", map[string]any{"promise": "write the summary", "to": "desk/b", "until": "+1d"})["id"].(string)
	ctx := context.Background()

	prompts, err := a.cs.ListPrompts(ctx, nil)
	if err != nil || len(prompts.Prompts) != 1 || prompts.Prompts[0].Name != mcp.BriefingPrompt {
		t.Fatalf("prompts %v %v", prompts, err)
	}
	p, err := a.cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: mcp.BriefingPrompt})
	if err != nil {
		t.Fatal(err)
	}
	tc, _ := p.Messages[0].Content.(*sdk.TextContent)
	if len(p.Messages) != 1 || tc == nil || !strings.Contains(tc.Text, id) || !strings.HasPrefix(tc.Text, "pinki briefing for desk/a") {
		t.Fatalf("prompt %+v", p.Messages[0])
	}

	resources, err := a.cs.ListResources(ctx, nil)
	if err != nil || len(resources.Resources) != 1 || resources.Resources[0].URI != mcp.BriefingURI {
		t.Fatalf("resources %v %v", resources, err)
	}
	r, err := a.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: mcp.BriefingURI})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Contents) != 1 || r.Contents[0].Text != tc.Text || r.Contents[0].MIMEType != "text/plain" {
		t.Fatalf("resource %+v, want the prompt's text", r.Contents)
	}
}

func TestProtocolVersionsInMemory(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			cs := connect(t, newService(t), seatA, v)
			if got := cs.InitializeResult().ProtocolVersion; got != v {
				t.Fatalf("negotiated %s, want %s", got, v)
			}
			exercise(t, cs)
		})
	}
}

// exercise lists the tools, makes and resolves a promise, gets a refusal
// and reads the briefing: the round trip every transport must carry.
func exercise(t *testing.T, cs *sdk.ClientSession) {
	t.Helper()
	c := newCaller(t, cs)
	if len(c.outputs) != len(mcp.ToolNames()) {
		t.Fatalf("%d tools listed", len(c.outputs))
	}
	id := c.ok("make_promise", map[string]any{"promise": "answer", "to": "desk/b", "until": "+1h"})["id"]
	c.refused("resolve", map[string]any{"id": id, "as": "satisfied"}, pinki.CodeInvalid)
	if r := c.ok("resolve", map[string]any{"id": id, "as": "satisfied", "evidence": []string{"commit:abc"}}); r["state"] != "satisfied" {
		t.Fatalf("resolve %v", r)
	}
	if _, err := cs.ReadResource(context.Background(), &sdk.ReadResourceParams{URI: mcp.BriefingURI}); err != nil {
		t.Fatal(err)
	}
}
