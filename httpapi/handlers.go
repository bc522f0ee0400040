package httpapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

func (c createFields) input(kind fold.Kind, text string) ledger.CreateInput {
	return ledger.CreateInput{Kind: kind, ID: c.ID, Text: text, By: c.By, To: c.To, On: c.On, Until: c.Until,
		Task: c.Task, Lapse: c.Lapse, Meta: c.Meta, Target: c.Target}
}

// decodeCreate reads and decodes a creation body and returns the input it
// names.
func decodeCreate(body []byte, kind fold.Kind) (ledger.CreateInput, error) {
	switch kind {
	case fold.KindPromise:
		var b PromiseBody
		if err := decodeStrict(body, &b, "a promise"); err != nil {
			return ledger.CreateInput{}, err
		}
		return b.input(kind, b.Promise), nil
	case fold.KindRequest:
		var b RequestBody
		if err := decodeStrict(body, &b, "a request"); err != nil {
			return ledger.CreateInput{}, err
		}
		in := b.input(kind, b.Promise)
		in.Schema, in.SchemaID = b.Schema, b.SchemaID
		return in, nil
	default:
		var b ProposalBody
		if err := decodeStrict(body, &b, "a proposal"); err != nil {
			return ledger.CreateInput{}, err
		}
		in := b.input(kind, b.Terms)
		in.Proposer = b.Proposer
		return in, nil
	}
}

func (s *Server) create(w http.ResponseWriter, r *http.Request, who pinki.Identity, kind fold.Kind) error {
	body, err := readBody(w, r, s.opts.MaxBody)
	if err != nil {
		return err
	}
	in, err := decodeCreate(body, kind)
	if err != nil {
		return err
	}
	ctx, cancel := s.writeCtx(r)
	defer cancel()
	rc, err := s.api.Create(ctx, who, in)
	if err != nil {
		return err
	}
	return s.receipt(w, rc, true)
}

func (s *Server) createPromise(w http.ResponseWriter, r *http.Request, who pinki.Identity) error {
	return s.create(w, r, who, fold.KindPromise)
}

func (s *Server) createRequest(w http.ResponseWriter, r *http.Request, who pinki.Identity) error {
	return s.create(w, r, who, fold.KindRequest)
}

func (s *Server) createProposal(w http.ResponseWriter, r *http.Request, who pinki.Identity) error {
	return s.create(w, r, who, fold.KindAgreement)
}

// decodeEvent decodes an event body: its "type" picks the body, which is then
// decoded strictly.
func decodeEvent(body []byte) (any, error) {
	var head struct {
		Type json.RawMessage `json:"type"`
	}
	if err := json.Unmarshal(body, &head); err != nil {
		return nil, decodeStrict(body, &struct{}{}, "an event")
	}
	var typ string
	if len(head.Type) == 0 {
		return nil, pinki.Invalid("type", "type is missing: one of amend, accept, progress, resolve, assess, bind")
	}
	if err := json.Unmarshal(head.Type, &typ); err != nil {
		return nil, pinki.Invalid("type", "type must be a string, not %s", head.Type)
	}
	mk, ok := eventBodies[typ]
	if !ok {
		return nil, pinki.Invalid("type", "type %q must be amend, accept, progress, resolve, assess or bind", typ)
	}
	v := mk()
	if err := decodeStrict(body, v, "an "+typ+" event"); err != nil {
		return nil, err
	}
	return v, nil
}

