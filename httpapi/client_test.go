package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

func (e *env) client(caller string) *Client {
	e.t.Helper()
	c, err := NewClient(e.http.URL, e.tok[caller], e.http.Client())
	if err != nil {
		e.t.Fatal(err)
	}
	return c
}

func identity(caller string) pinki.Identity {
	roles := map[string]pinki.Role{"observer": pinki.RoleObserver, "verifier": pinki.RoleVerifier, "admin": pinki.RoleAdmin}
	r := roles[caller]
	if r == "" {
		r = pinki.RoleSeat
	}
	return pinki.Identity{Seat: seatOf[caller], Role: r}
}

// same fails unless the client's answer equals the service's, compared as
// JSON (the wire form).
func same(t *testing.T, what string, got, want any) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Errorf("%s: client answered\n%s\nthe service\n%s", what, g, w)
	}
}

// TestClientRoundTrip drives every ledger.API method through the client and
// compares each answer with the service's own for the same identity.
func TestClientRoundTrip(t *testing.T) {
	e := newEnv(t, Options{})
	ctx := context.Background()
	d, cr, ad := e.client("debtor"), e.client("creditor"), e.client("admin")
	must := func(rc ledger.Receipt, err error) ledger.Receipt {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return rc
	}
	p := must(d.Create(ctx, local, ledger.CreateInput{Kind: fold.KindPromise, Text: "ship", To: creditor, Until: "+2h", Meta: json.RawMessage(`{"k":1}`)}))
	if p.ID == "" || p.Rev != 1 || p.State != fold.Detached || p.Digest == "" || p.Seq == 0 {
		t.Fatalf("receipt %+v", p)
	}
	again := must(d.Create(ctx, local, ledger.CreateInput{Kind: fold.KindPromise, ID: p.ID, Text: "ship", To: creditor, Until: "+2h", Meta: json.RawMessage(`{"k":1}`)}))
	if !again.Idempotent {
		t.Fatalf("repeat not idempotent: %+v", again)
	}
	rq := must(cr.Create(ctx, local, ledger.CreateInput{Kind: fold.KindRequest, ID: "ask/1", Text: "count", By: debtor, Until: "+1d",
		Schema: json.RawMessage(`{"type":"object","required":["n"],"properties":{"n":{"type":"integer"}}}`), SchemaID: "count.v1"}))
	ag := must(d.Create(ctx, local, ledger.CreateInput{Kind: fold.KindAgreement, Text: "pair", By: debtor, To: creditor, Until: "+1d"}))
	must(d.Amend(ctx, local, ledger.AmendInput{ID: p.ID, Until: "+3h", Reason: "ci", By: debtor}))
	must(d.Progress(ctx, local, ledger.ProgressInput{ID: p.ID, Phase: pinki.PhaseBlocked, Note: "wait"}))
	must(d.Accept(ctx, local, ledger.AcceptInput{ID: ag.ID, Rev: 1}))
	must(cr.Accept(ctx, local, ledger.AcceptInput{ID: ag.ID, Rev: 2}))
	must(cr.Bind(ctx, local, ledger.BindInput{ID: p.ID, Target: json.RawMessage(`{"kind":"todo","item":"3"}`)}))
	must(cr.Assess(ctx, local, ledger.AssessInput{ID: p.ID, State: "disputed", Note: "hmm", Observer: creditor}))
	rev := 4
	must(d.Resolve(ctx, local, ledger.ResolveInput{ID: p.ID, As: pinki.Satisfied, Evidence: []string{"commit:1"}, Rev: &rev}))
	must(d.Resolve(ctx, local, ledger.ResolveInput{ID: rq.ID, As: pinki.Satisfied, Response: json.RawMessage(`{"n":3}`),
		Digest: rq.Digest, SchemaID: "count.v1"}))

	for _, caller := range []string{"debtor", "creditor", "third", "observer", "admin"} {
		c, who := e.client(caller), identity(caller)
		for _, id := range []string{p.ID, rq.ID, ag.ID} {
			got, gerr := c.Get(ctx, local, ledger.Query{ID: id})
			want, werr := e.svc.Get(ctx, who, ledger.Query{ID: id})
			same(t, caller+" get "+id, got, want)
			sameError(t, caller+" get "+id, gerr, werr)
			if gerr == nil && got.UntilAt != want.UntilAt {
				t.Errorf("UntilAt %d, want %d", got.UntilAt, want.UntilAt)
			}
		}
		for _, f := range []ledger.Filter{{Scope: ledger.ScopeAll}, {}, {Scope: ledger.ScopeAll, Limit: 1},
			{States: []fold.State{fold.Satisfied}}, {Scope: ledger.ScopeAll, Party: creditor, Kind: fold.KindRequest}} {
			got, gerr := c.List(ctx, local, f)
			want, werr := e.svc.List(ctx, who, f)
			same(t, caller+" list", got, want)
			sameError(t, caller+" list", gerr, werr)
		}
		for _, q := range []ledger.Query{{}, {Seat: debtor}, {Seat: creditor, Now: t0.Add(48 * 3600e9)}} {
			gi, gerr := c.Inbox(ctx, local, q)
			wi, werr := e.svc.Inbox(ctx, who, q)
			same(t, caller+" inbox", gi, wi)
			sameError(t, caller+" inbox", gerr, werr)
			gp, gerr := c.Prime(ctx, local, q)
			wp, werr := e.svc.Prime(ctx, who, q)
			same(t, caller+" prime", gp, wp)
			sameError(t, caller+" prime", gerr, werr)
			ga, gerr := c.Agreements(ctx, local, q)
			wa, werr := e.svc.Agreements(ctx, who, q)
			same(t, caller+" agreements", ga, wa)
			sameError(t, caller+" agreements", gerr, werr)
		}
		gx, gerr := c.Export(ctx, local, ledger.Filter{By: debtor})
		wx, werr := e.svc.Export(ctx, who, ledger.Filter{By: debtor})
		same(t, caller+" export", gx, wx)
		sameError(t, caller+" export", gerr, werr)
		gc, gerr := c.Check(ctx, local)
		wc, werr := e.svc.Check(ctx, who)
		if werr == nil {
			same(t, caller+" check", gc, wc)
		}
		sameError(t, caller+" check", gerr, werr)
		ge, gn, gerr := c.Events(ctx, local, 2, 3)
		we, wn, werr := e.svc.Events(ctx, who, 2, 3)
		same(t, caller+" events", ge, we)
		if gn != wn {
			t.Errorf("%s events next %d, want %d", caller, gn, wn)
		}
		sameError(t, caller+" events", gerr, werr)
	}

	// Import: admin only, into a non-empty ledger only with add.
	old := pinki.Event{TS: "2029-01-01T00:00:00Z", Type: pinki.TypePromise, ID: "old-1", Text: "x", By: "a", To: "b", Until: "2029-02-01T00:00:00Z"}
	if _, err := d.Import(ctx, local, []pinki.Event{old}, true); pinki.ErrorCode(err) != pinki.CodeForbidden {
		t.Fatalf("seat import: %v", err)
	}
	if _, err := ad.Import(ctx, local, []pinki.Event{old}, false); pinki.ErrorCode(err) != pinki.CodeConflict {
		t.Fatalf("import into a non-empty ledger: %v", err)
	}
	if n, err := ad.Import(ctx, local, []pinki.Event{old}, true); err != nil || n != 1 {
		t.Fatalf("import: %d %v", n, err)
	}
	// A large import travels in several requests.
	big := strings.Repeat("x", 8000)
	var many []pinki.Event
	for i := 0; i < 2200; i++ {
		ev := old
		ev.ID, ev.Text = fmt.Sprintf("old-big-%d", i), big
		many = append(many, ev)
	}
	if n, err := ad.Import(ctx, local, many, true); err != nil || n != len(many) {
		t.Fatalf("big import: %d %v", n, err)
	}
	if err := ad.CheckAs(ctx, admin); err != nil {
		t.Fatal(err)
	}
	if err := ad.CheckAs(ctx, debtor); pinki.ErrorCode(err) != pinki.CodeForbidden {
		t.Fatalf("--as another seat: %v", err)
	}
}

