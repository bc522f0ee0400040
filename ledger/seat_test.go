package ledger_test

import (
	"context"
	"strings"
	"testing"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

// TestPrimeShowsAcceptedProposals: a proposal the seat accepted and the
// other party has not is still open business for the seat: the briefing
// lists it in its own section, never as "nothing open".
func TestPrimeShowsAcceptedProposals(t *testing.T) {
	ctx := context.Background()
	_, open := ledgerFile(t)
	svc := open()
	alice := pinki.Identity{Seat: "alice", Role: pinki.RoleSeat}
	bob := pinki.Identity{Seat: "bob", Role: pinki.RoleSeat}
	if _, err := svc.Create(ctx, alice, ledger.CreateInput{Kind: fold.KindAgreement, ID: "deal", Text: "ship the report",
		By: "alice", To: "bob", Until: "+1d"}); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Accept(ctx, alice, ledger.AcceptInput{ID: "deal", Rev: 1}); err != nil {
		t.Fatal(err)
	}
	a, err := svc.Prime(ctx, alice, ledger.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Accepted) != 1 || a.Accepted[0].ID != "deal" || len(a.Proposals) != 0 {
		t.Fatalf("alice's briefing: accepted %+v, proposals %+v; want deal accepted, awaiting bob", a.Accepted, a.Proposals)
	}
	if !strings.Contains(a.Text, "proposals it accepted, awaiting the other party (1):") || strings.Contains(a.Text, "nothing open") {
		t.Fatalf("alice's briefing text:\n%s", a.Text)
	}
	b, err := svc.Prime(ctx, bob, ledger.Query{})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Proposals) != 1 || len(b.Accepted) != 0 {
		t.Fatalf("bob's briefing: proposals %+v, accepted %+v; want deal awaiting his acceptance", b.Proposals, b.Accepted)
	}
}