func (s *Server) appendEvent(w http.ResponseWriter, r *http.Request, who pinki.Identity) error {
	id := r.PathValue("id")
	body, err := readBody(w, r, s.opts.MaxBody)
	if err != nil {
		return err
	}
	v, err := decodeEvent(body)
	if err != nil {
		return err
	}
	ctx, cancel := s.writeCtx(r)
	defer cancel()
	var rc ledger.Receipt
	switch b := v.(type) {
	case *AmendBody:
		rc, err = s.api.Amend(ctx, who, ledger.AmendInput{ID: id, Until: b.Until, Reason: b.Reason, Meta: b.Meta, Rev: b.Rev})
	case *AcceptBody:
		rc, err = s.api.Accept(ctx, who, ledger.AcceptInput{ID: id, Rev: b.Rev, Meta: b.Meta})
	case *ProgressBody:
		rc, err = s.api.Progress(ctx, who, ledger.ProgressInput{ID: id, Phase: b.Phase, Note: b.Note, Meta: b.Meta, Rev: b.Rev})
	case *ResolveBody:
		rc, err = s.api.Resolve(ctx, who, ledger.ResolveInput{ID: id, As: b.As, Evidence: b.Evidence, Reason: b.Reason,
			Response: b.Response, SchemaID: b.SchemaID, Digest: b.Digest, Meta: b.Meta, Rev: b.Rev})
	case *AssessBody:
		rc, err = s.api.Assess(ctx, who, ledger.AssessInput{ID: id, State: b.State, Note: b.Note, Meta: b.Meta, Rev: b.Rev})
	case *BindBody:
		rc, err = s.api.Bind(ctx, who, ledger.BindInput{ID: id, Target: b.Target, Meta: b.Meta, Rev: b.Rev})
	}
	if err != nil {
		return err
	}
	return s.receipt(w, rc, false)
}

// query is a request's query string, parsed strictly: each parameter a
// handler reads is checked, and any it does not know is refused.
type query struct {
	v    url.Values
	used map[string]bool
	err  error
}

func newQuery(r *http.Request) *query {
	return &query{v: r.URL.Query(), used: map[string]bool{}}
}

func (q *query) fail(err error) {
	if q.err == nil {
		q.err = err
	}
}