// sameError fails unless both errors are nil or carry the same code,
// message, field, hint and details.
func sameError(t *testing.T, what string, got, want error) {
	t.Helper()
	if (got == nil) != (want == nil) {
		t.Errorf("%s: client error %v, service error %v", what, got, want)
		return
	}
	if got == nil {
		return
	}
	if !reflect.DeepEqual(pinki.AsError(got), pinki.AsError(want)) {
		t.Errorf("%s: client error %#v, service error %#v", what, pinki.AsError(got), pinki.AsError(want))
	}
}

// TestClientErrors checks that refusals reach the client as the very error
// the service returns for the same identity, so the CLI prints the same
// lines and exits the same way.
func TestClientErrors(t *testing.T) {
	e := newEnv(t, Options{})
	ctx := context.Background()
	e.promise("p1")
	e.promise("p2")
	who := identity("debtor")
	c := e.client("debtor")
	rev := 7
	cases := []struct {
		name string
		call func(api ledger.API, who pinki.Identity) error
	}{
		{"no evidence", func(api ledger.API, who pinki.Identity) error {
			_, err := api.Resolve(ctx, who, ledger.ResolveInput{ID: "p1", As: pinki.Satisfied})
			return err
		}},
		{"no reason", func(api ledger.API, who pinki.Identity) error {
			_, err := api.Resolve(ctx, who, ledger.ResolveInput{ID: "p1", As: pinki.Failed})
			return err
		}},
		{"unknown id", func(api ledger.API, who pinki.Identity) error {
			_, err := api.Amend(ctx, who, ledger.AmendInput{ID: "nope", Until: "+1h"})
			return err
		}},
		{"stale rev", func(api ledger.API, who pinki.Identity) error {
			_, err := api.Progress(ctx, who, ledger.ProgressInput{ID: "p1", Phase: pinki.PhaseInProgress, Rev: &rev})
			return err
		}},
		{"deadline without zone", func(api ledger.API, who pinki.Identity) error {
			_, err := api.Create(ctx, who, ledger.CreateInput{Kind: fold.KindPromise, Text: "x", To: creditor, Until: "2031-01-01T00:00:00"})
			return err
		}},
		{"meta array", func(api ledger.API, who pinki.Identity) error {
			_, err := api.Create(ctx, who, ledger.CreateInput{Kind: fold.KindPromise, Text: "x", To: creditor, Until: "+1h", Meta: json.RawMessage(`[1]`)})
			return err
		}},
		{"as another seat", func(api ledger.API, who pinki.Identity) error {
			_, err := api.Create(ctx, who, ledger.CreateInput{Kind: fold.KindPromise, Text: "x", By: creditor, To: debtor, Until: "+1h"})
			return err
		}},
		{"by claim", func(api ledger.API, who pinki.Identity) error {
			_, err := api.Amend(ctx, who, ledger.AmendInput{ID: "p1", Until: "+1h", By: creditor})
			return err
		}},
		{"observer claim", func(api ledger.API, who pinki.Identity) error {
			_, err := api.Assess(ctx, who, ledger.AssessInput{ID: "p1", State: "kept", Observer: creditor})
			return err
		}},
		{"release as debtor", func(api ledger.API, who pinki.Identity) error {
			_, err := api.Resolve(ctx, who, ledger.ResolveInput{ID: "p1", As: pinki.Released})
			return err
		}},
		{"unknown state", func(api ledger.API, who pinki.Identity) error {
			_, err := api.List(ctx, who, ledger.Filter{States: []fold.State{"nope"}})
			return err
		}},
		{"other inbox", func(api ledger.API, who pinki.Identity) error {
			_, err := api.Inbox(ctx, who, ledger.Query{Seat: creditor})
			return err
		}},
		{"check as seat", func(api ledger.API, who pinki.Identity) error {
			_, err := api.Check(ctx, who)
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := e.ledgerBytes()
			want := tc.call(e.svc, who)
			if want == nil {
				t.Fatal("the service accepted it")
			}
			got := tc.call(c, local)
			sameError(t, tc.name, got, want)
			if e.ledgerBytes() != before {
				t.Fatal("a refusal appended")
			}
		})
	}
	// A second, different resolve is a conflict, through both.
	if _, err := c.Resolve(ctx, local, ledger.ResolveInput{ID: "p2", As: pinki.Cancelled, Reason: "x"}); err != nil {
		t.Fatal(err)
	}
	_, got := c.Resolve(ctx, local, ledger.ResolveInput{ID: "p2", As: pinki.Failed, Reason: "y"})
	_, want := e.svc.Resolve(ctx, who, ledger.ResolveInput{ID: "p2", As: pinki.Failed, Reason: "y"})
	sameError(t, "second resolve", got, want)
	if pinki.ErrorCode(got).ExitStatus() != 4 {
		t.Fatalf("second resolve exit %d", pinki.ErrorCode(got).ExitStatus())
	}
}

