package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

// callers are the rows of the authorization matrix: the two parties of
// every fixture, a seat that is neither, the three wider roles, and three
// requests that must not authenticate.
var callers = []string{"debtor", "creditor", "third", "observer", "verifier", "admin", "none", "forged", "revoked"}

var seatOf = map[string]string{"debtor": debtor, "creditor": creditor, "third": third,
	"observer": observer, "verifier": verifier, "admin": admin}

// verb is one column of the matrix: a fixture, a request on it, who may make
// it, and what everyone else gets.
type verb struct {
	name    string
	fixture func(e *env, id string)
	request func(id, caller string) (method, path string, body any)
	allowed []string
	denied  int // status for an authenticated caller outside allowed
	// hidden, if set, is the status for a seat that may not read the
	// fixture (third): a seat acts only on what it may read, and is not
	// told that the rest exists.
	hidden int
	writes bool // an allowed request appends
	// check, if set, looks at an allowed answer.
	check func(t *testing.T, caller, id string, r response)
}

func promiseFixture(e *env, id string) { e.promise(id) }

func proposalFixture(e *env, id string) {
	if _, err := e.svc.Create(context.Background(), local, ledger.CreateInput{Kind: fold.KindAgreement, ID: id,
		Text: "review", By: debtor, To: creditor, Until: "+2h"}); err != nil {
		e.t.Fatal(err)
	}
}

func boundFixture(e *env, id string) {
	if _, err := e.svc.Create(context.Background(), local, ledger.CreateInput{Kind: fold.KindPromise, ID: id,
		Text: "close the todo", By: debtor, To: creditor, Until: "+2h", Target: json.RawMessage(`{"kind":"todo","item":"1"}`)}); err != nil {
		e.t.Fatal(err)
	}
}

func noFixture(*env, string) {}

func event(body map[string]any) func(id, caller string) (string, string, any) {
	return func(id, caller string) (string, string, any) {
		return "POST", "/v1/obligations/" + id + "/events", body
	}
}

func get(path string) func(id, caller string) (string, string, any) {
	return func(id, caller string) (string, string, any) {
		return "GET", strings.ReplaceAll(path, "{id}", id), nil
	}
}

// readsEverything are the roles that read every obligation.
var readsEverything = []string{"observer", "verifier", "admin"}

var parties = []string{"debtor", "creditor"}

var everyone = []string{"debtor", "creditor", "third", "observer", "verifier", "admin"}

func plus(a []string, b ...string) []string { return append(slices.Clone(a), b...) }

// sees checks that a listing shows the fixture to parties and wider roles
// and hides it from a third seat.
func sees(t *testing.T, caller, id string, r response) {
	t.Helper()
	shown := strings.Contains(string(r.body), `"`+id+`"`)
	if want := caller != "third"; shown != want {
		t.Errorf("%s: fixture %s shown=%v, want %v: %s", caller, id, shown, want, r.body)
	}
}