func (q *query) str(name string) string {
	q.used[name] = true
	vs := q.v[name]
	if len(vs) > 1 {
		q.fail(pinki.Invalid(name, "%s is given %d times: give it once", name, len(vs)))
	}
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

func (q *query) list(name string) []string {
	q.used[name] = true
	var out []string
	for _, v := range q.v[name] {
		for _, part := range strings.Split(v, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}

func (q *query) int(name string, def, lo, hi int64) int64 {
	v := q.str(name)
	if v == "" {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < lo || n > hi {
		q.fail(pinki.Invalid(name, "%s %q must be an integer from %d to %d", name, v, lo, hi))
		return def
	}
	return n
}

func (q *query) time(name string) time.Time {
	v := q.str(name)
	if v == "" {
		return time.Time{}
	}
	t, err := pinki.ParseTime(v)
	if err != nil {
		q.fail(pinki.Invalid(name, "%s %q is not an RFC 3339 instant with a zone", name, v))
	}
	return t
}

func (q *query) bool(name string) bool {
	switch v := q.str(name); v {
	case "", "false", "0":
		return false
	case "true", "1":
		return true
	default:
		q.fail(pinki.Invalid(name, "%s %q must be true or false", name, v))
		return false
	}
}

// done reports the first error, or an unknown parameter.
func (q *query) done() error {
	if q.err != nil {
		return q.err
	}
	for name := range q.v {
		if !q.used[name] {
			return pinki.Invalid(name, "unknown query parameter %q", name)
		}
	}
	return nil
}

// MaxPage is the largest page GET /v1/obligations returns; DefaultPage is
// the size of a page when no limit is given.
const (
	MaxPage     = 1000
	DefaultPage = 100
)

// filter parses the listing and export filters: scope, state, by, to,
// party, kind, since, bound (only obligations with a bind or an A2A task),
// task (only those naming this A2A task id) and now. A bad value is
// recorded as the query's error (CodeInvalid), reported by done.
func (q *query) filter() ledger.Filter {
	var f ledger.Filter
	switch v := q.str("scope"); v {
	case "", "open":
		f.Scope = ledger.ScopeOpen
	case "overdue":
		f.Scope = ledger.ScopeOverdue
	case "all":
		f.Scope = ledger.ScopeAll
	default:
		q.fail(pinki.Invalid("scope", "scope %q must be open, overdue or all", v))
	}
	for _, st := range q.list("state") {
		f.States = append(f.States, fold.State(st))
	}
	f.By, f.To, f.Party = q.str("by"), q.str("to"), q.str("party")
	switch v := q.str("kind"); v {
	case "":
	case "promise":
		f.Kind = fold.KindPromise
	case "request":
		f.Kind = fold.KindRequest
	case "agreement":
		f.Kind = fold.KindAgreement
	default:
		q.fail(pinki.Invalid("kind", "kind %q must be promise, request or agreement", v))
	}
	if t := q.time("since"); !t.IsZero() {
		f.Since = t.UnixNano()
	}
	f.Bound = q.bool("bound")
	f.Task = q.str("task")
	f.Now = q.time("now")
	return f
}

func (s *Server) list(w http.ResponseWriter, r *http.Request, who pinki.Identity) error {
	q := newQuery(r)
	f := q.filter()
	f.After = q.int("cursor", 0, 0, 1<<62)
	f.Limit = int(q.int("limit", DefaultPage, 1, MaxPage))
	if err := q.done(); err != nil {
		return err
	}
	ctx, cancel := s.readCtx(r)
	defer cancel()
	page, err := s.api.List(ctx, who, f)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, page)
}

func (s *Server) get(w http.ResponseWriter, r *http.Request, who pinki.Identity) error {
	q := newQuery(r)
	now := q.time("now")
	if err := q.done(); err != nil {
		return err
	}
	ctx, cancel := s.readCtx(r)
	defer cancel()
	d, err := s.api.Get(ctx, who, ledger.Query{ID: r.PathValue("id"), Now: now})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, d)
}

// seatQuery parses ?seat=&now= (seat defaults to the token's, in the
// service).
func seatQuery(r *http.Request) (ledger.Query, error) {
	q := newQuery(r)
	lq := ledger.Query{Seat: q.str("seat"), Now: q.time("now")}
	return lq, q.done()
}

func (s *Server) inbox(w http.ResponseWriter, r *http.Request, who pinki.Identity) error {
	lq, err := seatQuery(r)
	if err != nil {
		return err
	}
	ctx, cancel := s.readCtx(r)
	defer cancel()
	in, err := s.api.Inbox(ctx, who, lq)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, in)
}

func (s *Server) prime(w http.ResponseWriter, r *http.Request, who pinki.Identity) error {
	lq, err := seatQuery(r)
	if err != nil {
		return err
	}
	ctx, cancel := s.readCtx(r)
	defer cancel()
	b, err := s.api.Prime(ctx, who, lq)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, b)
}

func (s *Server) agreements(w http.ResponseWriter, r *http.Request, who pinki.Identity) error {
	lq, err := seatQuery(r)
	if err != nil {
		return err
	}
	ctx, cancel := s.readCtx(r)
	defer cancel()
	set, err := s.api.Agreements(ctx, who, lq)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, set)
}

