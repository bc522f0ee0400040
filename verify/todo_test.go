package verify_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
	"github.com/pinki-ledger/pinki/verify"
)

func sha(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func target(t *testing.T, raw json.RawMessage) verify.TodoTarget {
	t.Helper()
	var tt verify.TodoTarget
	if err := json.Unmarshal(raw, &tt); err != nil {
		t.Fatal(err)
	}
	return tt
}

func TestBindTodo(t *testing.T) {
	e := newEnv(t)
	list := e.writeTodos("todos.json",
		item{Content: "Organize reading notes", Status: "pending", ActiveForm: "Organizing reading notes"},
		item{Content: "Water the plants", Status: "in_progress"},
		item{Content: "File taxes", Status: "completed"},
		item{Content: "Call mum", Status: "pending"},
		item{Content: "Call mum", Status: "in_progress"},
		item{Content: "Pay rent", Status: "completed"},
		item{Content: "Pay rent", Status: "pending"},
	)
	raw, err := verify.BindTodo(list, "Water the plants")
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(list)
	got := target(t, raw)
	want := verify.TodoTarget{Kind: "todo", File: list, Content: "Water the plants", Index: 1,
		Status: "in_progress", Snapshot: sha(data)}
	if got != want {
		t.Fatalf("target %+v, want %+v", got, want)
	}
	if !strings.HasPrefix(string(raw), `{"kind":"todo","file":`) {
		t.Errorf("target %s does not lead with kind and file", raw)
	}

	// A relative path is made absolute.
	wd, _ := os.Getwd()
	t.Cleanup(func() { os.Chdir(wd) })
	if err := os.Chdir(e.dir); err != nil {
		t.Fatal(err)
	}
	raw, err = verify.BindTodo("todos.json", "Organize reading notes")
	if err != nil {
		t.Fatal(err)
	}
	if got := target(t, raw); got.File != list || got.Status != "pending" || got.Index != 0 {
		t.Errorf("relative bind: %+v", got)
	}

	refusals := []struct {
		name, file, text, want string
	}{
		{"already completed at bind time", list, "File taxes", "already completed"},
		{"no such item", list, "Walk the dog", "no todo item"},
		{"not exact", list, "water the plants", "no todo item"},
		{"two unfinished items with the same text", list, "Call mum", "2 unfinished todo items"},
		{"a completed twin and no ids", list, "Pay rent", "gives them no ids"},
		{"empty text", list, "", "exact text"},
		{"no file", "", "Water the plants", "todo list file"},
		{"missing file", filepath.Join(e.dir, "nope.json"), "Water the plants", "does not exist"},
	}
	for _, c := range refusals {
		t.Run(c.name, func(t *testing.T) {
			_, err := verify.BindTodo(c.file, c.text)
			if pinki.ErrorCode(err) != pinki.CodeInvalid || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("BindTodo(%q) = %v, want an invalid error containing %q", c.text, err, c.want)
			}
		})
	}

	for name, body := range map[string]string{
		"not an array":         `{"todos":[]}`,
		"content not a string": `[{"content":1,"status":"pending"}]`,
		"null content":         `[{"content":null,"status":"pending"}]`,
		"no status":            `[{"content":"Water the plants"}]`,
		"item not an object":   `["Water the plants"]`,
		"id an object":         `[{"id":{},"content":"Water the plants","status":"pending"}]`,
		"truncated":            `[{"content":"Water the plants","status":"pend`,
	} {
		t.Run("malformed/"+name, func(t *testing.T) {
			e.writeRaw("bad.json", body)
			_, err := verify.BindTodo(filepath.Join(e.dir, "bad.json"), "Water the plants")
			if pinki.ErrorCode(err) != pinki.CodeInvalid || !strings.Contains(err.Error(), "malformed") {
				t.Fatalf("got %v, want a malformed-list refusal", err)
			}
		})
	}
}

func TestBindTodoIDs(t *testing.T) {
	e := newEnv(t)
	list := e.writeTodos("todos.json",
		item{ID: "1", Content: "Pay rent", Status: "completed"},
		item{ID: 2, Content: "Pay rent", Status: "pending"},
		item{ID: "3", Content: "Call mum", Status: "pending"},
		item{ID: "4", Content: "Call mum", Status: "pending"},
	)
	// With ids, a completed twin is told apart by its id.
	got := target(t, e.bind(list, "Pay rent"))
	if got.ID != "2" || got.Index != 1 {
		t.Fatalf("target %+v, want id 2 at index 1", got)
	}
	// Two unfinished twins are still refused: the text names two items.
	if _, err := verify.BindTodo(list, "Call mum"); pinki.ErrorCode(err) != pinki.CodeInvalid {
		t.Fatalf("got %v, want a refusal", err)
	}
}

