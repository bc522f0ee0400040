package mcp

import (
	"context"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/httpapi"
	"github.com/pinki-ledger/pinki/ledger"
)

// Authenticator tells who a request acts as: typically the seat its bearer
// token is bound to. It returns a *pinki.Error with CodeUnauthenticated for a
// missing or invalid credential (answered 401), CodeForbidden for a valid
// one that may not use MCP (403); any other error is answered with its
// code's status. An identity with no seat is answered 403.
type Authenticator func(r *http.Request) (pinki.Identity, error)

// HTTPOptions configure HTTPHandler. The zero value serves stateful
// sessions.
type HTTPOptions struct {
	// Server configures each seat's server.
	Server Options
	// Streamable configures the SDK's streamable HTTP handler. Set
	// Streamable.Stateless to serve every request on its own (the
	// 2026-07-28 protocol revision needs it; older revisions work both
	// ways).
	Streamable sdk.StreamableHTTPOptions
	// Refuse, if set, writes the answer to a request the authenticator
	// refused, so that a server can answer /mcp as it answers its other
	// endpoints. The default writes an RFC 9457 problem document carrying
	// the pinki code.
	Refuse func(w http.ResponseWriter, err error)
}

// HTTPHandler returns the MCP server as a streamable HTTP handler (mount it at
// /mcp). Every request is authenticated with authn and served by the server
// bound to that identity (one per identity, built on first use). A stateful
// session belongs to the identity that opened it: a request carrying its
// session id with another identity is refused (403) by the SDK.
//
// Errors: authentication failures are answered by HTTPOptions.Refuse (by
// default application/problem+json with the pinki code, see Authenticator);
// everything else is the SDK's.
func HTTPHandler(api ledger.API, authn Authenticator, opts *HTTPOptions) http.Handler {
	h := &httpHandler{api: api, authn: authn, servers: make(map[pinki.Identity]*sdk.Server)}
	if opts != nil {
		h.opts = *opts
	}
	if h.opts.Refuse == nil {
		h.opts.Refuse = problem
	}
	streamable := sdk.NewStreamableHTTPHandler(h.server, &h.opts.Streamable)
	// The SDK binds a stateful session to TokenInfo.UserID and checks it on
	// every later request; RequireBearerToken is the only way to put a
	// TokenInfo in the request context, so the request reaches it carrying
	// a placeholder token and the verifier answers with the identity this
	// handler already authenticated.
	h.next = auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		who, _ := ctx.Value(identityKey{}).(pinki.Identity)
		return &auth.TokenInfo{UserID: string(who.Role) + "\n" + who.Seat}, nil
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(streamable)
	return h
}

type identityKey struct{}

type httpHandler struct {
	api   ledger.API
	authn Authenticator
	opts  HTTPOptions
	next  http.Handler

	mu      sync.Mutex
	servers map[pinki.Identity]*sdk.Server
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	who, err := h.authn(r)
	if err == nil && !who.Known() {
		err = pinki.Errorf(pinki.CodeForbidden, "an MCP session acts as one seat, and this credential is bound to none")
	}
	if err != nil {
		h.opts.Refuse(w, err)
		return
	}
	r = r.Clone(context.WithValue(r.Context(), identityKey{}, who))
	r.Header.Set("Authorization", "Bearer pinki")
	h.next.ServeHTTP(w, r)
}

// server returns the server bound to the request's identity.
func (h *httpHandler) server(r *http.Request) *sdk.Server {
	who, ok := r.Context().Value(identityKey{}).(pinki.Identity)
	if !ok {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.servers[who]
	if s == nil {
		s, _ = NewServer(h.api, who, &h.opts.Server) // who is known: no error
		h.servers[who] = s
	}
	return s
}

// problem writes err as an RFC 9457 problem document carrying the pinki
// code, field, hint and details, with the status pinki's HTTP API answers
// that code with (httpapi.Status: one mapping for every HTTP surface).
func problem(w http.ResponseWriter, err error) { httpapi.WriteProblem(w, err) }