// export answers GET /v1/export, over the obligations the token may read:
// the export document (format=json, the default); its obligations one per
// line (format=jsonl); or the ledger lines about them, as stored
// (format=events: a backup a seat or an admin can import elsewhere).
func (s *Server) export(w http.ResponseWriter, r *http.Request, who pinki.Identity) error {
	q := newQuery(r)
	format := q.str("format")
	if format == "events" {
		if err := q.done(); err != nil {
			return err
		}
		return s.exportLines(w, r, who)
	}
	f := q.filter()
	if format != "" && format != "json" && format != "jsonl" {
		q.fail(pinki.Invalid("format", "format %q must be json, jsonl or events", format))
	}
	if err := q.done(); err != nil {
		return err
	}
	ctx, cancel := s.readCtx(r)
	defer cancel()
	doc, err := s.api.Export(ctx, who, f)
	if err != nil {
		return err
	}
	if format != "jsonl" {
		return writeJSON(w, http.StatusOK, doc)
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	for i := range doc.Promises {
		if err := enc.Encode(&doc.Promises[i]); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// exportPage is how many events format=events reads from the ledger at a
// time.
const exportPage = 10000

// exportLines streams format=events: every ledger line who may read, as
// stored, one per line, read a page at a time. The server's read and write
// timeouts bound requests, not this stream: they are lifted, and each page
// is bounded instead (its read by the request timeout, its write too). A
// page that fails before anything is sent is answered as a problem; once
// the 200 has gone out, the body ends with one last line, the problem
// document (RFC 9457: {"type":"urn:pinki:problem:…","status":…,"code":…,
// "detail":…}), which no ledger line looks like and import refuses.
func (s *Server) exportLines(w http.ResponseWriter, r *http.Request, who pinki.Identity) error {
	page := func(after int64) ([]ledger.EventRecord, int64, error) {
		ctx, cancel := s.readCtx(r)
		defer cancel()
		return s.api.Events(ctx, who, after, exportPage)
	}
	recs, next, err := page(0)
	if err != nil {
		return err
	}
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Time{}) // an expired read deadline would end the request's context
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 64<<10)
	after := int64(0)
	for {
		rc.SetWriteDeadline(time.Now().Add(s.opts.RequestTimeout))
		for _, rec := range recs {
			bw.Write(rec.Event)
			bw.WriteByte('\n')
		}
		if next == after {
			break
		}
		after = next
		if recs, next, err = page(after); err != nil {
			line, _ := json.Marshal(ProblemOf(err))
			bw.Write(line)
			bw.WriteByte('\n')
			break
		}
	}
	return bw.Flush()
}

func (s *Server) check(w http.ResponseWriter, r *http.Request, who pinki.Identity) error {
	if err := newQuery(r).done(); err != nil {
		return err
	}
	ctx, cancel := s.readCtx(r)
	defer cancel()
	rep, err := s.api.Check(ctx, who)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, rep)
}

// importEvents answers POST /v1/import: a body of ledger lines (JSON lines,
// each decoded as strictly as the ledger reads), appended with no rules by an
// admin. ?append=true adds to a ledger that is not empty.
func (s *Server) importEvents(w http.ResponseWriter, r *http.Request, who pinki.Identity) error {
	q := newQuery(r)
	add := q.bool("append")
	if err := q.done(); err != nil {
		return err
	}
	body, err := readBody(w, r, s.opts.MaxImport)
	if err != nil {
		return err
	}
	var events []pinki.Event
	var dec pinki.Decoder
	for n, line := range bytes.Split(body, []byte{'\n'}) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		e, err := dec.Decode(line)
		if err != nil {
			return pinki.Invalid("body", "line %d is not a ledger event: %v", n+1, err)
		}
		events = append(events, e)
	}
	ctx, cancel := s.writeCtx(r)
	defer cancel()
	n, err := s.api.Import(ctx, who, events, add)
	if err != nil {
		return err
	}
	if n > 0 {
		s.hub.broadcast()
	}
	return writeJSON(w, http.StatusOK, ImportResult{Imported: n})
}

func (s *Server) events(w http.ResponseWriter, r *http.Request, who pinki.Identity) error {
	q := newQuery(r)
	after := q.int("after", 0, 0, 1<<62)
	limit := q.int("limit", 1000, 1, 10000)
	if err := q.done(); err != nil {
		return err
	}
	ctx, cancel := s.readCtx(r)
	defer cancel()
	recs, next, err := s.api.Events(ctx, who, after, int(limit))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, EventsPage{Events: recs, Next: next})
}

// pathEscape escapes an id for a path segment: ids may hold '/'.
func pathEscape(id string) string { return url.PathEscape(id) }
