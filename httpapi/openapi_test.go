package httpapi

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/pinki-ledger/pinki/fold"
)

type openAPIDoc struct {
	OpenAPI string                                `json:"openapi"`
	Paths   map[string]map[string]json.RawMessage `json:"paths"`
	Comps   struct {
		Schemas map[string]struct {
			Properties           map[string]json.RawMessage `json:"properties"`
			Required             []string                   `json:"required"`
			AdditionalProperties *bool                      `json:"additionalProperties"`
		} `json:"schemas"`
	} `json:"components"`
}

type operation struct {
	Parameters []struct {
		Name string `json:"name"`
		In   string `json:"in"`
	} `json:"parameters"`
	RequestBody struct {
		Content map[string]struct {
			Schema   json.RawMessage `json:"schema"`
			Examples map[string]struct {
				Value json.RawMessage `json:"value"`
			} `json:"examples"`
		} `json:"content"`
	} `json:"requestBody"`
	Security *[]any `json:"security"`
}

func loadDoc(t *testing.T) openAPIDoc {
	t.Helper()
	var doc openAPIDoc
	if err := json.Unmarshal(OpenAPI, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" {
		t.Fatalf("openapi %q", doc.OpenAPI)
	}
	return doc
}

// TestOpenAPIRoutes checks that the document names exactly the routes the
// server registers, with their methods, that public routes are the ones the
// document exempts from the bearer requirement, and that the document is
// what /v1/openapi.json serves.
func TestOpenAPIRoutes(t *testing.T) {
	doc := loadDoc(t)
	e := newEnv(t, Options{})
	var registered, documented []string
	for _, rt := range e.server.routes {
		registered = append(registered, rt.method+" "+rt.path)
		op := doc.Paths[rt.path][strings.ToLower(rt.method)]
		if op == nil {
			continue
		}
		var o operation
		if err := json.Unmarshal(op, &o); err != nil {
			t.Fatal(err)
		}
		if public := o.Security != nil && len(*o.Security) == 0; public != rt.public {
			t.Errorf("%s %s: documented public=%v, server public=%v", rt.method, rt.path, public, rt.public)
		}
		for _, p := range o.Parameters {
			if p.In == "path" && !strings.Contains(rt.path, "{"+p.Name+"}") {
				t.Errorf("%s %s: path parameter %s not in the route", rt.method, rt.path, p.Name)
			}
		}
	}
	for path, ops := range doc.Paths {
		for method := range ops {
			documented = append(documented, strings.ToUpper(method)+" "+path)
		}
	}
	sort.Strings(registered)
	sort.Strings(documented)
	if !slices.Equal(registered, documented) {
		t.Fatalf("routes differ:\nserver   %v\ndocument %v", registered, documented)
	}
	r := e.do("none", "GET", "/v1/openapi.json", nil)
	if r.status != 200 || string(r.body) != string(OpenAPI) {
		t.Fatalf("served document: %d", r.status)
	}
}

// TestOpenAPIQueryParameters checks that each GET route's documented query
// parameters are the ones its handler accepts: every documented one is
// accepted, and an undocumented one is refused.
func TestOpenAPIQueryParameters(t *testing.T) {
	doc := loadDoc(t)
	e := newEnv(t, Options{})
	e.promise("p1")
	samples := map[string]string{"scope": "all", "state": "detached", "kind": "promise", "since": "2029-01-01T00:00:00Z",
		"now": "2030-01-01T13:00:00Z", "cursor": "1", "limit": "5", "after": "0", "format": "json", "append": "false", "seat": debtor, "bound": "true"}
	for path, ops := range doc.Paths {
		raw, ok := ops["get"]
		if !ok || path == "/v1/events/stream" {
			continue
		}
		var o operation
		json.Unmarshal(raw, &o)
		url := strings.ReplaceAll(path, "{id}", "p1")
		for _, p := range o.Parameters {
			if p.In != "query" {
				continue
			}
			v, ok := samples[p.Name]
			if !ok {
				v = debtor
			}
			if r := e.do("admin", "GET", url+"?"+p.Name+"="+v, nil); r.status != 200 {
				t.Errorf("GET %s?%s=%s: %d %s", url, p.Name, v, r.status, r.body)
			}
		}
		if path == "/healthz" || path == "/v1/openapi.json" {
			continue
		}
		if r := e.do("admin", "GET", url+"?undocumented=1", nil); r.status != 400 {
			t.Errorf("GET %s?undocumented=1: %d, want 400", url, r.status)
		}
	}
}

