package httpapi

import (
	"net/http"
	"strings"
	"testing"
)

// TestBadInput sends malformed, oversized, unknown-field, wrong-type and
// identity-bearing bodies and queries: each gets its 4xx problem, naming the
// field when there is one, and appends nothing.
func TestBadInput(t *testing.T) {
	e := newEnv(t, Options{MaxBody: 4096})
	e.promise("p1")
	cases := []struct {
		name, method, path string
		body               any
		status             int
		code, field        string
	}{
		{"malformed", "POST", "/v1/promises", `{"promise":"x",`, 400, "invalid", "body"},
		{"not an object", "POST", "/v1/promises", `["x"]`, 400, "invalid", "body"},
		{"empty body", "POST", "/v1/promises", ``, 400, "invalid", "body"},
		{"two values", "POST", "/v1/promises", `{"promise":"x","to":"b","until":"+1h"} {}`, 400, "invalid", "body"},
		{"unknown field", "POST", "/v1/promises", `{"promise":"x","to":"b","until":"+1h","colour":"red"}`, 400, "invalid", "colour"},
		{"identity field as", "POST", "/v1/promises", `{"promise":"x","to":"b","until":"+1h","as":"seat/creditor"}`, 400, "invalid", "as"},
		{"schema on a promise", "POST", "/v1/promises", `{"promise":"x","to":"b","until":"+1h","schema":{}}`, 400, "invalid", "schema"},
		{"wrong type", "POST", "/v1/promises", `{"promise":7,"to":"b","until":"+1h"}`, 400, "invalid", "promise"},
		{"wrong type evidence", "POST", "/v1/obligations/p1/events", `{"type":"resolve","as":"satisfied","evidence":"x"}`, 400, "invalid", "evidence"},
		{"wrong type rev", "POST", "/v1/obligations/p1/events", `{"type":"amend","until":"+1h","rev":"2"}`, 400, "invalid", "rev"},
		{"duplicate key", "POST", "/v1/promises", `{"promise":"x","to":"b","to":"c","until":"+1h"}`, 400, "invalid", "to"},
		{"oversized", "POST", "/v1/promises", `{"promise":"` + strings.Repeat("x", 5000) + `","to":"b","until":"+1h"}`, 413, "too_large", "body"},
		{"event by", "POST", "/v1/obligations/p1/events", `{"type":"progress","phase":"blocked","by":"seat/debtor"}`, 400, "invalid", "by"},
		{"event observer", "POST", "/v1/obligations/p1/events", `{"type":"assess","state":"kept","observer":"seat/debtor"}`, 400, "invalid", "observer"},
		{"event field of another type", "POST", "/v1/obligations/p1/events", `{"type":"amend","until":"+1h","phase":"blocked"}`, 400, "invalid", "phase"},
		{"event no type", "POST", "/v1/obligations/p1/events", `{"until":"+1h"}`, 400, "invalid", "type"},
		{"event unknown type", "POST", "/v1/obligations/p1/events", `{"type":"promise"}`, 400, "invalid", "type"},
		{"event type not a string", "POST", "/v1/obligations/p1/events", `{"type":1}`, 400, "invalid", "type"},
		{"event malformed", "POST", "/v1/obligations/p1/events", `{"type":"amend"`, 400, "invalid", "body"},
		{"event unknown id", "POST", "/v1/obligations/nope/events", `{"type":"progress","phase":"blocked"}`, 404, "not_found", "id"},
		{"service rule", "POST", "/v1/obligations/p1/events", `{"type":"resolve","as":"satisfied"}`, 400, "invalid", "evidence"},
		{"import garbage", "POST", "/v1/import?append=true", "{\"ts\":1}\n", 400, "invalid", "body"},
		{"unknown query", "GET", "/v1/obligations?colour=red", nil, 400, "invalid", "colour"},
		{"bad scope", "GET", "/v1/obligations?scope=some", nil, 400, "invalid", "scope"},
		{"bad limit", "GET", "/v1/obligations?limit=0", nil, 400, "invalid", "limit"},
		{"bad now", "GET", "/v1/obligations?now=yesterday", nil, 400, "invalid", "now"},
		{"bad state", "GET", "/v1/obligations?state=nope", nil, 400, "invalid", "state"},
		{"seat twice", "GET", "/v1/inbox?seat=a&seat=b", nil, 400, "invalid", "seat"},
		{"unknown path", "GET", "/v1/nothing", nil, 404, "not_found", "path"},
		{"wrong method", "DELETE", "/v1/obligations/p1", nil, 405, "invalid", "method"},
		{"wrong method on a create", "GET", "/v1/promises", nil, 405, "invalid", "method"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := e.ledgerBytes()
			r := e.do("debtor", tc.method, tc.path, tc.body)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.body)
			}
			p := r.problem(t)
			if p.Code != tc.code || p.Field != tc.field || p.Status != tc.status || !strings.HasPrefix(p.Type, problemTypeBase) || p.Title != http.StatusText(tc.status) {
				t.Fatalf("problem %+v, want code %s field %q", p, tc.code, tc.field)
			}
			if strings.Contains(p.Detail, "\n") || p.Detail == "" {
				t.Fatalf("detail %q is not one line", p.Detail)
			}
			if e.ledgerBytes() != before {
				t.Fatal("a refused request appended")
			}
		})
	}
	// A scheme other than Bearer.
	req, _ := http.NewRequest("GET", e.http.URL+"/v1/whoami", nil)
	req.Header.Set("Authorization", "Basic "+e.tok["debtor"])
	resp, err := e.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") == "" {
		t.Fatalf("Basic: %d", resp.StatusCode)
	}
	// An admin's import of a line that is not a ledger event.
	before := e.ledgerBytes()
	r := e.do("admin", "POST", "/v1/import?append=true", "{\"ts\":1}\n")
	if p := r.problem(t); r.status != 400 || p.Code != "invalid" || !strings.Contains(p.Detail, "line 1") {
		t.Fatalf("import garbage: %d %+v", r.status, p)
	}
	if e.ledgerBytes() != before {
		t.Fatal("a refused import appended")
	}
}

