package a2a_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/a2a"
)

const (
	reviewer = "https://example.org/agents/reviewer"
	author   = "https://example.org/agents/author"
)

// bearerSeat is the test servers' identity: "Authorization: Bearer SEAT"
// acts as SEAT.
func bearerSeat(r *http.Request) (pinki.Identity, error) {
	seat, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || seat == "" {
		return pinki.Identity{}, pinki.Errorf(pinki.CodeUnauthenticated, "no bearer token")
	}
	return pinki.Identity{Seat: seat, Role: pinki.RoleSeat}, nil
}

// ledgerAgent is pinki serve's A2A surface over a file ledger: the card at
// the well-known path and the JSON-RPC endpoint at /a2a.
type ledgerAgent struct {
	*fileLedger
	srv *httptest.Server
}

func startLedgerAgent(t *testing.T) *ledgerAgent {
	t.Helper()
	l := newFileLedger(t)
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.Handle("/.well-known/agent-card.json", a2a.CardHandler(a2a.ServerCard(a2a.CardOptions{BaseURL: srv.URL, Version: "test"})))
	mux.Handle("/a2a", a2a.NewServer(l.svc, bearerSeat))
	return &ledgerAgent{fileLedger: l, srv: srv}
}

// rpc posts one JSON-RPC request as seat ("" sends no credential) and
// returns the response with its headers.
func (la *ledgerAgent) rpc(t *testing.T, seat, method string, params any) (rpcResponse, http.Header) {
	t.Helper()
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, la.srv.URL+"/a2a", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("A2A-Version", "1.0")
	req.Header.Set("A2A-Extensions", a2a.ExtensionURI)
	if seat != "" {
		req.Header.Set("Authorization", "Bearer "+seat)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out rpcResponse
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s: %s: %v", method, raw, err)
	}
	return out, resp.Header
}

type rpcResponse struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int              `json:"code"`
		Message string           `json:"message"`
		Data    []map[string]any `json:"data"`
	} `json:"error"`
}

// pinkiCode is the pinki error code a JSON-RPC error carries in its data.
func (r rpcResponse) pinkiCode() string {
	if r.Error == nil {
		return ""
	}
	for _, d := range r.Error.Data {
		if d["@type"] == "type.googleapis.com/google.protobuf.Struct" {
			s, _ := d["code"].(string)
			return s
		}
	}
	return ""
}

// message is a SendMessage request carrying record under the extension's
// metadata key.
func message(record map[string]any, listExtension bool) map[string]any {
	m := map[string]any{"messageId": "m-1", "role": "ROLE_USER",
		"parts": []any{map[string]any{"text": "a promise"}}}
	if record != nil {
		m["metadata"] = map[string]any{a2a.MetadataKey: record}
	}
	if listExtension {
		m["extensions"] = []string{a2a.ExtensionURI}
	}
	return map[string]any{"message": m}
}

func shipRecord() map[string]any {
	return map[string]any{"id": "desk/ship-91", "promise": "hand back a reviewed schema",
		"by": reviewer, "to": author, "until": "2026-09-02T17:00:00Z", "task": "a2a-task-9c1f0e"}
}

// rewriting reports whether golden files are to be rewritten:
// PINKI_REWRITE=1, or a -rewrite flag when some test file defines one.
func rewriting() bool {
	if os.Getenv("PINKI_REWRITE") != "" {
		return true
	}
	f := flag.Lookup("rewrite")
	return f != nil && f.Value.String() == "true"
}

// golden compares got (JSON, re-indented) with testdata/name, or rewrites it.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Indent(&buf, bytes.TrimSpace(got), "", "  "); err != nil {
		t.Fatalf("%s: not JSON: %v: %s", name, err, got)
	}
	buf.WriteByte('\n')
	path := filepath.Join("testdata", name)
	if rewriting() {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (PINKI_REWRITE=1 go test ./a2a/ writes it)", err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("%s differs from the golden file (PINKI_REWRITE=1 rewrites it):\n--- got\n%s\n--- want\n%s", name, buf.Bytes(), want)
	}
}

func TestServeCardGolden(t *testing.T) {
	card := a2a.ServerCard(a2a.CardOptions{BaseURL: "https://ledger.example.org/", Version: "0.3.0"})
	rec := httptest.NewRecorder()
	a2a.CardHandler(card).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/.well-known/agent-card.json", nil))
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("card: %d %s", rec.Code, rec.Header())
	}
	golden(t, "serve_card.golden.json", rec.Body.Bytes())
	// The extension entry declares required: false on the wire.
	if !strings.Contains(rec.Body.String(), `"required": false`) {
		t.Errorf("the extension entry must say required: false")
	}
	// a2a-go reads it as a card with a JSON-RPC interface.
	parsed, err := a2a.ParseCard("golden", rec.Body.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if parsed.SupportedInterfaces[0].URL != "https://ledger.example.org/a2a" || parsed.Capabilities.Extensions[0].URI != a2a.ExtensionURI {
		t.Errorf("parsed card: %+v", parsed)
	}
	rec = httptest.NewRecorder()
	a2a.CardHandler(card).ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/.well-known/agent-card.json", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST card: %d", rec.Code)
	}
}

