package verify_test

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/a2a"
	"github.com/pinki-ledger/pinki/a2a/a2atest"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
	"github.com/pinki-ledger/pinki/verify"
)

// taskPromiseBy declares a promise by debtor naming an A2A task, as the
// debtor.
func (e *env) taskPromiseBy(id, debtor, task string) {
	e.t.Helper()
	_, err := e.svc.Create(e.ctx, pinki.Identity{Seat: debtor, Role: pinki.RoleSeat}, ledger.CreateInput{
		Kind: fold.KindPromise, ID: id, Text: "hand back a reviewed schema", By: debtor,
		To: "https://example.org/agents/author", Until: "2026-09-02T17:00:00Z", Task: task})
	if err != nil {
		e.t.Fatalf("declare %s: %v", id, err)
	}
}

// TestA2ATaskWatch is `pinki a2a watch` against a live A2A agent built with
// a2a-go: a verified delivery is resolved satisfied with the artifact
// references, every other end of a task is the watcher's assessment, and a
// second pass changes nothing.
func TestA2ATaskWatch(t *testing.T) {
	ag := a2atest.New(t)
	seat := ag.URL() // an https:// seat is its own agent's base
	e := newEnv(t, verify.A2ATask{Agents: &a2a.Agents{HTTP: ag.HTTPClient()}})
	tasks := map[string]string{}
	for _, outcome := range []string{"deliver", "empty", "fail", "reject", "cancel", "wait"} {
		tasks[outcome] = ag.Start(t, outcome)
		e.taskPromiseBy("p/"+outcome, seat, tasks[outcome])
	}
	e.taskPromiseBy("p/vanished", seat, "no-such-task")
	e.taskPromiseBy("p/no-task", seat, "")

	rep := e.run()
	if rep.Obligations != 7 || len(rep.Results) != 7 {
		t.Fatalf("looked at %d obligations (%d results), want 7", rep.Obligations, len(rep.Results))
	}
	want := map[string]verify.Action{
		"p/deliver": verify.ActResolved, "p/empty": verify.ActAssessed, "p/fail": verify.ActAssessed,
		"p/reject": verify.ActAssessed, "p/cancel": verify.ActAssessed, "p/wait": verify.ActNone,
		"p/vanished": verify.ActAssessed,
	}
	for _, r := range rep.Results {
		if r.Action != want[r.ID] || r.Kind != verify.A2ATaskKind {
			t.Errorf("%s: %s", r.ID, r)
		}
	}
	for i, h := range ag.SeenExtensions() {
		if h != a2a.ExtensionURI {
			t.Errorf("call %d sent A2A-Extensions %q, want %q", i, h, a2a.ExtensionURI)
		}
	}

	d := e.wantSatisfied("p/deliver", false)
	ep := ag.Endpoint()
	if len(d.Resolution.Evidence) != 2 || d.Resolution.Evidence[1] != "a2a:"+ep+"/tasks/"+tasks["deliver"]+"/artifacts/review-91" {
		t.Errorf("evidence: %q", d.Resolution.Evidence)
	}
	for id, word := range map[string]string{
		"p/empty": a2a.AssessNoArtifact, "p/fail": a2a.AssessFailed, "p/reject": a2a.AssessRejected,
		"p/cancel": a2a.AssessCanceled, "p/vanished": a2a.AssessUnknown,
	} {
		e.wantOpen(id) // never a resolution: that stays the debtor's act
		d := e.get(id)
		if len(d.Assessments) != 1 || d.Assessments[0].State != word || d.Assessments[0].Observer != verifierSeat.Seat {
			t.Errorf("%s: assessments %+v, want one %q by the watcher", id, d.Assessments, word)
		}
	}
	if note := e.get("p/fail").Assessments[0].Note; note != "a2a-task:"+tasks["fail"]+": TASK_STATE_FAILED on "+ep+": the schema did not validate" {
		t.Errorf("p/fail note: %q", note)
	}
	if d := e.get("p/wait"); len(d.Assessments) != 0 || d.Resolution != nil {
		t.Errorf("p/wait: a task under way records nothing: %+v", d)
	}

	// Re-running changes nothing that was already recorded, with the card
	// cached or fetched anew.
	lines := e.lines()
	again := e.run()
	for _, r := range again.Results {
		if r.Action != verify.ActOnRecord && r.Action != verify.ActNone {
			t.Errorf("second pass: %s", r)
		}
	}
	fresh, err := verify.New(verify.Config{API: e.svc, As: verifierSeat, StatePath: e.state, Clock: e.clk.Now,
		Adapters: []verify.Adapter{verify.A2ATask{Agents: &a2a.Agents{HTTP: ag.HTTPClient()}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fresh.RunOnce(e.ctx); err != nil {
		t.Fatal(err)
	}
	if e.lines() != lines {
		t.Errorf("a re-run appended %d lines", e.lines()-lines)
	}
}

// TestA2ATaskUnreachable: an agent that cannot be reached or whose card is
// malformed is reported per obligation, never fatal, and appends nothing.
func TestA2ATaskUnreachable(t *testing.T) {
	garbled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("<html>not a card</html>"))
	}))
	defer garbled.Close()
	dir, err := a2a.OpenDirectory(filepath.Join(t.TempDir(), "seats.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := dir.Set("desk/garbled", garbled.URL); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, verify.A2ATask{Agents: &a2a.Agents{Directory: dir}})
	e.taskPromiseBy("p/garbled", "desk/garbled", "t-1")
	e.taskPromiseBy("p/nomap", "desk/nomap", "t-2")
	lines := e.lines()
	rep := e.run()
	if len(rep.Results) != 2 {
		t.Fatalf("results: %+v", rep.Results)
	}
	for _, r := range rep.Results {
		if r.Action != verify.ActError || r.Error == nil {
			t.Errorf("%s: want an error", r)
		}
	}
	if !strings.Contains(rep.Results[0].Error.Message, "is malformed") || !strings.Contains(rep.Results[1].Error.Message, "no agent is known") {
		t.Errorf("errors: %v / %v", rep.Results[0].Error, rep.Results[1].Error)
	}
	if e.lines() != lines {
		t.Errorf("a failed observation appended")
	}
}
