package verify_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/jsonl"
	"github.com/pinki-ledger/pinki/ledger"
	"github.com/pinki-ledger/pinki/verify"
)

// t0 is the start of every test's clock.
var t0 = time.Date(2026, 9, 1, 17, 0, 0, 0, time.UTC)

// clock is a settable clock, shared by the service and the verifier.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// verifierSeat is the identity the verifier writes as.
var verifierSeat = pinki.Identity{Seat: "verifier:todo", Role: pinki.RoleVerifier}

// env is one test's world: a file ledger and its service, a todo list
// folder, a state file and a verifier, all under t.TempDir().
type env struct {
	t      *testing.T
	ctx    context.Context
	clk    *clock
	dir    string
	ledger string
	state  string
	svc    *ledger.Service
	v      *verify.Verifier
}

func newEnv(t *testing.T, adapters ...verify.Adapter) *env {
	t.Helper()
	dir := t.TempDir()
	e := &env{t: t, ctx: context.Background(), clk: &clock{t: t0}, dir: dir,
		ledger: filepath.Join(dir, ".pinki", "ledger.jsonl")}
	e.state = verify.DefaultStatePath(e.ledger)
	store, err := jsonl.Open(e.ledger, jsonl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	e.svc = ledger.New(store, ledger.Options{Clock: e.clk.Now})
	e.v, err = verify.New(verify.Config{API: e.svc, As: verifierSeat, StatePath: e.state,
		Adapters: adapters, Clock: e.clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// initState starts the state file now and moves the clock on a second, so
// that what is bound next is bound after the state began.
func (e *env) initState() {
	e.t.Helper()
	if err := verify.Init(e.state, e.clk.Now()); err != nil {
		e.t.Fatal(err)
	}
	e.clk.Add(time.Second)
}

// watched starts a watched world (the state file predates what is bound)
// whose todos.json holds the one pending item text, and declares an
// obligation bound to it: the promise p1, or for fold.KindAgreement the
// proposal a1.
func watched(t *testing.T, text string, kind fold.Kind) (*env, string) {
	t.Helper()
	e := newEnv(t)
	e.initState()
	list := e.writeTodos("todos.json", item{Content: text, Status: "pending"})
	if kind == fold.KindAgreement {
		e.propose("a1", e.bind(list, text))
	} else {
		e.promise("p1", e.bind(list, text))
	}
	return e, list
}

// item is one todo list item as tests write it.
type item struct {
	ID      any    `json:"id,omitempty"`
	Content string `json:"content"`
	Status  string `json:"status"`
	// ActiveForm is an extra field agent hosts write.
	ActiveForm string `json:"activeForm,omitempty"`
}

// writeTodos writes a todo list file in dir, as an agent host's todo tool
// would, and returns its path.
func (e *env) writeTodos(name string, items ...item) string {
	e.t.Helper()
	path := filepath.Join(e.dir, name)
	if items == nil {
		items = []item{}
	}
	data, err := json.MarshalIndent(items, "", "  ")
	if err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		e.t.Fatal(err)
	}
	return path
}

func (e *env) writeRaw(name, data string) {
	e.t.Helper()
	if err := os.WriteFile(filepath.Join(e.dir, name), []byte(data), 0o644); err != nil {
		e.t.Fatal(err)
	}
}

// bind builds a todo target for text in file.
func (e *env) bind(file, text string) json.RawMessage {
	e.t.Helper()
	target, err := verify.BindTodo(file, text)
	if err != nil {
		e.t.Fatalf("BindTodo(%s, %q): %v", file, text, err)
	}
	return target
}

// promise declares a promise from agent to user, due in an hour, bound to
// target.
func (e *env) promise(id string, target json.RawMessage) {
	e.t.Helper()
	_, err := e.svc.Create(e.ctx, pinki.Identity{}, ledger.CreateInput{Kind: fold.KindPromise, ID: id,
		Text: "water the plants", By: "agent", To: "user",
		Until: pinki.FormatTime(e.clk.Now().Add(time.Hour)), Target: target})
	if err != nil {
		e.t.Fatal(err)
	}
}

// propose records the user's proposal that agent does it within an hour,
// bound to target.
func (e *env) propose(id string, target json.RawMessage) {
	e.t.Helper()
	_, err := e.svc.Create(e.ctx, pinki.Identity{}, ledger.CreateInput{Kind: fold.KindAgreement, ID: id,
		Text: "next time mark the todo as completed", By: "agent", To: "user", Proposer: "to",
		Until: pinki.FormatTime(e.clk.Now().Add(time.Hour)), Target: target})
	if err != nil {
		e.t.Fatal(err)
	}
}

// acceptBoth records both parties' acceptances of the current terms.
func (e *env) acceptBoth(id string) {
	e.t.Helper()
	for _, seat := range []string{"user", "agent"} {
		d := e.get(id)
		if _, err := e.svc.Accept(e.ctx, pinki.Identity{Seat: seat, Role: pinki.RoleSeat},
			ledger.AcceptInput{ID: id, Rev: d.Rev}); err != nil {
			e.t.Fatal(err)
		}
	}
}

func (e *env) get(id string) ledger.Detail {
	e.t.Helper()
	d, err := e.svc.Get(e.ctx, pinki.Identity{}, ledger.Query{ID: id})
	if err != nil {
		e.t.Fatal(err)
	}
	return d
}

// run makes one verifier pass and fails the test on a pass error.
func (e *env) run() verify.Report {
	e.t.Helper()
	rep, err := e.v.RunOnce(e.ctx)
	if err != nil {
		e.t.Fatalf("RunOnce: %v", err)
	}
	for _, r := range rep.Results {
		e.t.Logf("pass: %s", r)
	}
	return rep
}

// only returns the single result of a pass.
func (e *env) only(rep verify.Report) verify.Result {
	e.t.Helper()
	if len(rep.Results) != 1 {
		e.t.Fatalf("pass has %d results, want 1: %+v", len(rep.Results), rep.Results)
	}
	return rep.Results[0]
}

// lines counts the ledger's lines.
func (e *env) lines() int {
	e.t.Helper()
	f, err := os.Open(e.ledger)
	if err != nil {
		e.t.Fatal(err)
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		n++
	}
	return n
}

// wantOpen checks that id is unresolved.
func (e *env) wantOpen(id string) {
	e.t.Helper()
	if d := e.get(id); d.Resolution != nil {
		e.t.Fatalf("%s resolved %s by %s, want it unresolved", id, d.Resolution.As, d.Resolution.By)
	}
}

// wantSatisfied checks that id was satisfied by the verifier.
func (e *env) wantSatisfied(id string, late bool) ledger.Detail {
	e.t.Helper()
	d := e.get(id)
	switch {
	case d.Resolution == nil:
		e.t.Fatalf("%s is %s, want satisfied", id, d.State)
	case d.Resolution.As != pinki.Satisfied || d.Resolution.By != verifierSeat.Seat:
		e.t.Fatalf("%s resolved %s by %s, want satisfied by %s", id, d.Resolution.As, d.Resolution.By, verifierSeat.Seat)
	case d.State != fold.Satisfied || d.Late != late:
		e.t.Fatalf("%s is %s late=%v, want satisfied late=%v", id, d.State, d.Late, late)
	}
	return d
}

func wantAction(t *testing.T, r verify.Result, a verify.Action, k verify.VerdictKind) {
	t.Helper()
	if r.Action != a || r.Verdict.Kind != k {
		t.Fatalf("result %s: want verdict %s, action %s", r, k, a)
	}
}
