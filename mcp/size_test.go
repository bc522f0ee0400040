package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

// Context budgets (issue 5): what every session pays for the tool list, and
// what a session start pays for the briefing.
const (
	toolsListBudget = 12 << 10
	primeBudget     = 2 << 10
	// primeResultBudget bounds the whole prime tool result an MCP host
	// receives: the text as content, and again in the structured content
	// ({seat, now, omitted, text}: no item lists).
	primeResultBudget = 2*primeBudget + 256
)

// TestContextCost measures the bytes of tools/list and of prime for a seat
// with 20 open obligations, and fails above the budgets.
func TestContextCost(t *testing.T) {
	api := newService(t)
	ctx := context.Background()
	texts := []string{
		"ship the quarterly inventory report with the regional breakdown",
		"review the pull request that moves the ledger to group commit",
		"answer the customer's question about the refund window",
		"rotate the staging database credentials and record where they live",
		"summarise yesterday's incident for the on-call handover",
	}
	for i := 0; i < 20; i++ {
		in := ledger.CreateInput{Text: texts[i%len(texts)], Until: fmt.Sprintf("+%dh", 2+i*5)}
		who := seatA
		switch i % 4 {
		case 0, 1: // desk/a owes
			in.Kind, in.By, in.To = fold.KindPromise, "desk/a", fmt.Sprintf("desk/peer-%d", i)
		case 2: // a request desk/a must answer
			who = seatB
			in.Kind, in.By, in.To = fold.KindRequest, "desk/a", "desk/b"
		case 3: // owed to desk/a
			who = seatB
			in.Kind, in.By, in.To = fold.KindPromise, "desk/b", "desk/a"
		}
		if _, err := api.Create(ctx, who, in); err != nil {
			t.Fatal(err)
		}
	}
	cs := connect(t, api, seatA, "")

	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	listBytes, _ := json.Marshal(list)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "prime"})
	if err != nil || res.IsError {
		t.Fatalf("prime: %v %v", err, res)
	}
	primeText := res.Content[0].(*sdk.TextContent).Text
	primeResult, _ := json.Marshal(res)
	br, err := api.Prime(ctx, seatA, ledger.Query{})
	if err != nil {
		t.Fatal(err)
	}
	open := len(br.Owes) + len(br.Requests) + len(br.Proposals) + len(br.Owed) + br.Omitted
	t.Logf("tools/list: %d bytes for %d tools (budget %d)", len(listBytes), len(list.Tools), toolsListBudget)
	t.Logf("prime for %d open obligations: text %d bytes (budget %d), %d shown, %d omitted; whole tool result with structured content %d bytes",
		open, len(primeText), primeBudget, open-br.Omitted, br.Omitted, len(primeResult))
	if open != 20 {
		t.Fatalf("the seat has %d open obligations, want 20", open)
	}
	if len(listBytes) > toolsListBudget {
		t.Errorf("tools/list is %d bytes, over the %d-byte budget", len(listBytes), toolsListBudget)
	}
	if len(primeText) > primeBudget {
		t.Errorf("prime text is %d bytes, over the %d-byte budget", len(primeText), primeBudget)
	}
	if len(primeResult) > primeResultBudget {
		t.Errorf("the prime tool result is %d bytes, over the %d-byte budget", len(primeResult), primeResultBudget)
	}
}