var verbs = []verb{
	{name: "create promise", fixture: noFixture, allowed: []string{"debtor"}, denied: 403, writes: true,
		request: func(id, caller string) (string, string, any) {
			return "POST", "/v1/promises", map[string]any{"id": id, "promise": "p", "by": debtor, "to": creditor, "until": "+1h"}
		}},
	{name: "create request", fixture: noFixture, allowed: []string{"creditor"}, denied: 403, writes: true,
		request: func(id, caller string) (string, string, any) {
			return "POST", "/v1/requests", map[string]any{"id": id, "promise": "q", "by": debtor, "to": creditor, "until": "+1h"}
		}},
	{name: "create proposal", fixture: noFixture, allowed: parties, denied: 403, writes: true,
		request: func(id, caller string) (string, string, any) {
			return "POST", "/v1/proposals", map[string]any{"id": id, "terms": "t", "by": debtor, "to": creditor, "until": "+1h"}
		}},
	{name: "amend", fixture: promiseFixture, allowed: []string{"debtor"}, denied: 403, hidden: 404, writes: true,
		request: event(map[string]any{"type": "amend", "until": "+3h", "reason": "later"})},
	{name: "amend proposal", fixture: proposalFixture, allowed: parties, denied: 403, hidden: 404, writes: true,
		request: event(map[string]any{"type": "amend", "until": "+3h"})},
	{name: "accept", fixture: proposalFixture, allowed: parties, denied: 403, hidden: 404, writes: true,
		request: event(map[string]any{"type": "accept", "rev": 1})},
	{name: "progress", fixture: promiseFixture, allowed: []string{"debtor"}, denied: 403, hidden: 404, writes: true,
		request: event(map[string]any{"type": "progress", "phase": "in_progress"})},
	{name: "satisfy", fixture: promiseFixture, allowed: []string{"debtor"}, denied: 403, hidden: 404, writes: true,
		request: event(map[string]any{"type": "resolve", "as": "satisfied", "evidence": []string{"commit:abc"}})},
	{name: "satisfy bound", fixture: boundFixture, allowed: []string{"debtor", "verifier"}, denied: 403, hidden: 404, writes: true,
		request: event(map[string]any{"type": "resolve", "as": "satisfied", "evidence": []string{"todo:1 completed"}})},
	{name: "fail", fixture: promiseFixture, allowed: []string{"debtor"}, denied: 403, hidden: 404, writes: true,
		request: event(map[string]any{"type": "resolve", "as": "failed", "reason": "could not"})},
	{name: "cancel", fixture: promiseFixture, allowed: []string{"debtor"}, denied: 403, hidden: 404, writes: true,
		request: event(map[string]any{"type": "resolve", "as": "cancelled", "reason": "withdrawn"})},
	{name: "release", fixture: promiseFixture, allowed: []string{"creditor"}, denied: 403, hidden: 404, writes: true,
		request: event(map[string]any{"type": "resolve", "as": "released"})},
	{name: "decline proposal", fixture: proposalFixture, allowed: []string{"creditor"}, denied: 403, hidden: 404, writes: true,
		request: event(map[string]any{"type": "resolve", "as": "released", "reason": "no"})},
	// Anyone assesses (SPEC §1); a seat that may not read the obligation
	// learns nothing of it from the receipt.
	{name: "assess", fixture: promiseFixture, allowed: everyone, writes: true,
		request: event(map[string]any{"type": "assess", "state": "disputed", "note": "n"}),
		check: func(t *testing.T, caller, id string, r response) {
			var receipt struct {
				State string `json:"state"`
				Rev   int    `json:"rev"`
			}
			if err := json.Unmarshal(r.body, &receipt); err != nil {
				t.Fatal(err)
			}
			if hidden := receipt.State == "" && receipt.Rev == 0; hidden != (caller == "third") {
				t.Fatalf("%s's receipt %s: state and rev shown=%v", caller, r.body, !hidden)
			}
		}},
	{name: "bind", fixture: promiseFixture, allowed: parties, denied: 403, hidden: 404, writes: true,
		request: event(map[string]any{"type": "bind", "target": map[string]any{"kind": "todo", "item": "9"}})},
	{name: "get", fixture: promiseFixture, allowed: plus(readsEverything, parties...), denied: 404,
		request: get("/v1/obligations/{id}")},
	{name: "list", fixture: promiseFixture, allowed: everyone, request: get("/v1/obligations?scope=all&limit=1000"),
		check: sees},
	{name: "inbox of the debtor", fixture: promiseFixture, allowed: plus(readsEverything, "debtor"), denied: 403,
		request: get("/v1/inbox?seat=" + debtor)},
	{name: "own inbox", fixture: promiseFixture, allowed: everyone, request: get("/v1/inbox")},
	{name: "prime of the debtor", fixture: promiseFixture, allowed: plus(readsEverything, "debtor"), denied: 403,
		request: get("/v1/prime?seat=" + debtor)},
	{name: "own prime", fixture: promiseFixture, allowed: everyone, request: get("/v1/prime")},
	{name: "agreements of the creditor", fixture: proposalFixture, allowed: plus(readsEverything, "creditor"), denied: 403,
		request: get("/v1/agreements?seat=" + creditor)},
	{name: "export", fixture: promiseFixture, allowed: everyone, request: get("/v1/export"), check: sees},
	{name: "events", fixture: promiseFixture, allowed: everyone, request: get("/v1/events?after=0"), check: sees},
	{name: "check", fixture: promiseFixture, allowed: readsEverything, denied: 403, request: get("/v1/check")},
	{name: "import", fixture: noFixture, allowed: []string{"admin"}, denied: 403, writes: true,
		request: func(id, caller string) (string, string, any) {
			return "POST", "/v1/import?append=true", `{"ts":"2029-01-01T00:00:00Z","type":"promise","id":"` + id + `","promise":"old","by":"a","to":"b","until":"2029-02-01T00:00:00Z"}` + "\n"
		}},
	{name: "whoami", fixture: noFixture, allowed: everyone, request: get("/v1/whoami")},
	{name: "metrics", fixture: noFixture, allowed: everyone, request: get("/metrics")},
}

