package httpapi

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/ledger"
)

// pageFailure fails every page of events after the first.
type pageFailure struct {
	ledger.API
	calls atomic.Int32
}

func (p *pageFailure) Events(ctx context.Context, who pinki.Identity, after int64, limit int) ([]ledger.EventRecord, int64, error) {
	if p.calls.Add(1) > 1 {
		return nil, after, pinki.Errorf(pinki.CodeUnavailable, "the store went away")
	}
	return p.API.Events(ctx, who, after, limit)
}

// /v1/export?format=events streams the ledger's lines; a page that fails
// once the 200 has gone out ends the body with a problem line, which is no
// ledger line.
func TestExportEventsEndsWithAProblem(t *testing.T) {
	e := newEnv(t, Options{})
	e.promise("p1")
	e.promise("p2")
	whole := e.do("admin", "GET", "/v1/export?format=events", nil)
	if whole.status != 200 || strings.Count(string(whole.body), "\n") != 2 || strings.Contains(string(whole.body), "problem") {
		t.Fatalf("export: %d %s", whole.status, whole.body)
	}

	failing := &pageFailure{API: e.svc}
	e.server.api = failing
	r := e.do("admin", "GET", "/v1/export?format=events", nil)
	lines := strings.Split(strings.TrimSuffix(string(r.body), "\n"), "\n")
	if r.status != 200 || len(lines) != 3 || lines[0]+"\n"+lines[1]+"\n" != string(whole.body) {
		t.Fatalf("export with a failing second page: %d\n%s", r.status, r.body)
	}
	var p Problem
	if err := json.Unmarshal([]byte(lines[2]), &p); err != nil || p.Code != "unavailable" || p.Status != 503 ||
		p.Type != "urn:pinki:problem:unavailable" || p.Detail != "the store went away" {
		t.Fatalf("last line %s: %+v %v", lines[2], p, err)
	}
	if _, err := pinki.DecodeLine([]byte(lines[2])); err == nil {
		t.Fatal("the problem line decodes as a ledger line")
	}
}