func TestPendingToCompleted(t *testing.T) {
	e := newEnv(t)
	e.initState()
	list := e.writeTodos("todos.json", item{Content: "Organize reading notes", Status: "pending"},
		item{Content: "Water the plants", Status: "pending"})
	before, _ := os.ReadFile(list)
	e.promise("p1", e.bind(list, "Organize reading notes"))
	e.clk.Add(time.Minute)
	list = e.writeTodos("todos.json", item{Content: "Organize reading notes", Status: "completed"},
		item{Content: "Water the plants", Status: "pending"})
	after, _ := os.ReadFile(list)

	// The binding's snapshot is the first observation: the state file
	// predates it, so the first pass sees the transition.
	r := e.only(e.run())
	wantAction(t, r, verify.ActResolved, verify.Delivered)
	if r.Verdict.Transition != "pending -> completed" {
		t.Errorf("transition %q", r.Verdict.Transition)
	}
	d := e.wantSatisfied("p1", false)
	want := []string{"todo:" + list + "#Organize reading notes", "todo:" + list + "@" + sha(before), "todo:" + list + "@" + sha(after)}
	if strings.Join(d.Resolution.Evidence, "\n") != strings.Join(want, "\n") {
		t.Errorf("evidence %q, want %q", d.Resolution.Evidence, want)
	}
	if !strings.Contains(string(d.Resolution.Meta), `"transition":"pending -> completed"`) {
		t.Errorf("meta %s lacks the transition", d.Resolution.Meta)
	}
}

func TestInProgressToCompleted(t *testing.T) {
	e := newEnv(t)
	list := e.writeTodos("todos.json", item{Content: "Water the plants", Status: "in_progress"})
	e.promise("p1", e.bind(list, "Water the plants"))
	// No state file yet: the first pass baselines.
	wantAction(t, e.only(e.run()), verify.ActNone, verify.Pending)
	e.clk.Add(time.Minute)
	e.writeTodos("todos.json", item{Content: "Water the plants", Status: "completed"})
	r := e.only(e.run())
	wantAction(t, r, verify.ActResolved, verify.Delivered)
	if r.Verdict.Transition != "in_progress -> completed" {
		t.Errorf("transition %q", r.Verdict.Transition)
	}
	e.wantSatisfied("p1", false)
}

func TestAnotherItemCompletedDoesNotCount(t *testing.T) {
	e := newEnv(t)
	e.initState()
	list := e.writeTodos("todos.json", item{Content: "Water the plants", Status: "pending"},
		item{Content: "Feed the cat", Status: "pending"})
	e.promise("p1", e.bind(list, "Water the plants"))
	e.writeTodos("todos.json", item{Content: "Water the plants", Status: "pending"},
		item{Content: "Feed the cat", Status: "completed"},
		item{Content: "Done", Status: "completed"})
	wantAction(t, e.only(e.run()), verify.ActNone, verify.Pending)
	e.wantOpen("p1")
}

