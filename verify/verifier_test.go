package verify_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
	"github.com/pinki-ledger/pinki/verify"
)

// taskAdapter stands in for the A2A task adapter: one more Adapter, taking
// its target from the record's task field, answering scripted verdicts.
type taskAdapter struct {
	verdict map[string]verify.Verdict
	err     map[string]error
	priors  []verify.Prior
}

func newTaskAdapter() *taskAdapter {
	return &taskAdapter{verdict: map[string]verify.Verdict{}, err: map[string]error{}}
}

func (*taskAdapter) Kind() string { return "task" }

func (*taskAdapter) Targets(d *ledger.Detail) []verify.Target {
	if d.Task == "" {
		return nil
	}
	spec, _ := json.Marshal(map[string]string{"task": d.Task, "agent": d.By})
	return []verify.Target{{Kind: "task", Key: "task:" + d.Task, Ref: "a2a:" + d.Task, Spec: spec,
		BoundAt: d.Created, BoundBy: d.By, Obligation: d.ID}}
}

// Observe counts its observations in its memory.
func (a *taskAdapter) Observe(ctx context.Context, t verify.Target, p verify.Prior) (verify.Observation, error) {
	a.priors = append(a.priors, p)
	var spec struct{ Task string }
	json.Unmarshal(t.Spec, &spec)
	if err := a.err[spec.Task]; err != nil {
		return verify.Observation{}, err
	}
	n := 0
	if p.Memory != nil {
		n, _ = strconv.Atoi(string(p.Memory))
	}
	v, ok := a.verdict[spec.Task]
	if !ok {
		v = verify.Wait("working")
	}
	return verify.Observation{Verdict: v, Memory: json.RawMessage(strconv.Itoa(n + 1))}, nil
}

func (e *env) taskPromise(id, task string, target json.RawMessage) {
	e.t.Helper()
	_, err := e.svc.Create(e.ctx, pinki.Identity{}, ledger.CreateInput{Kind: fold.KindPromise, ID: id,
		Text: "summarise the report", By: "agent", To: "user", Task: task,
		Until: pinki.FormatTime(e.clk.Now().Add(time.Hour)), Target: target})
	if err != nil {
		e.t.Fatal(err)
	}
}

func TestNew(t *testing.T) {
	e := newEnv(t)
	for name, cfg := range map[string]verify.Config{
		"no api":        {As: verifierSeat, StatePath: e.state},
		"no seat":       {API: e.svc, StatePath: e.state},
		"no state":      {API: e.svc, As: verifierSeat},
		"two of a kind": {API: e.svc, As: verifierSeat, StatePath: e.state, Adapters: []verify.Adapter{verify.Todo{}, verify.Todo{}}},
	} {
		if _, err := verify.New(cfg); pinki.ErrorCode(err) != pinki.CodeInvalid {
			t.Errorf("%s: got %v, want an invalid error", name, err)
		}
	}
}

func TestAdapterAssessments(t *testing.T) {
	ta := newTaskAdapter()
	e := newEnv(t, verify.Todo{}, ta)
	e.initState()
	e.taskPromise("p1", "task-1", nil)
	e.promise("plain", nil) // bound to nothing: never looked at

	// Nothing yet; the adapter's memory comes back.
	wantAction(t, e.only(e.run()), verify.ActNone, verify.Pending)
	wantAction(t, e.only(e.run()), verify.ActNone, verify.Pending)
	if got := ta.priors[1]; string(got.Memory) != "1" || !got.Continuous {
		t.Fatalf("second prior %+v, want memory 1, continuous", got)
	}

	// The task failed: an attributed assessment, once.
	ta.verdict["task-1"] = verify.Judge("failed", "TASK_STATE_FAILED: out of quota")
	wantAction(t, e.only(e.run()), verify.ActAssessed, verify.Assessed)
	n := e.lines()
	wantAction(t, e.only(e.run()), verify.ActOnRecord, verify.Assessed)
	if e.lines() != n {
		t.Fatal("a repeated assessment was appended")
	}
	d := e.get("p1")
	if len(d.Assessments) != 1 {
		t.Fatalf("assessments %+v", d.Assessments)
	}
	a := d.Assessments[0]
	if a.State != "failed" || a.Observer != verifierSeat.Seat || a.Note != "a2a:task-1: TASK_STATE_FAILED: out of quota" ||
		!strings.Contains(string(a.Meta), `"target":"task:task-1"`) {
		t.Fatalf("assessment %+v", a)
	}
	if d.Resolution != nil {
		t.Fatal("an assessment resolved the obligation")
	}

	// A transient failure: reported, memory kept.
	ta.err["task-1"] = errors.New("agent unreachable")
	r := e.only(e.run())
	if r.Action != verify.ActError || pinki.ErrorCode(r.Error) != pinki.CodeUnavailable {
		t.Fatalf("result %s", r)
	}
	delete(ta.err, "task-1")
	ta.verdict["task-1"] = verify.Deliver("TASK_STATE_WORKING -> TASK_STATE_COMPLETED", "a2a:task-1/artifact/a1")
	wantAction(t, e.only(e.run()), verify.ActResolved, verify.Delivered)
	if got := ta.priors[len(ta.priors)-1]; string(got.Memory) != "4" {
		t.Fatalf("memory %s after an error, want 4: the failed observation left it alone", got.Memory)
	}
	d = e.wantSatisfied("p1", false)
	if strings.Join(d.Resolution.Evidence, " ") != "a2a:task-1/artifact/a1" {
		t.Fatalf("evidence %q", d.Resolution.Evidence)
	}
	// Resolved: never looked at again.
	if rep := e.run(); len(rep.Results) != 0 {
		t.Fatalf("results %+v after the resolve", rep.Results)
	}
}