// TestSlashInID checks that ids holding '/' work in paths, percent-encoded.
func TestSlashInID(t *testing.T) {
	e := newEnv(t, Options{})
	r := e.do("debtor", "POST", "/v1/promises", map[string]any{"id": "team/a@b:c", "promise": "x", "to": creditor, "until": "+1h"})
	if r.status != 201 || r.header.Get("Location") != "/v1/obligations/team%2Fa@b:c" {
		t.Fatalf("%d %v %s", r.status, r.header.Get("Location"), r.body)
	}
	if r := e.do("debtor", "GET", "/v1/obligations/team%2Fa@b:c", nil); r.status != 200 {
		t.Fatalf("get: %d %s", r.status, r.body)
	}
	if r := e.do("debtor", "POST", "/v1/obligations/team%2Fa@b:c/events", map[string]any{"type": "progress", "phase": "blocked"}); r.status != 200 {
		t.Fatalf("event: %d %s", r.status, r.body)
	}
}

// TestHealthAndMetrics checks /healthz without a token and the metric
// families /metrics writes.
func TestHealthAndMetrics(t *testing.T) {
	e := newEnv(t, Options{})
	e.promise("p1")
	if r := e.do("none", "GET", "/healthz", nil); r.status != 200 || !strings.Contains(string(r.body), `"ok"`) {
		t.Fatalf("healthz: %d %s", r.status, r.body)
	}
	e.do("debtor", "GET", "/v1/obligations/p1", nil)
	e.do("third", "GET", "/v1/obligations/p1", nil)
	r := e.do("observer", "GET", "/metrics", nil)
	if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
		t.Fatalf("metrics: %d %s", r.status, r.body)
	}
	body := string(r.body)
	for _, want := range []string{
		`pinki_obligations{state="detached"} 1`,
		`pinki_open{seat="seat/debtor"} 1`,
		`# TYPE pinki_overdue gauge`,
		`pinki_http_requests_total{route="GET /v1/obligations/{id}",code="200"} 1`,
		`pinki_http_requests_total{route="GET /v1/obligations/{id}",code="404"} 1`,
		`pinki_http_request_duration_seconds_bucket{route="GET /v1/obligations/{id}",code="200",le="+Inf"} 1`,
		`pinki_http_request_duration_seconds_count{route="GET /healthz",code="200"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q:\n%s", want, body)
		}
	}
	// A seat's token counts only what it may read.
	r = e.do("third", "GET", "/metrics", nil)
	if !strings.Contains(string(r.body), `pinki_obligations{state="detached"} 0`) {
		t.Errorf("a third seat's metrics count others' obligations:\n%s", r.body)
	}
	// Later scrapes see the overdue seat.
	r = e.do("admin", "GET", "/metrics?x=1", nil)
	if r.status != 400 {
		t.Fatalf("metrics with a query: %d", r.status)
	}
}

// An unknown body field that looks like a writer's identity gets the hint
// that the token decides who writes; any other unknown field does not.
func TestUnknownFieldHint(t *testing.T) {
	e := newEnv(t, Options{})
	e.promise("p1")
	for _, tc := range []struct {
		path, body string
		hint       bool
	}{
		{"/v1/promises", `{"promise":"x","to":"b","until":"+1h","as":"seat/creditor"}`, true},
		{"/v1/promises", `{"promise":"x","to":"b","until":"+1h","seat":"seat/creditor"}`, true},
		{"/v1/obligations/p1/events", `{"type":"progress","phase":"blocked","by":"seat/debtor"}`, true},
		{"/v1/obligations/p1/events", `{"type":"assess","state":"kept","observer":"seat/debtor"}`, true},
		{"/v1/obligations/p1/events", `{"type":"assess","state":"kept","who":"seat/debtor"}`, true},
		{"/v1/promises", `{"promise":"x","to":"b","until":"+1h","colour":"red"}`, false},
		{"/v1/obligations/p1/events", `{"type":"amend","until":"+1h","phase":"blocked"}`, false},
	} {
		p := e.do("debtor", "POST", tc.path, tc.body).problem(t)
		if got := strings.Contains(p.Hint, "bearer token's seat"); got != tc.hint || !strings.HasPrefix(p.Detail, "unknown field") {
			t.Errorf("%s: problem %+v; want the identity hint: %v", tc.body, p, tc.hint)
		}
	}
}
