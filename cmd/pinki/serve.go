package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/a2a"
	"github.com/pinki-ledger/pinki/httpapi"
	"github.com/pinki-ledger/pinki/ledger"
	"github.com/pinki-ledger/pinki/mcp"
	"github.com/pinki-ledger/pinki/tokens"
)

func (a *app) serveCommand() *cobra.Command {
	var o serveOptions
	cmd := storeSide(&cobra.Command{
		Use:   "serve [--listen 127.0.0.1:7447] [--public-url URL] [--addr-file FILE]",
		Short: "Serve the ledger over HTTP: the JSON API, MCP at /mcp, A2A at /a2a",
		Long: `Serve the ledger (the file ledger, or PostgreSQL with --store postgres://…
or $PINKI_STORE) over HTTP until interrupted:

  /v1/…                            the JSON API (pinki --server URL talks to it)
  /mcp                             the MCP tools over streamable HTTP (stateless)
  /a2a                             the A2A v1.0 JSON-RPC endpoint
  /.well-known/agent-card.json     the ledger's A2A agent card
  /healthz, /metrics, /v1/openapi.json

Every request but the card, /healthz and the OpenAPI document needs a bearer
token (pinki token add --seat SEAT), and acts as the token's seat. The tokens
are the file beside the file ledger (.pinki/tokens.json), or the tokens
table of the PostgreSQL store. Several servers on one database are one
ledger.

Prints "pinki: serving on http://ADDR" on stderr once it listens (with
--listen 127.0.0.1:0, ADDR has the port it was given); --addr-file also
writes http://ADDR to a file. SIGINT or SIGTERM stop it: it stops taking
connections, finishes the requests in flight (writes included) and exits 0.

--now fixes the server's clock (tests and demos): every write is stamped
with it and states are computed at it.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.serve(o)
		},
	})
	f := cmd.Flags()
	f.StringVar(&o.listen, "listen", httpapi.DefaultListen, "the address to listen on, HOST:PORT (port 0: any free port)")
	f.StringVar(&o.publicURL, "public-url", "", "the URL clients reach the server at, for the agent card (default: http://ADDR)")
	f.StringVar(&o.addrFile, "addr-file", "", "write http://ADDR to this file once listening (removed at exit)")
	return cmd
}

// serveOptions are serve's flags.
type serveOptions struct {
	listen    string
	publicURL string
	addrFile  string
}

// served is what a server serves: the ledger's store and tokens, where they
// are, and how to let them go.
type served struct {
	store    pinki.Store
	tokens   tokens.Store
	ledger   string
	tokensAt string
	close    func()
}

// openServed opens the store and the token store serve works on.
func (a *app) openServed() (*served, error) {
	if a.at == inStore {
		store, err := a.openPostgres(0)
		if err != nil {
			return nil, err
		}
		where := redact(a.url)
		return &served{store: store, tokens: store.Tokens(a.clock()), ledger: where, tokensAt: where + " (tokens table)",
			close: func() { store.Close() }}, nil
	}
	path := a.ledgerPath(true)
	store, err := a.openJSONL(path)
	if err != nil {
		return nil, err
	}
	tokPath := tokensPath(path)
	return &served{store: store, tokens: tokens.OpenFile(tokPath, a.clock()), ledger: path, tokensAt: tokPath,
		close: func() { store.Close() }}, nil
}

// publicBase checks --public-url: an absolute http(s) URL without a query.
//
// Errors: CodeInvalid.
func publicBase(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", (&pinki.Error{Code: pinki.CodeInvalid, Field: "public-url",
			Message: "--public-url " + quote(raw) + " is not an http:// or https:// URL without credentials, query or fragment"}).
			WithHint("such as https://ledger.example.org")
	}
	return strings.TrimRight(u.String(), "/"), nil
}

// serve runs the server until interrupted.
func (a *app) serve(o serveOptions) error {
	base := ""
	if o.publicURL != "" {
		var err error
		if base, err = publicBase(o.publicURL); err != nil {
			return err
		}
	}
	ctx, stop := a.interruptible()
	defer stop()
	sv, err := a.openServed()
	if err != nil {
		return err
	}
	defer sv.close()

	unknown := &httpapi.UnknownLines{}
	var mu sync.Mutex
	warned := map[int64]bool{}
	opts := ledger.Options{Follow: true, Clock: a.clock(),
		OnUnknownLine: func(seq int64, raw []byte, err error) {
			unknown.Record(seq, raw, err)
			mu.Lock()
			first := !warned[seq]
			warned[seq] = true
			mu.Unlock()
			if first {
				a.warn("%s line %d: %v", sv.ledger, seq, err)
			}
		}}
	svc := ledger.New(sv.store, opts)
	defer svc.Close()
	if err := svc.Sync(ctx); err != nil { // fold the ledger before taking requests
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	api := httpapi.NewServer(svc, sv.tokens, httpapi.Options{UnknownLines: unknown.Count,
		Logf: func(format string, args ...any) { fmt.Fprintf(a.stderr, format+"\n", args...) }})
	defer api.Close()

	ln, err := httpapi.Listen(o.listen)
	if err != nil {
		return err
	}
	addr := "http://" + ln.Addr().String()
	if base == "" {
		base = addr
	}
	h := newServeHandler(svc, api, base)
	a.note("serving on %s", addr)
	a.note("ledger %s, tokens %s", sv.ledger, sv.tokensAt)
	if list, err := sv.tokens.List(ctx); err == nil && len(list) == 0 {
		a.note("no tokens yet, and every request needs one: `pinki token add --seat SEAT` makes one")
	}
	if o.addrFile != "" {
		if err := writeAddrFile(o.addrFile, addr); err != nil {
			ln.Close()
			return err
		}
		defer os.Remove(o.addrFile)
	}
	if err := httpapi.Serve(ctx, ln, h, httpapi.ServeOptions{}); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return pinki.Errorf(pinki.CodeUnavailable, "requests still in flight when the shutdown timed out were cut off")
		}
		return pinki.Errorf(pinki.CodeUnavailable, "serving on %s failed: %v", addr, err)
	}
	a.note("stopped serving on %s", addr)
	return nil
}

// serveHandler is everything serve mounts: the HTTP API at /, MCP at /mcp,
// A2A at /a2a and the agent card at its well-known path. Its Drain (which
// httpapi.Serve calls when shutdown begins) ends the API's event streams.
type serveHandler struct {
	mux *http.ServeMux
	api *httpapi.Server
}

// newServeHandler mounts the surfaces over svc. MCP and A2A authenticate
// with the API's own token check (one token, one seat everywhere); MCP is
// stateless streamable HTTP (every protocol revision, 2026-07-28 included)
// and answers refusals as the API does.
func newServeHandler(svc *ledger.Service, api *httpapi.Server, base string) *serveHandler {
	mux := http.NewServeMux()
	mux.Handle("/", api)
	mux.Handle("/mcp", mcp.HTTPHandler(svc, api.Authenticate, &mcp.HTTPOptions{
		Server:     mcp.Options{Version: version},
		Streamable: sdk.StreamableHTTPOptions{Stateless: true},
		Refuse:     func(w http.ResponseWriter, err error) { httpapi.WriteProblem(w, err) },
	}))
	mux.Handle(a2a.WellKnownCard, a2a.CardHandler(a2a.ServerCard(a2a.CardOptions{BaseURL: base, Version: version})))
	mux.Handle("/a2a", a2a.NewServer(svc, api.Authenticate))
	return &serveHandler{mux: mux, api: api}
}

func (h *serveHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) { h.mux.ServeHTTP(w, r) }

// Drain ends the API's event streams.
func (h *serveHandler) Drain() { h.api.Drain() }

// writeAddrFile writes the server's URL to path atomically (a reader never
// sees half of it).
//
// Errors: CodeUnavailable when it cannot be written.
func writeAddrFile(path, addr string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".pinki-addr-*")
	if err == nil {
		_, err = tmp.WriteString(addr + "\n")
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), path)
		}
		if err != nil {
			os.Remove(tmp.Name())
		}
	}
	if err != nil {
		return pinki.Errorf(pinki.CodeUnavailable, "cannot write --addr-file %s: %v", path, err)
	}
	return nil
}