func TestFirstDeliveredTargetResolves(t *testing.T) {
	ta := newTaskAdapter()
	e := newEnv(t, verify.Todo{}, ta)
	e.initState()
	list := e.writeTodos("todos.json", item{Content: "Summarise", Status: "pending"})
	e.taskPromise("p1", "task-1", e.bind(list, "Summarise"))
	e.writeTodos("todos.json", item{Content: "Summarise", Status: "completed"})
	ta.verdict["task-1"] = verify.Deliver("COMPLETED", "a2a:task-1/artifact/a1")
	rep := e.run()
	if len(rep.Results) != 2 || rep.Appended() != 1 {
		t.Fatalf("results %+v", rep.Results)
	}
	wantAction(t, rep.Results[0], verify.ActResolved, verify.Delivered)
	wantAction(t, rep.Results[1], verify.ActSkipped, verify.Delivered)
	if d := e.wantSatisfied("p1", false); !strings.HasPrefix(d.Resolution.Evidence[0], "todo:") {
		t.Fatalf("evidence %q", d.Resolution.Evidence)
	}
}

func TestMalformedBinding(t *testing.T) {
	e := newEnv(t)
	e.initState()
	bad := json.RawMessage(`{"kind":"todo","file":"relative.json","content":"x","index":0,"status":"pending","snapshot":"sha256:00"}`)
	e.promise("p1", bad)
	r := e.only(e.run())
	wantAction(t, r, verify.ActAssessed, verify.Broken)
	if !strings.Contains(r.Verdict.Note, "not an absolute path") {
		t.Fatalf("note %q", r.Verdict.Note)
	}
}

func TestStateFile(t *testing.T) {
	e := newEnv(t)
	if err := verify.Init(e.state, t0); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(e.state)
	if err != nil {
		t.Fatal(err)
	}
	want := "{\n  \"format\": \"pinki-verify-state/1\",\n  \"since\": \"2026-09-01T17:00:00Z\",\n  \"obligations\": {}\n}\n"
	if string(data) != want {
		t.Fatalf("state file:\n%s\nwant:\n%s", data, want)
	}
	// Init leaves an existing file alone.
	if err := verify.Init(e.state, t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(e.state); string(again) != want {
		t.Fatalf("Init rewrote the file:\n%s", again)
	}
	// A file that is not a state file is refused, never overwritten.
	for _, body := range []string{"{", `{"format":"other"}`, `{"format":"pinki-verify-state/1","since":"yesterday"}`,
		`{"format":"pinki-verify-state/1","since":"2026-09-01T17:00:00Z","extra":1}`} {
		if err := os.WriteFile(e.state, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := e.v.RunOnce(e.ctx)
		if pinki.ErrorCode(err) != pinki.CodeInvalid || !strings.Contains(err.Error(), "not a pinki verifier state file") {
			t.Fatalf("state %q: got %v", body, err)
		}
		if got, _ := os.ReadFile(e.state); string(got) != body {
			t.Fatalf("the bad state file was overwritten")
		}
	}
	// No temporary files are left behind.
	if err := os.Remove(e.state); err != nil {
		t.Fatal(err)
	}
	e.run()
	entries, _ := os.ReadDir(e.dir + "/.pinki/verify")
	var names []string
	for _, en := range entries {
		names = append(names, en.Name())
	}
	if strings.Join(names, " ") != "state.json state.json.lock" {
		t.Fatalf("verify folder holds %q", names)
	}
}

func TestConcurrentPasses(t *testing.T) {
	e, _ := watched(t, "Water the plants", fold.KindPromise)
	e.writeTodos("todos.json", item{Content: "Water the plants", Status: "completed"})
	var wg sync.WaitGroup
	errs := make([]error, 4)
	reps := make([]verify.Report, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reps[i], errs[i] = e.v.RunOnce(e.ctx)
		}()
	}
	wg.Wait()
	resolved := 0
	for i, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
		resolved += reps[i].Appended()
	}
	if resolved != 1 {
		t.Fatalf("%d resolves appended, want 1", resolved)
	}
	e.wantSatisfied("p1", false)
}

