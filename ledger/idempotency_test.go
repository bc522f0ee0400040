package ledger_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/jsonl"
	"github.com/pinki-ledger/pinki/ledger"
)

func newService(t *testing.T) *ledger.Service {
	t.Helper()
	st, err := jsonl.Open(filepath.Join(t.TempDir(), "ledger.jsonl"), jsonl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	now := time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)
	return ledger.New(st, ledger.Options{Clock: func() time.Time { return now }})
}

// TestJSONValuesCompareAsValues: a retried request whose schema has its keys
// in another order, and a retried answer whose response has, are the same
// writes: idempotent, nothing appended.
func TestJSONValuesCompareAsValues(t *testing.T) {
	ctx := context.Background()
	svc := newService(t)
	in := ledger.CreateInput{Kind: fold.KindRequest, ID: "req-1", Text: "how many?", By: "inv", To: "ops",
		Until: "2026-09-01T14:00:00Z", SchemaID: "n.v1",
		Schema: []byte(`{"type":"object","properties":{"n":{"type":"integer"},"sku":{"type":"string"}}}`)}
	r, err := svc.Create(ctx, pinki.Identity{}, in)
	if err != nil || r.Idempotent {
		t.Fatalf("create: %+v %v", r, err)
	}
	in.Schema = []byte(`{ "properties": {"sku": {"type":"string"}, "n": {"type":"integer"}}, "type": "object" }`)
	again, err := svc.Create(ctx, pinki.Identity{}, in)
	if err != nil || !again.Idempotent || again.Digest != r.Digest {
		t.Fatalf("retried create with reordered schema: %+v %v", again, err)
	}
	answer := ledger.ResolveInput{ID: "req-1", As: pinki.Satisfied, Digest: r.Digest, SchemaID: "n.v1",
		Response: []byte(`{"n":4,"sku":"ABC"}`)}
	if _, err := svc.Resolve(ctx, pinki.Identity{}, answer); err != nil {
		t.Fatal(err)
	}
	answer.Response = []byte(`{"sku":"ABC", "n":4}`)
	res, err := svc.Resolve(ctx, pinki.Identity{}, answer)
	if err != nil || !res.Idempotent {
		t.Fatalf("retried answer with reordered keys: %+v %v", res, err)
	}
	answer.Response = []byte(`{"sku":"ABC","n":5}`)
	if _, err := svc.Resolve(ctx, pinki.Identity{}, answer); pinki.ErrorCode(err) != pinki.CodeConflict {
		t.Fatalf("a different answer: %v, want a conflict", err)
	}
}
