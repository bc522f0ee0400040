// Package mcp is pinki's Model Context Protocol surface: the ledger's verbs as
// MCP tools, and the seat's briefing as a prompt and a resource, built on the
// official Go SDK (github.com/modelcontextprotocol/go-sdk).
//
// A server is bound to one seat when it is built. No tool takes an identity
// argument: the seat writes as itself, and an argument that names another
// seat as the writer (by, observer, seat, …) is refused with CodeForbidden.
// All rules live in the ledger service; this package only maps arguments to
// service calls and results (or refusals) back to tool results.
//
// The same server runs over stdio (pinki mcp) and over streamable HTTP
// (HTTPHandler, mounted by pinki serve at /mcp), stateful or stateless.
package mcp

import (
	"context"
	"fmt"
	"slices"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/ledger"
)

// Options configure a server. The zero value is fine.
type Options struct {
	// Version is reported as the server implementation's version.
	Version string
	// SDK, when set, is passed to the SDK's server (logging, page size,
	// supported protocol versions, …). Instructions are pinki's own and
	// override any set here.
	SDK *sdk.ServerOptions
}

// BriefingURI is the resource holding the bound seat's briefing text.
const BriefingURI = "pinki://briefing"

// BriefingPrompt is the name of the prompt holding the bound seat's briefing.
const BriefingPrompt = "briefing"

// NewServer returns an MCP server that acts as who: every tool writes and
// reads as that identity, through api. The server offers the tools listed
// in ToolNames, the prompt BriefingPrompt and the resource BriefingURI.
//
// Errors: a CodeInvalid *pinki.Error when who names no seat (a server with
// no seat would write with no authority checks at all).
func NewServer(api ledger.API, who pinki.Identity, opts *Options) (*sdk.Server, error) {
	if !who.Known() {
		return nil, pinki.Invalid("seat", "an MCP server acts as one seat: name it (pinki mcp --seat SEAT, or a token bound to a seat)")
	}
	if opts == nil {
		opts = &Options{}
	}
	var so sdk.ServerOptions
	if opts.SDK != nil {
		so = *opts.SDK
	}
	so.Instructions = fmt.Sprintf("pinki promise ledger, acting as seat %q. The tools record and read this seat's promises, requests and agreements; prime (also the %q prompt and %s) shows what it owes and is owed.", who.Seat, BriefingPrompt, BriefingURI)
	version := opts.Version
	if version == "" {
		version = "dev"
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "pinki", Title: "pinki promise ledger", Version: version}, &so)
	b := binding{api: api, who: who}
	for _, t := range tools {
		s.AddTool(t.tool, b.handler(t))
	}
	s.AddPrompt(&sdk.Prompt{
		Name:        BriefingPrompt,
		Title:       "pinki briefing",
		Description: fmt.Sprintf("What seat %s owes and is owed, for the start of a session.", who.Seat),
	}, func(ctx context.Context, _ *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		br, err := api.Prime(ctx, who, ledger.Query{})
		if err != nil {
			return nil, err
		}
		return &sdk.GetPromptResult{
			Description: "pinki briefing for " + who.Seat,
			Messages:    []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: br.Text}}},
		}, nil
	})
	s.AddResource(&sdk.Resource{
		URI:         BriefingURI,
		Name:        "briefing",
		Title:       "pinki briefing",
		Description: fmt.Sprintf("What seat %s owes and is owed, computed when read.", who.Seat),
		MIMEType:    "text/plain",
	}, func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		br, err := api.Prime(ctx, who, ledger.Query{})
		if err != nil {
			return nil, err
		}
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{
			{URI: BriefingURI, MIMEType: "text/plain", Text: br.Text},
		}}, nil
	})
	return s, nil
}

// ToolNames lists the server's tools, sorted (the order tools/list returns).
func ToolNames() []string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.tool.Name
	}
	slices.Sort(names)
	return names
}