func TestRemovedAndReaddedDoesNotCount(t *testing.T) {
	e := newEnv(t)
	e.initState()
	list := e.writeTodos("todos.json", item{Content: "Water the plants", Status: "pending"},
		item{Content: "Feed the cat", Status: "pending"})
	e.promise("p1", e.bind(list, "Water the plants"))
	wantAction(t, e.only(e.run()), verify.ActNone, verify.Pending)

	// Removed from a well-formed list: continuity is lost for ever.
	e.writeTodos("todos.json", item{Content: "Feed the cat", Status: "pending"})
	r := e.only(e.run())
	wantAction(t, r, verify.ActAssessed, verify.Broken)
	d := e.get("p1")
	if n := len(d.Assessments); n != 1 || d.Assessments[0].State != verify.Unverifiable || d.Assessments[0].Observer != verifierSeat.Seat {
		t.Fatalf("assessments %+v, want one unverifiable by the verifier", d.Assessments)
	}

	// Re-added, then completed: never counts.
	e.writeTodos("todos.json", item{Content: "Feed the cat", Status: "pending"}, item{Content: "Water the plants", Status: "pending"})
	wantAction(t, e.only(e.run()), verify.ActOnRecord, verify.Broken)
	e.writeTodos("todos.json", item{Content: "Feed the cat", Status: "pending"}, item{Content: "Water the plants", Status: "completed"})
	wantAction(t, e.only(e.run()), verify.ActOnRecord, verify.Broken)
	e.wantOpen("p1")

	// Losing the state file does not revive it: the break is on the ledger.
	if err := os.Remove(e.state); err != nil {
		t.Fatal(err)
	}
	e.writeTodos("todos.json", item{Content: "Water the plants", Status: "pending"})
	e.run()
	e.writeTodos("todos.json", item{Content: "Water the plants", Status: "completed"})
	wantAction(t, e.only(e.run()), verify.ActOnRecord, verify.Broken)
	e.wantOpen("p1")
	if n := len(e.get("p1").Assessments); n != 1 {
		t.Fatalf("%d assessments, want the one", n)
	}
}

func TestDuplicatedBreaks(t *testing.T) {
	e, _ := watched(t, "Water the plants", fold.KindPromise)
	e.writeTodos("todos.json", item{Content: "Water the plants", Status: "completed"},
		item{Content: "Water the plants", Status: "pending"})
	r := e.only(e.run())
	wantAction(t, r, verify.ActAssessed, verify.Broken)
	if !strings.Contains(r.Verdict.Note, "appears 2 times") {
		t.Errorf("note %q", r.Verdict.Note)
	}
	e.wantOpen("p1")
}