func TestServeDeclareResolveGet(t *testing.T) {
	la := startLedgerAgent(t)

	// Declare, as the debtor.
	res, hdr := la.rpc(t, reviewer, "SendMessage", message(shipRecord(), true))
	if res.Error != nil {
		t.Fatalf("declare: %+v", res.Error)
	}
	if hdr.Get("A2A-Extensions") != a2a.ExtensionURI {
		t.Errorf("the response should name the activated extension, got %q", hdr.Get("A2A-Extensions"))
	}
	golden(t, "serve_declare.golden.json", res.Result)
	lines := len(la.lines(t))

	// The same message again: an idempotent success.
	if res, _ := la.rpc(t, reviewer, "SendMessage", message(shipRecord(), true)); res.Error != nil || len(la.lines(t)) != lines {
		t.Errorf("repeat declare: %+v, %d lines", res.Error, len(la.lines(t)))
	}

	// GetTask by the promise id and by the task it names.
	for _, id := range []string{"desk/ship-91", "a2a-task-9c1f0e"} {
		res, _ := la.rpc(t, author, "GetTask", map[string]any{"id": id})
		if res.Error != nil {
			t.Fatalf("GetTask %s: %+v", id, res.Error)
		}
		golden(t, "serve_get.golden.json", res.Result)
	}

	// Resolve satisfied, with evidence, as the debtor.
	rec := map[string]any{"id": "desk/ship-91", "resolve": map[string]any{"as": "satisfied", "evidence": []string{"https://example.org/reviews/91"}}}
	res, _ = la.rpc(t, reviewer, "SendMessage", message(rec, true))
	if res.Error != nil {
		t.Fatalf("resolve: %+v", res.Error)
	}
	golden(t, "serve_resolved.golden.json", res.Result)
	if d := la.get(t, "desk/ship-91"); d.Resolution == nil || d.Resolution.By != reviewer {
		t.Errorf("not resolved by the debtor: %+v", d.Resolution)
	}
	// The resolve may repeat the declaration's keys.
	full := shipRecord()
	full["resolve"] = rec["resolve"]
	if res, _ := la.rpc(t, reviewer, "SendMessage", message(full, true)); res.Error != nil {
		t.Errorf("idempotent resolve with the full record: %+v", res.Error)
	}
}