func TestWatch(t *testing.T) {
	e, _ := watched(t, "Water the plants", fold.KindPromise)
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	passes := 0
	v, err := verify.New(verify.Config{API: e.svc, As: verifierSeat, StatePath: e.state, Clock: e.clk.Now,
		OnPass: func(rep verify.Report, err error) {
			if err != nil {
				t.Errorf("pass: %v", err)
			}
			passes++
			switch passes {
			case 1:
				// The host's todo tool completes the item between passes.
				e.writeTodos("todos.json", item{Content: "Water the plants", Status: "completed"})
			case 2:
				if rep.Appended() != 1 {
					t.Errorf("second pass appended %d", rep.Appended())
				}
				cancel()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Watch(ctx, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if passes != 2 {
		t.Fatalf("%d passes", passes)
	}
	e.wantSatisfied("p1", false)
	if err := v.Watch(ctx, 0); pinki.ErrorCode(err) != pinki.CodeInvalid {
		t.Fatalf("zero interval: %v", err)
	}
}

// TestSharedStateKeepsOtherKinds: two verifiers with different adapters on
// one state file (pinki verify and pinki a2a watch) do not erase each
// other's memory of what they observe.
func TestSharedStateKeepsOtherKinds(t *testing.T) {
	e := newEnv(t, verify.Todo{}) // the todo verifier, as pinki verify runs it
	e.initState()
	e.taskPromise("p1", "t-1", nil)
	task := newTaskAdapter()
	other, err := verify.New(verify.Config{API: e.svc, As: verifierSeat, StatePath: e.state,
		Adapters: []verify.Adapter{task}, Clock: e.clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	for pass := 1; pass <= 3; pass++ {
		if _, err := other.RunOnce(e.ctx); err != nil {
			t.Fatal(err)
		}
		e.run() // the todo verifier's pass in between
	}
	// The task adapter counts its observations in its memory: three passes,
	// three observations, whatever the other verifier did in between.
	last := task.priors[len(task.priors)-1]
	if string(last.Memory) != "2" {
		t.Fatalf("the task adapter's memory before its third pass is %s, want 2", last.Memory)
	}
}

// countingAPI counts the obligations a verifier reads one by one.
type countingAPI struct {
	ledger.API
	gets []string
}

func (c *countingAPI) Get(ctx context.Context, who pinki.Identity, q ledger.Query) (ledger.Detail, error) {
	c.gets = append(c.gets, q.ID)
	return c.API.Get(ctx, who, q)
}

// A pass reads the history of the bound obligations only (a bind or a
// task), however many others are open.
func TestPassReadsBoundOnly(t *testing.T) {
	ta := newTaskAdapter()
	e := newEnv(t)
	e.initState()
	list := e.writeTodos("todos.json", item{Content: "water the plants", Status: "pending"})
	e.promise("bound", e.bind(list, "water the plants"))
	e.taskPromise("tasked", "task-1", nil)
	for i := range 5 {
		e.promise(fmt.Sprintf("plain-%d", i), nil)
	}
	api := &countingAPI{API: e.svc}
	v, err := verify.New(verify.Config{API: api, As: verifierSeat, StatePath: e.state,
		Adapters: []verify.Adapter{verify.Todo{}, ta}, Clock: e.clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := v.RunOnce(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(api.gets)
	if !slices.Equal(api.gets, []string{"bound", "tasked"}) || rep.Obligations != 2 {
		t.Fatalf("read %v, %d obligations checked; want bound and tasked only", api.gets, rep.Obligations)
	}
}