// TestClientUnreachable checks that a server that cannot be reached is an
// operational failure (exit 1).
func TestClientUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	c, err := NewClient("http://"+addr, "pnk_tok_x", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.List(context.Background(), local, ledger.Filter{})
	var pe *pinki.Error
	if !errors.As(err, &pe) || pe.Code != pinki.CodeUnavailable || pe.Code.ExitStatus() != 1 {
		t.Fatalf("got %#v", err)
	}
	if _, err := NewClient("ftp://x", "", nil); pinki.ErrorCode(err) != pinki.CodeInvalid {
		t.Fatalf("bad URL: %v", err)
	}
}

// TestUnknownLines checks that a ledger line the server cannot decode is
// reported to the client, so that the CLI exits 3 as it does locally.
func TestUnknownLines(t *testing.T) {
	e := newEnv(t, Options{})
	e.promise("p1")
	c := e.client("debtor")
	if _, err := c.List(context.Background(), local, ledger.Filter{}); err != nil || c.UnknownLines() != 0 {
		t.Fatalf("clean ledger: %v %d", err, c.UnknownLines())
	}
	f, err := os.OpenFile(e.path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"ts":"2030-01-01T00:00:00Z","type":"teleport","promise":"p1"}` + "\n")
	f.Close()
	if err := e.svc.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	page, err := c.List(context.Background(), local, ledger.Filter{})
	if err != nil || len(page.Items) != 1 || c.UnknownLines() != 1 {
		t.Fatalf("after a bad line: %v %d items, unknown %d", err, len(page.Items), c.UnknownLines())
	}
}

// The bound and task filters travel: ?bound=true lists the obligations with
// a bind or a task, ?task=ID those naming that task, through the client as
// in the service.
func TestClientBoundAndTaskFilters(t *testing.T) {
	e := newEnv(t, Options{})
	ctx := context.Background()
	e.promise("plain")
	for _, in := range []ledger.CreateInput{
		{Kind: fold.KindPromise, ID: "bound", Text: "water", By: debtor, To: creditor, Until: "+2h",
			Target: json.RawMessage(`{"kind":"todo","file":"/tmp/todos.json","item":"water"}`)},
		{Kind: fold.KindPromise, ID: "tasked", Text: "summarise", By: debtor, To: creditor, Until: "+2h", Task: "task-1"},
	} {
		if _, err := e.svc.Create(ctx, local, in); err != nil {
			t.Fatal(err)
		}
	}
	ids := func(items []ledger.Item) string {
		var out []string
		for _, it := range items {
			out = append(out, it.ID)
		}
		return strings.Join(out, " ")
	}
	c := e.client("verifier")
	for _, tc := range []struct {
		f    ledger.Filter
		want string
	}{
		{ledger.Filter{Scope: ledger.ScopeAll, Bound: true}, "bound tasked"},
		{ledger.Filter{Task: "task-1"}, "tasked"},
		{ledger.Filter{Task: "task-2"}, ""},
		{ledger.Filter{}, "plain bound tasked"},
	} {
		page, err := c.List(ctx, local, tc.f)
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(page.Items); got != tc.want {
			t.Errorf("list %+v: %q, want %q", tc.f, got, tc.want)
		}
	}
	doc, err := c.Export(ctx, local, ledger.Filter{Task: "task-1"})
	if err != nil || len(doc.Promises) != 1 || doc.Promises[0].ID != "tasked" {
		t.Errorf("export task-1: %v %+v", err, doc.Promises)
	}
	if r := e.do("verifier", "GET", "/v1/obligations?bound=maybe", nil); r.status != 400 || r.problem(t).Field != "bound" {
		t.Errorf("bound=maybe: %d %s", r.status, r.body)
	}
}
