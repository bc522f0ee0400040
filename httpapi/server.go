// Package httpapi is pinki's HTTP surface: a server that exposes ledger.API
// as a JSON API under /v1, with bearer tokens bound to seats, RFC 9457
// problem+json errors, a live event stream (server-sent events), Prometheus
// metrics and an OpenAPI 3.1 document; and a Client that implements
// ledger.API over that API, so that the CLI behaves the same against a local
// file and a server.
//
// The server holds no rule of the ledger: it authenticates the request,
// decodes it strictly, calls the service as the token's identity and writes
// the answer. Authority (who may declare, amend, resolve, read), validation,
// idempotency and revisions are the service's.
//
// Routes (openapi.json is the full contract; a test keeps the two equal):
//
//	GET  /healthz                      liveness, no token
//	GET  /metrics                      Prometheus text
//	GET  /v1/openapi.json              the OpenAPI 3.1 document, no token
//	GET  /v1/whoami                    the token's seat and role
//	POST /v1/promises                  create (201, or 200 when idempotent)
//	POST /v1/requests
//	POST /v1/proposals
//	GET  /v1/obligations               list: scope, state, by, to, party, kind, since, now, cursor, limit
//	GET  /v1/obligations/{id}          one, with its history (ids with '/' travel as %2F)
//	POST /v1/obligations/{id}/events   amend, accept, progress, resolve, assess, bind; optional rev
//	GET  /v1/inbox, /v1/prime, /v1/agreements   ?seat= (default: the token's), now
//	GET  /v1/export                    format json, jsonl or events
//	GET  /v1/check                     not for seat tokens
//	POST /v1/import                    admin tokens; ?append=true
//	GET  /v1/events                    ?after=N&limit=M
//	GET  /v1/events/stream             server-sent events; id = seq; Last-Event-ID resumes
package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/ledger"
	"github.com/pinki-ledger/pinki/tokens"
)

// Options configure a Server. Zero values take the defaults.
type Options struct {
	// MaxBody caps a request body. 0 means 1 MiB.
	MaxBody int64
	// MaxImport caps the body of POST /v1/import. 0 means 64 MiB.
	MaxImport int64
	// RequestTimeout bounds the work of one request (not of an event
	// stream). A write, once started, is not abandoned when its client goes
	// away; it is bounded by this timeout alone. 0 means 20s.
	RequestTimeout time.Duration
	// Heartbeat is the interval of comment lines on an idle event stream.
	// 0 means 15s.
	Heartbeat time.Duration
	// Poll is how often event streams look for new events when the API
	// cannot signal them (it is not a *ledger.Service). 0 means 1s.
	Poll time.Duration
	// Logf, if set, logs requests that fail with a 5xx status.
	Logf func(format string, args ...any)
	// UnknownLines, if set, is how many ledger lines the service could not
	// decode (see UnknownLines); when it is not 0, every answer carries it in
	// the Pinki-Unknown-Lines header, and the client reports it.
	UnknownLines func() int
}

// UnknownLinesHeader carries the number of ledger lines the server's
// service could not decode: a read that left them out is partial (exit 3).
const UnknownLinesHeader = "Pinki-Unknown-Lines"

func (o *Options) defaults() {
	if o.MaxBody <= 0 {
		o.MaxBody = 1 << 20
	}
	if o.MaxImport <= 0 {
		o.MaxImport = 64 << 20
	}
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = 20 * time.Second
	}
	if o.Heartbeat <= 0 {
		o.Heartbeat = 15 * time.Second
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
}

// Server is the HTTP API over a ledger.API. It is an http.Handler; Serve runs
// it with timeouts and graceful shutdown.
type Server struct {
	api    ledger.API
	tokens tokens.Store
	opts   Options
	mux    *http.ServeMux
	routes []route

	metrics *metrics
	hub     *hub

	drainOnce sync.Once
	draining  chan struct{} // closed when the server starts shutting down
}

// route is one entry of the route table: the mux pattern, whether it needs a
// token, and the handler.
type route struct {
	method, path string
	public       bool
	handle       func(w http.ResponseWriter, r *http.Request, who pinki.Identity) error
}

// NewServer returns a Server over api, authenticating with store. Give it a
// *ledger.Service made with ledger.Options{Follow: true}: reads are then
// answered from the service's fold, and event streams wake up as soon as the
// store grows. Close it (or let Serve drain it) to end event streams.
func NewServer(api ledger.API, store tokens.Store, opts Options) *Server {
	opts.defaults()
	s := &Server{api: api, tokens: store, opts: opts, mux: http.NewServeMux(),
		metrics: newMetrics(), draining: make(chan struct{})}
	s.hub = newHub(api, opts.Poll, s.draining)
	s.routes = []route{
		{"GET", "/healthz", true, s.health},
		{"GET", "/metrics", false, s.serveMetrics},
		{"GET", "/v1/openapi.json", true, s.openAPI},
		{"GET", "/v1/whoami", false, s.whoami},
		{"POST", "/v1/promises", false, s.createPromise},
		{"POST", "/v1/requests", false, s.createRequest},
		{"POST", "/v1/proposals", false, s.createProposal},
		{"GET", "/v1/obligations", false, s.list},
		{"GET", "/v1/obligations/{id}", false, s.get},
		{"POST", "/v1/obligations/{id}/events", false, s.appendEvent},
		{"GET", "/v1/inbox", false, s.inbox},
		{"GET", "/v1/prime", false, s.prime},
		{"GET", "/v1/agreements", false, s.agreements},
		{"GET", "/v1/export", false, s.export},
		{"GET", "/v1/check", false, s.check},
		{"POST", "/v1/import", false, s.importEvents},
		{"GET", "/v1/events", false, s.events},
		{"GET", "/v1/events/stream", false, s.stream},
	}
	for _, rt := range s.routes {
		s.mux.Handle(rt.method+" "+rt.path, s.wrap(rt))
	}
	s.mux.HandleFunc("/", s.unmatched)
	return s
}