// jsonFields lists the JSON names of a struct's fields, embedded ones
// included.
func jsonFields(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// TestOpenAPISchemas checks that every body schema names exactly the fields
// the handlers decode (and refuses others), that the answer schemas name
// exactly the fields the answers carry, and that every example request in
// the document decodes with the handlers' decoders.
func TestOpenAPISchemas(t *testing.T) {
	doc := loadDoc(t)
	bodies := map[string]any{"PromiseBody": PromiseBody{}, "RequestBody": RequestBody{}, "ProposalBody": ProposalBody{},
		"AmendBody": AmendBody{}, "AcceptBody": AcceptBody{}, "ProgressBody": ProgressBody{}, "ResolveBody": ResolveBody{},
		"AssessBody": AssessBody{}, "BindBody": BindBody{}}
	answers := map[string]any{"Receipt": ledgerReceipt, "Item": ledgerItem, "Page": ledgerPage, "Detail": ledgerDetail,
		"Inbox": ledgerInbox, "Briefing": ledgerBriefing, "BriefItem": ledgerBriefItem, "AgreementSet": ledgerAgreements,
		"CheckReport": ledgerCheck, "Issue": ledgerIssue, "EventRecord": ledgerEventRecord, "ExportDoc": ledgerExport,
		"EventsPage": EventsPage{}, "ImportResult": ImportResult{}, "WhoAmI": WhoAmI{}, "Health": Health{}, "Problem": Problem{},
		"ResolutionView": ledgerResolution, "AssessmentView": ledgerAssessment, "AmendView": ledgerAmend,
		"AcceptView": ledgerAccept, "ProgressView": ledgerProgress, "BindView": ledgerBind, "IgnoredView": ledgerIgnored}
	check := func(name string, v any, closed bool) {
		s, ok := doc.Comps.Schemas[name]
		if !ok {
			t.Errorf("no schema %s", name)
			return
		}
		var props []string
		for p := range s.Properties {
			props = append(props, p)
		}
		sort.Strings(props)
		if want := jsonFields(reflect.TypeOf(v)); !slices.Equal(props, want) {
			t.Errorf("schema %s names %v; the Go type %v", name, props, want)
		}
		if closed && (s.AdditionalProperties == nil || *s.AdditionalProperties) {
			t.Errorf("schema %s must say additionalProperties: false (the decoder refuses unknown fields)", name)
		}
	}
	for name, v := range bodies {
		check(name, v, true)
	}
	for name, v := range answers {
		check(name, v, false)
	}
	for name := range doc.Comps.Schemas {
		if _, ok := bodies[name]; !ok && answers[name] == nil && name != "EventBody" {
			t.Errorf("schema %s is checked against no Go type", name)
		}
	}
	examples := 0
	for path, ops := range doc.Paths {
		raw, ok := ops["post"]
		if !ok {
			continue
		}
		var o operation
		json.Unmarshal(raw, &o)
		for ctype, c := range o.RequestBody.Content {
			for name, ex := range c.Examples {
				examples++
				var err error
				switch path {
				case "/v1/promises":
					_, err = decodeCreate(ex.Value, fold.KindPromise)
				case "/v1/requests":
					_, err = decodeCreate(ex.Value, fold.KindRequest)
				case "/v1/proposals":
					_, err = decodeCreate(ex.Value, fold.KindAgreement)
				case "/v1/obligations/{id}/events":
					_, err = decodeEvent(ex.Value)
				case "/v1/import":
					var line string
					if err = json.Unmarshal(ex.Value, &line); err == nil && ctype != "application/x-ndjson" {
						t.Errorf("import example as %s", ctype)
					}
				default:
					t.Errorf("example %s for %s is not checked", name, path)
				}
				if err != nil {
					t.Errorf("example %s of %s does not decode: %v", name, path, err)
				}
			}
		}
	}
	if examples < 10 {
		t.Fatalf("only %d examples", examples)
	}
}
