package a2a_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/a2a"
	"github.com/pinki-ledger/pinki/a2a/a2atest"
)

func TestCheckTask(t *testing.T) {
	ag := a2atest.New(t)
	agents := &a2a.Agents{HTTP: ag.HTTPClient()}
	seat := ag.URL() // an https:// seat is its own agent's base
	ep := ag.Endpoint()
	cases := []struct {
		outcome string
		verdict a2a.Verdict
		state   string
		note    string
	}{
		{"deliver", a2a.Delivered, "", "TASK_STATE_COMPLETED on " + ep + " with 2 artifact(s)"},
		{"empty", a2a.Assessed, a2a.AssessNoArtifact, "TASK_STATE_COMPLETED on " + ep + " with no artifact: done"},
		{"fail", a2a.Assessed, a2a.AssessFailed, "TASK_STATE_FAILED on " + ep + ": the schema did not validate"},
		{"reject", a2a.Assessed, a2a.AssessRejected, "TASK_STATE_REJECTED on " + ep + ": not my desk"},
		{"cancel", a2a.Assessed, a2a.AssessCanceled, "TASK_STATE_CANCELED on " + ep},
		{"wait", a2a.Pending, "", "TASK_STATE_INPUT_REQUIRED on " + ep + ": which schema?"},
	}
	for _, c := range cases {
		task := ag.Start(t, c.outcome)
		f, err := agents.CheckTask(context.Background(), seat, task)
		if err != nil {
			t.Fatalf("%s: %v", c.outcome, err)
		}
		if f.Verdict != c.verdict || f.State != c.state || f.Note != c.note || f.Task != task {
			t.Errorf("%s: got %+v, want %s %q %q", c.outcome, f, c.verdict, c.state, c.note)
		}
		if c.outcome == "deliver" && (len(f.Evidence) != 2 || f.Evidence[1] != "a2a:"+ep+"/tasks/"+task+"/artifacts/review-91") {
			t.Errorf("evidence: %q", f.Evidence)
		}
		for _, h := range ag.SeenExtensions() {
			if h != a2a.ExtensionURI {
				t.Errorf("%s: GetTask sent A2A-Extensions %q, want %q", c.outcome, h, a2a.ExtensionURI)
			}
		}
	}
	f, err := agents.CheckTask(context.Background(), seat, "no-such-task")
	if err != nil || f.Verdict != a2a.Assessed || f.State != a2a.AssessUnknown || f.Note != "unknown to the agent at "+ep {
		t.Errorf("a vanished task: %+v %v", f, err)
	}
	if n := ag.CardFetches(); n != 1 {
		t.Errorf("the card was fetched %d times, want once", n)
	}
}

func TestCheckTaskUnreachableCards(t *testing.T) {
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/garbled/agent-card.json":
			w.Write([]byte("<html>not a card</html>"))
		case "/huge/agent-card.json":
			w.Write(bytes.Repeat([]byte(" "), a2a.DefaultMaxCard+1))
		case "/v03/agent-card.json":
			w.Write([]byte(`{"name":"old","url":"http://old.example/rpc","preferredTransport":"JSONRPC"}`))
		case "/grpc/agent-card.json":
			w.Write([]byte(`{"name":"g","supportedInterfaces":[{"url":"http://g.example","protocolBinding":"GRPC","protocolVersion":"1.0"}]}`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer bad.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()

	dir, err := a2a.OpenDirectory(filepath.Join(t.TempDir(), "seats.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"desk/garbled": "is malformed", "desk/huge": "over the 262144-byte limit",
		"desk/v03": "declares no supportedInterfaces", "desk/missing": "answered 404 Not Found",
		"desk/down": "is unreachable", "desk/grpc": "offers no interface pinki can call",
		"desk/nomap": `no agent is known for seat "desk/nomap"`,
	}
	for seat, card := range map[string]string{
		"desk/garbled": bad.URL + "/garbled/agent-card.json", "desk/huge": bad.URL + "/huge/agent-card.json",
		"desk/v03": bad.URL + "/v03/agent-card.json", "desk/missing": bad.URL + "/missing",
		"desk/down": closedURL, "desk/grpc": bad.URL + "/grpc/agent-card.json",
	} {
		if err := dir.Set(seat, card); err != nil {
			t.Fatal(err)
		}
	}
	agents := &a2a.Agents{Directory: dir}
	for seat, frag := range want {
		_, err := agents.CheckTask(context.Background(), seat, "t-1")
		if err == nil || !strings.Contains(err.Error(), frag) {
			t.Errorf("%s: %v, want an error containing %q", seat, err, frag)
		}
		if c := pinki.ErrorCode(err); c == pinki.CodeInternal || c == "" {
			t.Errorf("%s: code %q", seat, c)
		}
	}
}
