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

// TestAmendReopensAnExpiredProposal: a proposal whose window closed before
// both parties accepted can be amended to a later deadline (the parties then
// accept anew); an obligation expired because its antecedent ended stays
// ended.
func TestAmendReopensAnExpiredProposal(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)
	st, err := jsonl.Open(filepath.Join(t.TempDir(), "ledger.jsonl"), jsonl.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	svc := ledger.New(st, ledger.Options{Clock: func() time.Time { return now }})
	who := pinki.Identity{}
	mustCreate := func(in ledger.CreateInput) {
		t.Helper()
		if _, err := svc.Create(ctx, who, in); err != nil {
			t.Fatal(err)
		}
	}
	mustCreate(ledger.CreateInput{Kind: fold.KindAgreement, ID: "a1", Text: "terms", By: "alice", To: "bob", Until: "+1h"})
	mustCreate(ledger.CreateInput{Kind: fold.KindPromise, ID: "root", Text: "x", By: "carol", To: "alice", Until: "+1h"})
	mustCreate(ledger.CreateInput{Kind: fold.KindPromise, ID: "child", Text: "y", By: "alice", To: "bob", On: "root", Until: "+2h"})
	if _, err := svc.Resolve(ctx, who, ledger.ResolveInput{ID: "root", As: pinki.Cancelled, Reason: "dropped"}); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Hour) // the proposal's window has closed
	if d, _ := svc.Get(ctx, who, ledger.Query{ID: "a1"}); d.State != fold.Expired {
		t.Fatalf("a1 is %s, want expired", d.State)
	}
	r, err := svc.Amend(ctx, who, ledger.AmendInput{ID: "a1", Until: "+1d", Reason: "more time", By: "bob"})
	if err != nil || r.State != fold.Proposed {
		t.Fatalf("amend of the expired proposal: %+v, %v; want it proposed again", r, err)
	}
	if _, err := svc.Amend(ctx, who, ledger.AmendInput{ID: "child", Until: "+1d"}); pinki.ErrorCode(err) != pinki.CodeConflict {
		t.Fatalf("amend of an obligation whose antecedent was cancelled: %v, want a conflict", err)
	}
}