// TestAuthorizationMatrix runs every verb as every caller on a fresh
// fixture: allowed callers succeed (and writes append), everyone else gets
// the verb's refusal (401 without a valid token) and the ledger's bytes do
// not change.
func TestAuthorizationMatrix(t *testing.T) {
	e := newEnv(t, Options{})
	for vi, v := range verbs {
		for ci, caller := range callers {
			id := fmt.Sprintf("m%d-%d", vi, ci)
			t.Run(v.name+"/"+caller, func(t *testing.T) {
				v.fixture(e, id)
				before := e.ledgerBytes()
				method, path, body := v.request(id, caller)
				r := e.do(caller, method, path, body)
				after := e.ledgerBytes()
				allowed := slices.Contains(v.allowed, caller)
				switch {
				case allowed:
					if r.status != http.StatusOK && r.status != http.StatusCreated {
						t.Fatalf("status %d, want 2xx: %s", r.status, r.body)
					}
					if grew := len(after) > len(before); grew != v.writes {
						t.Fatalf("ledger grew=%v, want %v", grew, v.writes)
					}
					if !strings.HasPrefix(after, before) {
						t.Fatal("the ledger's earlier bytes changed")
					}
					if v.check != nil {
						v.check(t, caller, id, r)
					}
				default:
					want := v.denied
					if caller == "third" && v.hidden != 0 {
						want = v.hidden
					}
					if seatOf[caller] == "" {
						want = http.StatusUnauthorized
					}
					if r.status != want {
						t.Fatalf("status %d, want %d: %s", r.status, want, r.body)
					}
					p := r.problem(t)
					if p.Status != want || p.Code == "" || p.Detail == "" {
						t.Fatalf("bad problem %+v", p)
					}
					if want == http.StatusUnauthorized && !strings.HasPrefix(r.header.Get("WWW-Authenticate"), "Bearer") {
						t.Fatal("401 without a Bearer challenge")
					}
					if after != before {
						t.Fatalf("a refused request appended:\n%s", after[len(before):])
					}
				}
			})
		}
	}
}

// TestReadsLimitedToParties checks that listings, exports and event pages
// leave out what a third seat is not a party to, and show it to the rest.
func TestReadsLimitedToParties(t *testing.T) {
	e := newEnv(t, Options{})
	e.promise("secret-1")
	for _, path := range []string{"/v1/obligations?scope=all", "/v1/export", "/v1/events", "/v1/export?format=jsonl", "/v1/export?format=events"} {
		for _, caller := range everyone {
			r := e.do(caller, "GET", path, nil)
			if r.status != 200 {
				t.Fatalf("%s %s: %d %s", caller, path, r.status, r.body)
			}
			shown := strings.Contains(string(r.body), "secret-1")
			if want := caller != "third"; shown != want {
				t.Errorf("%s %s: shown=%v, want %v: %s", caller, path, shown, want, r.body)
			}
		}
	}
}
