package mcp_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
	"github.com/pinki-ledger/pinki/mcp"
)

// The list tool pages: 50 items unless the model asks for another size (at
// most 200), with the cursor to the next page; without debtor or creditor
// it lists the bound seat's own obligations, even for a seat that may read
// the whole ledger (pinki mcp over a local file).
func TestListPages(t *testing.T) {
	api := newService(t)
	ctx := context.Background()
	local := pinki.Identity{}
	for i := range 60 {
		in := ledger.CreateInput{Kind: fold.KindPromise, ID: fmt.Sprintf("a-%02d", i), Text: "x", By: "desk/a", To: "desk/b", Until: "+1d"}
		if i%2 == 1 {
			in.By, in.To = "desk/b", "desk/a"
		}
		if _, err := api.Create(ctx, local, in); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 5 {
		in := ledger.CreateInput{Kind: fold.KindPromise, ID: fmt.Sprintf("c-%d", i), Text: "x", By: "desk/b", To: "desk/c", Until: "+1d"}
		if _, err := api.Create(ctx, local, in); err != nil {
			t.Fatal(err)
		}
	}
	a := newCaller(t, connect(t, api, pinki.Identity{Seat: "desk/a"}, ""))

	first := a.ok("list", nil)
	items, _ := first["items"].([]any)
	next, _ := first["next"].(float64)
	if len(items) != mcp.DefaultListPage || next == 0 {
		t.Fatalf("first page: %d items, next %v; want %d and a cursor", len(items), first["next"], mcp.DefaultListPage)
	}
	rest := a.ok("list", map[string]any{"after": next})
	if items, _ := rest["items"].([]any); len(items) != 10 || rest["next"] != nil {
		t.Fatalf("second page: %d items, next %v; want the 10 left and no cursor", len(items), rest["next"])
	}
	if l := a.ok("list", map[string]any{"limit": mcp.MaxListPage}); len(l["items"].([]any)) != 60 {
		t.Fatalf("limit %d: %d items, want the seat's 60", mcp.MaxListPage, len(l["items"].([]any)))
	}
	if l := a.ok("list", map[string]any{"creditor": "desk/c", "limit": 3}); len(l["items"].([]any)) != 3 || l["next"] == nil {
		t.Fatalf("creditor desk/c: %v", l)
	}
	a.refused("list", map[string]any{"limit": mcp.MaxListPage + 1}, pinki.CodeInvalid)
}
