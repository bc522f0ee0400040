package ledger

import (
	"context"

	"github.com/pinki-ledger/pinki"
)

// API is the service as every surface sees it. *Service implements it over a
// store; the HTTP client implements it over a pinki server, so that the CLI
// gives the same output and exit codes against a local file and a server.
// who is the identity the caller acts as; a client over HTTP ignores it (the
// server takes identity from the bearer token).
type API interface {
	Create(ctx context.Context, who pinki.Identity, in CreateInput) (Receipt, error)
	Amend(ctx context.Context, who pinki.Identity, in AmendInput) (Receipt, error)
	Accept(ctx context.Context, who pinki.Identity, in AcceptInput) (Receipt, error)
	Progress(ctx context.Context, who pinki.Identity, in ProgressInput) (Receipt, error)
	Resolve(ctx context.Context, who pinki.Identity, in ResolveInput) (Receipt, error)
	Assess(ctx context.Context, who pinki.Identity, in AssessInput) (Receipt, error)
	Bind(ctx context.Context, who pinki.Identity, in BindInput) (Receipt, error)

	Get(ctx context.Context, who pinki.Identity, q Query) (Detail, error)
	List(ctx context.Context, who pinki.Identity, f Filter) (Page, error)
	Inbox(ctx context.Context, who pinki.Identity, q Query) (Inbox, error)
	Prime(ctx context.Context, who pinki.Identity, q Query) (Briefing, error)
	Agreements(ctx context.Context, who pinki.Identity, q Query) (AgreementSet, error)
	Export(ctx context.Context, who pinki.Identity, f Filter) (ExportDoc, error)
	Check(ctx context.Context, who pinki.Identity) (CheckReport, error)
	Events(ctx context.Context, who pinki.Identity, after int64, limit int) ([]EventRecord, int64, error)
	Import(ctx context.Context, who pinki.Identity, events []pinki.Event, add bool) (int, error)
}

var _ API = (*Service)(nil)