func TestDifferentFileDoesNotCount(t *testing.T) {
	e, _ := watched(t, "Water the plants", fold.KindPromise)
	// The same item, completed, in another list (another session).
	e.writeTodos("other.json", item{Content: "Water the plants", Status: "completed"})
	if err := os.MkdirAll(filepath.Join(e.dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	e.writeTodos(filepath.Join("sub", "todos.json"), item{Content: "Water the plants", Status: "completed"})
	wantAction(t, e.only(e.run()), verify.ActNone, verify.Pending)
	e.wantOpen("p1")
}

func TestIDContinuity(t *testing.T) {
	t.Run("reordered and renamed neighbours, completed by id", func(t *testing.T) {
		e := newEnv(t)
		e.initState()
		list := e.writeTodos("todos.json", item{ID: "a", Content: "Pay rent", Status: "completed"},
			item{ID: "b", Content: "Pay rent", Status: "pending"}, item{ID: "c", Content: "Call mum", Status: "pending"})
		e.promise("p1", e.bind(list, "Pay rent"))
		wantAction(t, e.only(e.run()), verify.ActNone, verify.Pending)
		e.writeTodos("todos.json", item{ID: "c", Content: "Call mum!", Status: "in_progress"},
			item{ID: "b", Content: "Pay rent", Status: "completed"}, item{ID: "a", Content: "Pay rent", Status: "completed"})
		wantAction(t, e.only(e.run()), verify.ActResolved, verify.Delivered)
		e.wantSatisfied("p1", false)
	})
	t.Run("the completed twin does not count", func(t *testing.T) {
		e := newEnv(t)
		e.initState()
		list := e.writeTodos("todos.json", item{ID: "a", Content: "Pay rent", Status: "completed"},
			item{ID: "b", Content: "Pay rent", Status: "pending"})
		e.promise("p1", e.bind(list, "Pay rent"))
		e.writeTodos("todos.json", item{ID: "a", Content: "Pay rent", Status: "completed"},
			item{ID: "b", Content: "Pay rent", Status: "pending"}, item{ID: "z", Content: "Pay rent", Status: "completed"})
		wantAction(t, e.only(e.run()), verify.ActNone, verify.Pending)
		e.wantOpen("p1")
	})
	t.Run("re-added under a new id breaks", func(t *testing.T) {
		e := newEnv(t)
		e.initState()
		list := e.writeTodos("todos.json", item{ID: 7, Content: "Pay rent", Status: "pending"})
		e.promise("p1", e.bind(list, "Pay rent"))
		// Removed and re-added between two passes: the text alone could not
		// tell, the id does.
		e.writeTodos("todos.json", item{ID: 8, Content: "Pay rent", Status: "completed"})
		wantAction(t, e.only(e.run()), verify.ActAssessed, verify.Broken)
		e.wantOpen("p1")
	})
	t.Run("the id rewritten to other text breaks", func(t *testing.T) {
		e := newEnv(t)
		e.initState()
		list := e.writeTodos("todos.json", item{ID: "x", Content: "Pay rent", Status: "pending"})
		e.promise("p1", e.bind(list, "Pay rent"))
		e.writeTodos("todos.json", item{ID: "x", Content: "Pay half the rent", Status: "completed"})
		r := e.only(e.run())
		wantAction(t, r, verify.ActAssessed, verify.Broken)
		if !strings.Contains(r.Verdict.Note, "now reads") {
			t.Errorf("note %q", r.Verdict.Note)
		}
	})
}

func TestFileTemporarilyMalformed(t *testing.T) {
	e, list := watched(t, "Water the plants", fold.KindPromise)
	wantAction(t, e.only(e.run()), verify.ActNone, verify.Pending)

	for _, body := range []string{"", "[{\"content\":\"Water the pl", "not json"} {
		e.writeRaw("todos.json", body)
		r := e.only(e.run())
		if r.Action != verify.ActError || pinki.ErrorCode(r.Error) != pinki.CodeInvalid || !strings.Contains(r.Error.Message, "malformed") {
			t.Fatalf("body %q: result %s, want a reported malformed file", body, r)
		}
	}
	if err := os.Remove(list); err != nil {
		t.Fatal(err)
	}
	r := e.only(e.run())
	if r.Action != verify.ActError || !strings.Contains(r.Error.Message, "does not exist") {
		t.Fatalf("result %s, want a reported missing file", r)
	}
	if n := len(e.get("p1").Assessments); n != 0 {
		t.Fatalf("%d assessments: a transient read error is not a removal", n)
	}

	// Continuity survived: the completion counts.
	e.writeTodos("todos.json", item{Content: "Water the plants", Status: "completed"})
	wantAction(t, e.only(e.run()), verify.ActResolved, verify.Delivered)
	e.wantSatisfied("p1", false)
}

func TestStateFileDeleted(t *testing.T) {
	e, _ := watched(t, "Water the plants", fold.KindPromise)
	wantAction(t, e.only(e.run()), verify.ActNone, verify.Pending)

	if err := os.Remove(e.state); err != nil {
		t.Fatal(err)
	}
	e.clk.Add(time.Minute)
	e.writeTodos("todos.json", item{Content: "Water the plants", Status: "completed"})
	// Re-baselined conservatively: a completion seen first does not count.
	r := e.only(e.run())
	wantAction(t, r, verify.ActNone, verify.Pending)
	if !strings.Contains(r.Verdict.Note, "not seen it unfinished") {
		t.Errorf("note %q", r.Verdict.Note)
	}
	wantAction(t, e.only(e.run()), verify.ActNone, verify.Pending)
	e.wantOpen("p1")

	// Seen unfinished again, then completed: that counts.
	e.writeTodos("todos.json", item{Content: "Water the plants", Status: "in_progress"})
	wantAction(t, e.only(e.run()), verify.ActNone, verify.Pending)
	e.writeTodos("todos.json", item{Content: "Water the plants", Status: "completed"})
	wantAction(t, e.only(e.run()), verify.ActResolved, verify.Delivered)
	e.wantSatisfied("p1", false)
}

func TestFirstPassOverAnOlderBindingIsConservative(t *testing.T) {
	e := newEnv(t)
	list := e.writeTodos("todos.json", item{Content: "Water the plants", Status: "pending"})
	e.promise("p1", e.bind(list, "Water the plants"))
	e.writeTodos("todos.json", item{Content: "Water the plants", Status: "completed"})
	e.clk.Add(time.Minute)
	// No state file predates the binding: the verifier did not watch.
	wantAction(t, e.only(e.run()), verify.ActNone, verify.Pending)
	e.wantOpen("p1")
}

func TestLateDeliveryOnOverdueAgreement(t *testing.T) {
	e, _ := watched(t, "Organize reading notes", fold.KindAgreement)
	e.acceptBoth("a1")
	wantAction(t, e.only(e.run()), verify.ActNone, verify.Pending)

	e.clk.Add(2 * time.Hour)
	if d := e.get("a1"); d.State != fold.Overdue {
		t.Fatalf("a1 is %s, want overdue", d.State)
	}
	e.writeTodos("todos.json", item{Content: "Organize reading notes", Status: "completed"})
	r := e.only(e.run())
	wantAction(t, r, verify.ActResolved, verify.Delivered)
	if !r.Late {
		t.Errorf("result %s not late", r)
	}
	e.wantSatisfied("a1", true)
}

func TestLateDeliveryOnExpiredProposal(t *testing.T) {
	e, _ := watched(t, "Organize reading notes", fold.KindAgreement)
	e.clk.Add(2 * time.Hour)
	if d := e.get("a1"); d.State != fold.Expired {
		t.Fatalf("a1 is %s, want expired", d.State)
	}
	e.writeTodos("todos.json", item{Content: "Organize reading notes", Status: "completed"})
	wantAction(t, e.only(e.run()), verify.ActResolved, verify.Delivered)
	e.wantSatisfied("a1", true)
}

func TestDeliveryWaitsForAcceptance(t *testing.T) {
	e, _ := watched(t, "Organize reading notes", fold.KindAgreement)
	e.writeTodos("todos.json", item{Content: "Organize reading notes", Status: "completed"})
	// Delivered while still proposed: the service refuses satisfied (not
	// owed yet); the delivery is kept.
	r := e.only(e.run())
	wantAction(t, r, verify.ActRefused, verify.Delivered)
	if pinki.ErrorCode(r.Error) != pinki.CodeInvalid || !strings.Contains(r.Error.Message, "not owed yet") {
		t.Fatalf("error %v", r.Error)
	}
	// Whatever the list does meanwhile, the delivery was seen.
	e.writeTodos("todos.json")
	wantAction(t, e.only(e.run()), verify.ActRefused, verify.Delivered)
	e.acceptBoth("a1")
	wantAction(t, e.only(e.run()), verify.ActResolved, verify.Delivered)
	e.wantSatisfied("a1", false)
}

func TestLapseExpirePastHorizonIsNotLooked(t *testing.T) {
	e := newEnv(t)
	e.initState()
	list := e.writeTodos("todos.json", item{Content: "Water the plants", Status: "pending"})
	_, err := e.svc.Create(e.ctx, pinki.Identity{}, ledger.CreateInput{Kind: fold.KindPromise, ID: "p1",
		Text: "water the plants", By: "agent", To: "user", Lapse: pinki.LapseExpire,
		Until: pinki.FormatTime(e.clk.Now().Add(time.Hour)), Target: e.bind(list, "Water the plants")})
	if err != nil {
		t.Fatal(err)
	}
	e.clk.Add(2 * time.Hour)
	e.writeTodos("todos.json", item{Content: "Water the plants", Status: "completed"})
	if rep := e.run(); len(rep.Results) != 0 {
		t.Fatalf("results %+v, want none: the obligation expired", rep.Results)
	}
	if d := e.get("p1"); d.State != fold.Expired {
		t.Fatalf("p1 is %s", d.State)
	}
}

func TestRunningTwiceAppendsNothing(t *testing.T) {
	e := newEnv(t)
	e.initState()
	list := e.writeTodos("todos.json", item{Content: "A", Status: "pending"}, item{Content: "B", Status: "pending"},
		item{Content: "C", Status: "pending"})
	e.promise("pa", e.bind(list, "A"))
	e.promise("pb", e.bind(list, "B"))
	e.promise("pc", e.bind(list, "C"))
	e.run()
	e.writeTodos("todos.json", item{Content: "A", Status: "completed"}, item{Content: "C", Status: "pending"})
	first := e.run()
	if first.Appended() != 2 {
		t.Fatalf("first pass appended %d, want a resolve and an assessment", first.Appended())
	}
	n := e.lines()
	second := e.run()
	if second.Appended() != 0 || e.lines() != n {
		t.Fatalf("second pass appended %d events (%d -> %d lines)", second.Appended(), n, e.lines())
	}
	e.wantSatisfied("pa", false)
	e.wantOpen("pb")
	e.wantOpen("pc")
	// The resolved obligation is forgotten by the state file.
	data, err := os.ReadFile(e.state)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), `"pa"`) || !strings.Contains(string(data), `"pc"`) {
		t.Errorf("state file:\n%s", data)
	}
}