// unmatched answers a request no route takes: 405 with Allow when the path
// is served for other methods, else 404.
func (s *Server) unmatched(w http.ResponseWriter, r *http.Request) {
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodPost} {
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "/" {
			allow = append(allow, m)
		}
	}
	var status int
	if len(allow) > 0 {
		w.Header().Set("Allow", strings.Join(allow, ", "))
		p := ProblemOf(&pinki.Error{Code: pinki.CodeInvalid, Field: "method",
			Message: r.Method + " is not allowed on " + r.URL.Path + ": use " + strings.Join(allow, " or ")})
		p.Status, p.Title = http.StatusMethodNotAllowed, http.StatusText(http.StatusMethodNotAllowed)
		status = sendProblem(w, p)
	} else {
		status = WriteProblem(w, (&pinki.Error{Code: pinki.CodeNotFound, Field: "path",
			Message: "no such endpoint: " + r.Method + " " + r.URL.Path}).
			WithHint("GET /v1/openapi.json describes the API"))
	}
	s.metrics.observe("unmatched", status, 0)
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Drain makes event streams end and new ones refuse; requests in flight
// finish. Serve calls it when shutdown begins. It is safe to call twice.
func (s *Server) Drain() { s.drainOnce.Do(func() { close(s.draining) }) }

// Close drains the server and stops its background work.
func (s *Server) Close() { s.Drain(); s.hub.stop() }

// statusWriter records the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (flush, write
// deadlines) through the wrapper.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// wrap authenticates (unless the route is public), runs the handler, writes
// its error as a problem, and records the request in the metrics.
func (s *Server) wrap(rt route) http.Handler {
	name := rt.method + " " + rt.path
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		if s.opts.UnknownLines != nil {
			if n := s.opts.UnknownLines(); n > 0 {
				w.Header().Set(UnknownLinesHeader, strconv.Itoa(n))
			}
		}
		err := s.serve(sw, r, rt)
		if err != nil && sw.status == 0 {
			WriteProblem(sw, err)
		}
		if sw.status == 0 {
			sw.WriteHeader(http.StatusOK)
		}
		if sw.status >= 500 && s.opts.Logf != nil {
			s.opts.Logf("pinki serve: %s %s: %d: %v", r.Method, r.URL.Path, sw.status, err)
		}
		s.metrics.observe(name, sw.status, time.Since(start))
	})
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request, rt route) error {
	var who pinki.Identity
	if !rt.public {
		var err error
		if who, err = s.authenticate(r); err != nil {
			return err
		}
	}
	return rt.handle(w, r, who)
}

// Authenticate returns the identity of the request's bearer token, exactly as
// the server authenticates its own routes: for the other surfaces mounted
// beside it (MCP at /mcp, A2A at /a2a), so that one token means the same
// seat everywhere.
//
// Errors: as authenticate.
func (s *Server) Authenticate(r *http.Request) (pinki.Identity, error) { return s.authenticate(r) }

// authenticate returns the identity of the request's bearer token.
//
// Errors: CodeUnauthenticated for a missing, malformed, unknown or revoked
// token; CodeUnavailable when the token store cannot be read.
func (s *Server) authenticate(r *http.Request) (pinki.Identity, error) {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if h == "" {
		return pinki.Identity{}, (&pinki.Error{Code: pinki.CodeUnauthenticated, Field: "token",
			Message: "no bearer token: every request needs Authorization: Bearer TOKEN"}).
			WithHint("`pinki token add --seat SEAT` prints a token; the CLI sends $PINKI_TOKEN")
	}
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return pinki.Identity{}, pinki.Errorf(pinki.CodeUnauthenticated, "the Authorization header must be Bearer TOKEN")
	}
	who, err := s.tokens.Lookup(r.Context(), strings.TrimSpace(token))
	if err != nil {
		return pinki.Identity{}, pinki.AsError(err)
	}
	return who, nil
}

// writeJSON writes v as JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return pinki.Errorf(pinki.CodeInternal, "cannot encode the answer: %v", err)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, err = w.Write(append(b, '\n'))
	return err
}

// readCtx bounds a read by the request timeout; the client going away ends it.
func (s *Server) readCtx(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(r.Context(), s.opts.RequestTimeout)
}

// writeCtx bounds a write by the request timeout alone: a write the server
// has started is finished even when the client goes away or the server is
// shutting down, so that its outcome is decided and recorded.
func (s *Server) writeCtx(r *http.Request) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(r.Context()), s.opts.RequestTimeout)
}

func (s *Server) health(w http.ResponseWriter, r *http.Request, _ pinki.Identity) error {
	return writeJSON(w, http.StatusOK, Health{Status: "ok"})
}

func (s *Server) whoami(w http.ResponseWriter, r *http.Request, who pinki.Identity) error {
	if err := newQuery(r).done(); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, WhoAmI{Seat: who.Seat, Role: who.Role})
}

// receipt writes a write's receipt: 201 with a Location for a new
// obligation, 200 otherwise (and for an idempotent repeat).
func (s *Server) receipt(w http.ResponseWriter, rc ledger.Receipt, created bool) error {
	if !rc.Idempotent {
		s.hub.broadcast()
	}
	status := http.StatusOK
	if created && !rc.Idempotent {
		status = http.StatusCreated
		w.Header().Set("Location", "/v1/obligations/"+pathEscape(rc.ID))
	}
	return writeJSON(w, status, rc)
}
