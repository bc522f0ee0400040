package a2a_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/a2a"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

// listRecorder records the filters of the listings made through it.
type listRecorder struct {
	ledger.API
	filters []ledger.Filter
	listed  int
}

func (r *listRecorder) List(ctx context.Context, who pinki.Identity, f ledger.Filter) (ledger.Page, error) {
	p, err := r.API.List(ctx, who, f)
	r.filters = append(r.filters, f)
	r.listed += len(p.Items)
	return p, err
}

// GetTask by a task id asks the ledger for the obligations naming that task,
// instead of listing the whole ledger.
func TestGetTaskByTaskFilters(t *testing.T) {
	l := newFileLedger(t)
	ctx := context.Background()
	for i, task := range []string{"", "task-7", ""} {
		in := ledger.CreateInput{Kind: fold.KindPromise, ID: "p" + string(rune('1'+i)), Text: "review", By: reviewer, To: author,
			Until: "+2h", Task: task}
		if _, err := l.svc.Create(ctx, pinki.Identity{}, in); err != nil {
			t.Fatal(err)
		}
	}
	rec := &listRecorder{API: l.svc}
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.Handle("/a2a", a2a.NewServer(rec, bearerSeat))
	la := &ledgerAgent{fileLedger: l, srv: srv}

	res, _ := la.rpc(t, author, "GetTask", map[string]any{"id": "task-7"})
	if res.Error != nil {
		t.Fatalf("GetTask task-7: %+v", res.Error)
	}
	if len(rec.filters) != 1 || rec.filters[0].Task != "task-7" || rec.listed != 1 {
		t.Fatalf("listings %+v (%d items); want one, filtered by the task", rec.filters, rec.listed)
	}
	if res, _ := la.rpc(t, author, "GetTask", map[string]any{"id": "task-8"}); res.Error == nil {
		t.Fatal("GetTask task-8: found")
	}
}