func TestServeRefusalsAppendNothing(t *testing.T) {
	la := startLedgerAgent(t)
	if res, _ := la.rpc(t, reviewer, "SendMessage", message(shipRecord(), true)); res.Error != nil {
		t.Fatal(res.Error)
	}
	before := la.lines(t)
	resolve := func(r map[string]any) map[string]any {
		return map[string]any{"id": "desk/ship-91", "resolve": r}
	}
	other := shipRecord()
	other["promise"] = "something else"
	wrongKey := shipRecord()
	wrongKey["deadline"] = "tomorrow"
	wrongType := shipRecord()
	wrongType["until"] = 17
	cases := []struct {
		name, seat string
		params     any
		code       int
		pinki      string
		says       string
	}{
		{"no credential", "", message(shipRecord(), true), -31401, "unauthenticated", "no bearer token"},
		{"no record", reviewer, message(nil, true), -32602, "invalid", "carries no promise record"},
		{"extension not listed", reviewer, message(shipRecord(), false), -32602, "invalid", "does not list the extension"},
		{"unknown key", reviewer, message(wrongKey, true), -32602, "invalid", `unknown key "deadline"`},
		{"wrong type", reviewer, message(wrongType, true), -32602, "invalid", "until must be a JSON string"},
		{"record not an object", reviewer, map[string]any{"message": map[string]any{"messageId": "m", "role": "ROLE_USER",
			"parts": []any{map[string]any{"text": "x"}}, "extensions": []string{a2a.ExtensionURI},
			"metadata": map[string]any{a2a.MetadataKey: "desk/ship-91"}}}, -32602, "invalid", "must be a JSON object"},
		{"id taken by other content", reviewer, message(other, true), -32602, "invalid", "is taken by a different promise"},
		{"promise made for someone else", author, message(map[string]any{"promise": "x", "by": reviewer, "to": author,
			"until": "2026-09-02T17:00:00Z"}, true), -31403, "forbidden", "a promise is made by its debtor"},
		{"past deadline", reviewer, message(map[string]any{"promise": "x", "until": "2026-08-01T00:00:00Z", "to": author}, true),
			-32602, "invalid", "until"},
		{"satisfied without evidence", reviewer, message(resolve(map[string]any{"as": "satisfied"}), true), -32602, "invalid", "evidence"},
		{"cancelled without reason", reviewer, message(resolve(map[string]any{"as": "cancelled"}), true), -32602, "invalid", "reason"},
		{"satisfied by the creditor", author, message(resolve(map[string]any{"as": "satisfied", "evidence": []string{"x"}}), true),
			-31403, "forbidden", "debtor's act"},
		{"unknown outcome", reviewer, message(resolve(map[string]any{"as": "done"}), true), -32602, "invalid", "satisfied, failed, cancelled or released"},
		{"resolve of an unknown id", reviewer, message(map[string]any{"id": "desk/nope", "resolve": map[string]any{"as": "failed", "reason": "x"}}, true),
			-32001, "not_found", `nothing in the ledger declares "desk/nope"`},
		{"resolve naming another promise", reviewer, message(map[string]any{"id": "desk/ship-91", "by": author,
			"resolve": map[string]any{"as": "failed", "reason": "x"}}, true), -32602, "invalid", "the record's by"},
		{"resolve without id", reviewer, message(map[string]any{"resolve": map[string]any{"as": "failed", "reason": "x"}}, true), -32602, "invalid", "give its id"},
		{"GetTask unknown", reviewer, map[string]any{"id": "desk/nope"}, -32001, "not_found", "nothing in the ledger declares"},
		{"GetTask of another seat's promise", "desk/stranger", map[string]any{"id": "desk/ship-91"}, -32001, "not_found", "nothing in the ledger declares"},
	}
	for _, c := range cases {
		method := "SendMessage"
		if strings.HasPrefix(c.name, "GetTask") {
			method = "GetTask"
		}
		res, _ := la.rpc(t, c.seat, method, c.params)
		if res.Error == nil {
			t.Errorf("%s: succeeded, want error %d", c.name, c.code)
			continue
		}
		if res.Error.Code != c.code || res.pinkiCode() != c.pinki || !strings.Contains(res.Error.Message, c.says) {
			t.Errorf("%s: got %d %q (pinki %q), want %d %s containing %q", c.name, res.Error.Code, res.Error.Message, res.pinkiCode(), c.code, c.pinki, c.says)
		}
		if after := la.lines(t); len(after) != len(before) {
			t.Fatalf("%s: appended %q", c.name, after[len(before):])
		}
	}

	// A second, different resolution is a conflict: the first resolve wins.
	if res, _ := la.rpc(t, reviewer, "SendMessage", message(resolve(map[string]any{"as": "failed", "reason": "no time"}), true)); res.Error != nil {
		t.Fatal(res.Error)
	}
	before = la.lines(t)
	res, _ := la.rpc(t, reviewer, "SendMessage", message(resolve(map[string]any{"as": "cancelled", "reason": "changed my mind"}), true))
	if res.Error == nil || res.Error.Code != -32004 || res.pinkiCode() != "conflict" {
		t.Errorf("second resolve: %+v", res.Error)
	}
	if len(la.lines(t)) != len(before) {
		t.Errorf("a conflict appended")
	}

	for _, m := range []string{"ListTasks", "CancelTask", "GetTaskPushNotificationConfig"} {
		res, _ := la.rpc(t, reviewer, m, map[string]any{"id": "desk/ship-91"})
		if res.Error == nil {
			t.Errorf("%s: answered %s", m, res.Result)
		}
	}
	// Streaming answers over SSE, with the error as its one event.
	resp, err := http.Post(la.srv.URL+"/a2a", "application/json", strings.NewReader(
		`{"jsonrpc":"2.0","id":2,"method":"SendStreamingMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}]}}}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"code":-32004`) {
		t.Errorf("SendStreamingMessage: %s", body)
	}
}

// TestServeWithA2AGoClient drives the server with a2a-go's own client,
// from the card on.
func TestServeWithA2AGoClient(t *testing.T) {
	la := startLedgerAgent(t)
	ctx := context.Background()
	card, err := (&a2a.Agents{}).FetchCard(ctx, la.srv.URL+"/.well-known/agent-card.json")
	if err != nil {
		t.Fatal(err)
	}
	client, err := a2aclient.NewFromCard(ctx, card)
	if err != nil {
		t.Fatal(err)
	}
	ctx = a2aclient.AttachServiceParams(ctx, a2aclient.ServiceParams{"Authorization": {"Bearer " + reviewer}})
	msg := sdk.NewMessage(sdk.MessageRoleUser, sdk.NewTextPart("I promise"))
	msg.Extensions = []string{a2a.ExtensionURI}
	msg.SetMeta(a2a.MetadataKey, map[string]any{"promise": "ship it", "to": author, "until": "2026-09-03T00:00:00Z"})
	res, err := client.SendMessage(ctx, &sdk.SendMessageRequest{Message: msg})
	if err != nil {
		t.Fatal(err)
	}
	task := res.(*sdk.Task)
	if task.Status.State != sdk.TaskStateWorking || !strings.HasPrefix(string(task.ID), "pnk_") {
		t.Fatalf("declared: %+v", task)
	}
	got, err := client.GetTask(ctx, &sdk.GetTaskRequest{ID: task.ID})
	if err != nil || got.ID != task.ID {
		t.Fatalf("GetTask: %v %v", got, err)
	}
	_, err = client.GetTask(ctx, &sdk.GetTaskRequest{ID: "desk/none"})
	if !errors.Is(err, sdk.ErrTaskNotFound) {
		t.Errorf("GetTask unknown: %v", err)
	}
}
