package a2a_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/a2a"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/jsonl"
	"github.com/pinki-ledger/pinki/ledger"
)

// testNow is the fixed clock of every ledger in these tests.
var testNow = time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)

// fileLedger is a file ledger in a temporary folder with a fixed clock.
type fileLedger struct {
	path string
	svc  *ledger.Service
}

func newFileLedger(t *testing.T) *fileLedger {
	t.Helper()
	path := filepath.Join(t.TempDir(), ".pinki", "ledger.jsonl")
	st, err := jsonl.Open(path, jsonl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	svc := ledger.New(st, ledger.Options{Clock: func() time.Time { return testNow }})
	t.Cleanup(func() { svc.Close(); st.Close() })
	return &fileLedger{path: path, svc: svc}
}

// lines returns the ledger's lines.
func (l *fileLedger) lines(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(l.path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// promise declares a promise by debtor naming task, as the debtor.
func (l *fileLedger) promise(t *testing.T, id, debtor, task string) {
	t.Helper()
	_, err := l.svc.Create(context.Background(), pinki.Identity{Seat: debtor, Role: pinki.RoleSeat}, ledger.CreateInput{
		Kind: fold.KindPromise, ID: id, Text: "hand back a reviewed schema", By: debtor,
		To: "https://example.org/agents/author", Until: "2026-09-02T17:00:00Z", Task: task})
	if err != nil {
		t.Fatalf("declare %s: %v", id, err)
	}
}

func (l *fileLedger) get(t *testing.T, id string) ledger.Detail {
	t.Helper()
	d, err := l.svc.Get(context.Background(), pinki.Identity{}, ledger.Query{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

const watcherSeat = "https://watcher.example.org"

var watcher = pinki.Identity{Seat: watcherSeat, Role: pinki.RoleVerifier}

func TestWatch(t *testing.T) {
	ag := startTaskAgent(t)
	l := newFileLedger(t)
	seat := ag.URL() // an https:// seat is its own agent's base
	tasks := map[string]string{}
	for _, outcome := range []string{"deliver", "empty", "fail", "reject", "cancel", "work"} {
		tasks[outcome] = ag.start(t, outcome)
		l.promise(t, "p/"+outcome, seat, tasks[outcome])
	}
	l.promise(t, "p/vanished", seat, "no-such-task")
	l.promise(t, "p/no-task", seat, "") // names no task: not watched
	dir, err := a2a.OpenDirectory(filepath.Join(t.TempDir(), "seats.json"))
	if err != nil {
		t.Fatal(err)
	}
	agents := &a2a.Agents{Directory: dir, HTTP: ag.srv.Client()}

	rep, err := a2a.Watch(context.Background(), l.svc, watcher, agents)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]a2a.Action{
		"p/deliver": a2a.ActionResolved, "p/empty": a2a.ActionAssessed, "p/fail": a2a.ActionAssessed,
		"p/reject": a2a.ActionAssessed, "p/cancel": a2a.ActionAssessed, "p/work": a2a.ActionPending,
		"p/vanished": a2a.ActionAssessed,
	}
	if len(rep.Results) != len(want) {
		t.Fatalf("checked %d obligations, want %d: %+v", len(rep.Results), len(want), rep.Results)
	}
	for _, r := range rep.Results {
		if r.Action != want[r.ID] {
			t.Errorf("%s: action %s, want %s (error %v)", r.ID, r.Action, want[r.ID], r.Error)
		}
	}
	if rep.Resolved != 1 || rep.Assessed != 5 || rep.Pending != 1 || rep.Errors != 0 {
		t.Errorf("counts: %+v", rep)
	}
	if n := ag.cards(); n != 1 {
		t.Errorf("the card was fetched %d times in one pass, want 1", n)
	}
	for i, h := range ag.seenExtensions() {
		if h != a2a.ExtensionURI {
			t.Errorf("GetTask %d sent A2A-Extensions %q, want %q", i, h, a2a.ExtensionURI)
		}
	}

	// The verified delivery: satisfied, by the watcher, one reference per
	// artifact.
	d := l.get(t, "p/deliver")
	if d.State != fold.Satisfied || d.Resolution == nil || d.Resolution.By != watcherSeat {
		t.Fatalf("p/deliver: %s, resolution %+v", d.State, d.Resolution)
	}
	if len(d.Resolution.Evidence) != 2 || d.Resolution.Evidence[1] != "a2a:"+seat+"/rpc/tasks/"+tasks["deliver"]+"/artifacts/review-91" {
		t.Errorf("p/deliver evidence: %q", d.Resolution.Evidence)
	}
	// The rest: assessed by the watcher, never resolved.
	for id, word := range map[string]string{
		"p/empty": a2a.AssessNoArtifact, "p/fail": a2a.AssessFailed, "p/reject": a2a.AssessRejected,
		"p/cancel": a2a.AssessCanceled, "p/vanished": a2a.AssessUnknown,
	} {
		d := l.get(t, id)
		if d.Resolution != nil || !d.State.Open() {
			t.Errorf("%s: resolved (%s): a watcher never resolves what it did not verify", id, d.State)
		}
		if len(d.Assessments) != 1 || d.Assessments[0].State != word || d.Assessments[0].Observer != watcherSeat {
			t.Errorf("%s: assessments %+v, want one %q by the watcher", id, d.Assessments, word)
		}
	}
	if note := l.get(t, "p/fail").Assessments[0].Note; note != "task "+tasks["fail"]+" on "+seat+"/rpc is TASK_STATE_FAILED: the schema did not validate" {
		t.Errorf("p/fail note: %q", note)
	}
	if d := l.get(t, "p/work"); len(d.Assessments) != 0 || d.Resolution != nil {
		t.Errorf("p/work: a task under way records nothing: %+v", d)
	}

	// Re-running changes nothing that was already recorded.
	before := l.lines(t)
	again, err := a2a.Watch(context.Background(), l.svc, watcher, agents)
	if err != nil {
		t.Fatal(err)
	}
	if after := l.lines(t); len(after) != len(before) {
		t.Errorf("a second pass appended %d lines: %q", len(after)-len(before), after[len(before):])
	}
	if again.Unchanged != 5 || again.Pending != 1 || again.Checked != 6 {
		t.Errorf("second pass: %+v", again)
	}
	// A fresh watcher (no cached card) is just as idempotent.
	third, err := a2a.Watch(context.Background(), l.svc, watcher, &a2a.Agents{HTTP: ag.srv.Client()})
	if err != nil || third.Unchanged != 5 {
		t.Errorf("third pass: %+v, %v", third, err)
	}
	if after := l.lines(t); len(after) != len(before) {
		t.Errorf("a third pass appended lines")
	}
}

func TestWatchUnreachableCards(t *testing.T) {
	l := newFileLedger(t)
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/garbled/agent-card.json":
			w.Write([]byte("<html>not a card</html>"))
		case "/huge/agent-card.json":
			w.Write(bytes.Repeat([]byte(" "), a2a.DefaultMaxCard+1))
		case "/v03/agent-card.json":
			w.Write([]byte(`{"name":"old","url":"http://old.example/rpc","preferredTransport":"JSONRPC"}`))
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
	for seat, card := range map[string]string{
		"desk/garbled": bad.URL + "/garbled/agent-card.json",
		"desk/huge":    bad.URL + "/huge/agent-card.json",
		"desk/v03":     bad.URL + "/v03/agent-card.json",
		"desk/missing": bad.URL + "/missing",
		"desk/down":    closedURL,
	} {
		if err := dir.Set(seat, card); err != nil {
			t.Fatal(err)
		}
		l.promise(t, "p/"+strings.TrimPrefix(seat, "desk/"), seat, "t-1")
		l.promise(t, "p/"+strings.TrimPrefix(seat, "desk/")+"-2", seat, "t-2")
	}
	l.promise(t, "p/nomap", "desk/nomap", "t-1")
	before := l.lines(t)
	rep, err := a2a.Watch(context.Background(), l.svc, watcher, &a2a.Agents{Directory: dir})
	if err != nil {
		t.Fatalf("an unreachable or malformed card is never fatal to the run: %v", err)
	}
	if rep.Errors != 11 || rep.Checked != 11 {
		t.Fatalf("want 11 errors, got %+v", rep)
	}
	want := map[string]string{
		"p/garbled": "is malformed", "p/huge": "over the 262144-byte limit",
		"p/v03": "declares no supportedInterfaces", "p/missing": "answered 404",
		"p/down": "is unreachable", "p/nomap": `no agent is known for seat "desk/nomap"`,
	}
	for _, r := range rep.Results {
		frag := want[strings.TrimSuffix(r.ID, "-2")]
		if r.Action != a2a.ActionError || r.Error == nil || !strings.Contains(r.Error.Message, frag) {
			t.Errorf("%s: %s %v, want an error containing %q", r.ID, r.Action, r.Error, frag)
		}
	}
	if len(l.lines(t)) != len(before) {
		t.Errorf("a failed check appended to the ledger")
	}
}

func TestWatchNeedsASeat(t *testing.T) {
	l := newFileLedger(t)
	_, err := a2a.Watch(context.Background(), l.svc, pinki.Identity{}, &a2a.Agents{})
	if pinki.ErrorCode(err) != pinki.CodeInvalid {
		t.Errorf("watch without a seat: %v", err)
	}
}

func TestFollowStopsWithContext(t *testing.T) {
	l := newFileLedger(t)
	ctx, cancel := context.WithCancel(context.Background())
	passes := 0
	err := a2a.Follow(ctx, l.svc, watcher, &a2a.Agents{}, time.Second, func(r a2a.WatchReport, err error) {
		passes++
		cancel()
	})
	if err != nil || passes != 1 {
		t.Errorf("follow: %v after %d passes", err, passes)
	}
	if err := a2a.Follow(context.Background(), l.svc, watcher, &a2a.Agents{}, time.Millisecond, nil); pinki.ErrorCode(err) != pinki.CodeInvalid {
		t.Errorf("follow with a 1ms interval: %v", err)
	}
}
