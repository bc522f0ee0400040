package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

// Client is ledger.API over a pinki server. Every method sends the bearer
// token; the identity argument of each method is ignored, since the server
// takes identity from the token. Errors are the server's problems turned back
// into the *pinki.Error they came from (same code, message, field, hint and
// details), so that the CLI prints the same lines and exits with the same
// status as against a local file; a server that cannot be reached is
// CodeUnavailable.
type Client struct {
	base  *url.URL
	token string
	hc    *http.Client

	mu      sync.Mutex
	who     *WhoAmI
	unknown int
}

var _ ledger.API = (*Client)(nil)

// NewClient returns a Client for the server at baseURL (such as
// http://127.0.0.1:7447) sending token. hc nil means a client with a 60s
// timeout and keep-alive connections.
//
// Errors: CodeInvalid when baseURL is not an http(s) URL.
func NewClient(baseURL, token string, hc *http.Client) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(strings.TrimSpace(baseURL), "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, (&pinki.Error{Code: pinki.CodeInvalid, Field: "server",
			Message: fmt.Sprintf("server %q is not an http:// or https:// URL", baseURL)}).
			WithHint("such as http://127.0.0.1:7447")
	}
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second}
	}
	return &Client{base: u, token: strings.TrimSpace(token), hc: hc}, nil
}

// do sends a request and decodes a JSON answer into out (when not nil).
func (c *Client) do(ctx context.Context, method, path string, q url.Values, body []byte, ctype string, out any) error {
	resp, err := c.send(ctx, method, path, q, body, ctype, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		io.Copy(io.Discard, resp.Body)
		return nil
	}
	dec := json.NewDecoder(resp.Body)
	if err := dec.Decode(out); err != nil {
		return pinki.Errorf(pinki.CodeUnavailable, "the server's answer to %s %s does not decode: %v", method, path, err)
	}
	return nil
}

// send sends a request and returns a 2xx response, or the error the answer
// carries.
func (c *Client) send(ctx context.Context, method, path string, q url.Values, body []byte, ctype string, header http.Header) (*http.Response, error) {
	u := *c.base
	u.RawPath = c.base.EscapedPath() + path
	u.Path, _ = url.PathUnescape(u.RawPath)
	if len(q) > 0 {
		u.RawQuery = q.Encode()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), rd)
	if err != nil {
		return nil, pinki.Errorf(pinki.CodeInternal, "cannot build the request: %v", err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if body != nil {
		req.Header.Set("Content-Type", ctype)
	}
	req.Header.Set("Accept", "application/json, application/problem+json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err == nil {
		if n, perr := strconv.Atoi(resp.Header.Get(UnknownLinesHeader)); perr == nil {
			c.mu.Lock()
			c.unknown = max(c.unknown, n)
			c.mu.Unlock()
		}
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, (&pinki.Error{Code: pinki.CodeUnavailable,
			Message: fmt.Sprintf("server unreachable: %s: %v", c.base.Redacted(), unwrapURLError(err))}).
			WithHint("is `pinki serve` running there? check --server / $PINKI_SERVER")
	}
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, nil
	}
	defer resp.Body.Close()
	return nil, readProblem(resp)
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// readProblem turns an error answer into a *pinki.Error.
func readProblem(resp *http.Response) error {
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var p Problem
	if err := json.Unmarshal(data, &p); err == nil && p.Code != "" {
		return p.Error()
	}
	code := codeOfStatus(resp.StatusCode)
	text := strings.TrimSpace(string(data))
	if len(text) > 200 {
		text = text[:200]
	}
	msg := fmt.Sprintf("the server answered %s", resp.Status)
	if text != "" {
		msg += ": " + strings.ReplaceAll(text, "\n", " ")
	}
	return &pinki.Error{Code: code, Message: msg}
}

func (c *Client) postJSON(ctx context.Context, path string, v any, out any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return pinki.Errorf(pinki.CodeInvalid, "cannot encode the request: %v", err)
	}
	return c.do(ctx, http.MethodPost, path, nil, body, "application/json", out)
}

// UnknownLines is the largest number of undecodable ledger lines any answer
// so far reported (the Pinki-Unknown-Lines header): when it is not 0, the
// reads left lines out, and the CLI exits 3 unless --tolerate-unknown.
func (c *Client) UnknownLines() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.unknown
}

// WhoAmI returns the identity the client's token authenticates as, asking
// the server once.
//
// Errors: as every method: CodeUnauthenticated for a bad token,
// CodeUnavailable when the server cannot be reached.
func (c *Client) WhoAmI(ctx context.Context) (WhoAmI, error) {
	c.mu.Lock()
	if c.who != nil {
		w := *c.who
		c.mu.Unlock()
		return w, nil
	}
	c.mu.Unlock()
	var w WhoAmI
	if err := c.do(ctx, http.MethodGet, "/v1/whoami", nil, nil, "", &w); err != nil {
		return WhoAmI{}, err
	}
	c.mu.Lock()
	c.who = &w
	c.mu.Unlock()
	return w, nil
}

// CheckAs checks that a seat the user named to act as (the CLI's --as or
// $PINKI_SEAT), when given, is the token's seat: over HTTP the writer is
// always the token's seat, so a different one is refused rather than
// ignored. An empty seat passes.
//
// Errors: CodeForbidden for another seat; WhoAmI's errors.
func (c *Client) CheckAs(ctx context.Context, seat string) error {
	return c.claim(ctx, "--as", seat)
}

// claim checks a writer named in an input (--by, --observer) against the
// token's seat: over HTTP the writer is always the token's seat, so a
// different one is refused here as the service refuses it, rather than
// silently written as the token's seat.
func (c *Client) claim(ctx context.Context, field, claimed string) error {
	claimed = strings.TrimSpace(claimed)
	if claimed == "" {
		return nil
	}
	w, err := c.WhoAmI(ctx)
	if err != nil {
		return err
	}
	if claimed != w.Seat {
		return &pinki.Error{Code: pinki.CodeForbidden,
			Message: fmt.Sprintf("you are writing as %q, so %s cannot be %q", w.Seat, field, claimed)}
	}
	return nil
}

// Create implements ledger.API.
func (c *Client) Create(ctx context.Context, _ pinki.Identity, in ledger.CreateInput) (ledger.Receipt, error) {
	common := createFields{ID: in.ID, By: in.By, To: in.To, On: in.On, Until: in.Until, Task: in.Task,
		Lapse: in.Lapse, Meta: in.Meta, Target: in.Target}
	var path string
	var body any
	switch in.Kind {
	case fold.KindPromise:
		path, body = "/v1/promises", PromiseBody{Promise: in.Text, createFields: common}
		if in.Schema != nil || in.SchemaID != "" {
			return ledger.Receipt{}, pinki.Invalid("schema", "schema and schema_id belong to requests only")
		}
	case fold.KindRequest:
		path, body = "/v1/requests", RequestBody{Promise: in.Text, Schema: in.Schema, SchemaID: in.SchemaID, createFields: common}
	case fold.KindAgreement:
		path, body = "/v1/proposals", ProposalBody{Terms: in.Text, Proposer: in.Proposer, createFields: common}
		if in.Schema != nil || in.SchemaID != "" {
			return ledger.Receipt{}, pinki.Invalid("schema", "schema and schema_id belong to requests only")
		}
	default:
		return ledger.Receipt{}, pinki.Invalid("kind", "unknown kind of obligation")
	}
	var rc ledger.Receipt
	err := c.postJSON(ctx, path, body, &rc)
	return rc, err
}

func (c *Client) event(ctx context.Context, id string, body any) (ledger.Receipt, error) {
	if strings.TrimSpace(id) == "" {
		return ledger.Receipt{}, pinki.Invalid("id", "no id given")
	}
	var rc ledger.Receipt
	err := c.postJSON(ctx, "/v1/obligations/"+pathEscape(strings.TrimSpace(id))+"/events", body, &rc)
	return rc, err
}

// Amend implements ledger.API.
func (c *Client) Amend(ctx context.Context, _ pinki.Identity, in ledger.AmendInput) (ledger.Receipt, error) {
	if err := c.claim(ctx, "by", in.By); err != nil {
		return ledger.Receipt{}, err
	}
	return c.event(ctx, in.ID, AmendBody{Type: "amend", Until: in.Until, Reason: in.Reason, Meta: in.Meta, Rev: in.Rev})
}

// Accept implements ledger.API.
func (c *Client) Accept(ctx context.Context, _ pinki.Identity, in ledger.AcceptInput) (ledger.Receipt, error) {
	if err := c.claim(ctx, "by", in.By); err != nil {
		return ledger.Receipt{}, err
	}
	return c.event(ctx, in.ID, AcceptBody{Type: "accept", Rev: in.Rev, Meta: in.Meta})
}

// Progress implements ledger.API.
func (c *Client) Progress(ctx context.Context, _ pinki.Identity, in ledger.ProgressInput) (ledger.Receipt, error) {
	if err := c.claim(ctx, "by", in.By); err != nil {
		return ledger.Receipt{}, err
	}
	return c.event(ctx, in.ID, ProgressBody{Type: "progress", Phase: in.Phase, Note: in.Note, Meta: in.Meta, Rev: in.Rev})
}

// Resolve implements ledger.API.
func (c *Client) Resolve(ctx context.Context, _ pinki.Identity, in ledger.ResolveInput) (ledger.Receipt, error) {
	if err := c.claim(ctx, "by", in.By); err != nil {
		return ledger.Receipt{}, err
	}
	return c.event(ctx, in.ID, ResolveBody{Type: "resolve", As: in.As, Evidence: in.Evidence, Reason: in.Reason,
		Response: in.Response, SchemaID: in.SchemaID, Digest: in.Digest, Meta: in.Meta, Rev: in.Rev})
}

// Assess implements ledger.API.
func (c *Client) Assess(ctx context.Context, _ pinki.Identity, in ledger.AssessInput) (ledger.Receipt, error) {
	if err := c.claim(ctx, "observer", in.Observer); err != nil {
		return ledger.Receipt{}, err
	}
	return c.event(ctx, in.ID, AssessBody{Type: "assess", State: in.State, Note: in.Note, Meta: in.Meta, Rev: in.Rev})
}

// Bind implements ledger.API.
func (c *Client) Bind(ctx context.Context, _ pinki.Identity, in ledger.BindInput) (ledger.Receipt, error) {
	if err := c.claim(ctx, "by", in.By); err != nil {
		return ledger.Receipt{}, err
	}
	return c.event(ctx, in.ID, BindBody{Type: "bind", Target: in.Target, Meta: in.Meta, Rev: in.Rev})
}

func nowParam(q url.Values, now time.Time) {
	if !now.IsZero() {
		q.Set("now", pinki.FormatTime(now))
	}
}

// untilAt fills the Unix-nanosecond horizon that JSON does not carry.
func untilAt(items []ledger.Item) {
	for i := range items {
		if n, err := pinki.ParseInstant(items[i].Until); err == nil {
			items[i].UntilAt = n
		}
	}
}

// Get implements ledger.API.
func (c *Client) Get(ctx context.Context, _ pinki.Identity, q ledger.Query) (ledger.Detail, error) {
	id := strings.TrimSpace(q.ID)
	if id == "" {
		return ledger.Detail{}, pinki.Invalid("id", "no id given")
	}
	v := url.Values{}
	nowParam(v, q.Now)
	var d ledger.Detail
	err := c.do(ctx, http.MethodGet, "/v1/obligations/"+pathEscape(id), v, nil, "", &d)
	if err == nil {
		one := []ledger.Item{d.Item}
		untilAt(one)
		d.Item = one[0]
	}
	return d, err
}

func filterParams(f ledger.Filter, listing bool) url.Values {
	v := url.Values{}
	if listing {
		switch f.Scope {
		case ledger.ScopeOverdue:
			v.Set("scope", "overdue")
		case ledger.ScopeAll:
			v.Set("scope", "all")
		}
		if f.Party != "" {
			v.Set("party", f.Party)
		}
		if f.Kind != 0 {
			v.Set("kind", f.Kind.String())
		}
	}
	for _, st := range f.States {
		v.Add("state", string(st))
	}
	if f.By != "" {
		v.Set("by", f.By)
	}
	if f.To != "" {
		v.Set("to", f.To)
	}
	if f.Since != 0 {
		v.Set("since", pinki.FormatTime(time.Unix(0, f.Since)))
	}
	if f.Bound {
		v.Set("bound", "true")
	}
	if f.Task != "" {
		v.Set("task", f.Task)
	}
	nowParam(v, f.Now)
	return v
}

// List implements ledger.API. A limit of 0 (everything) or over MaxPage is
// served by following the server's pages.
func (c *Client) List(ctx context.Context, _ pinki.Identity, f ledger.Filter) (ledger.Page, error) {
	var out ledger.Page
	out.Items = []ledger.Item{}
	after := f.After
	for {
		v := filterParams(f, true)
		want := MaxPage
		if f.Limit > 0 {
			want = min(MaxPage, f.Limit-len(out.Items))
		}
		v.Set("limit", strconv.Itoa(want))
		if after > 0 {
			v.Set("cursor", strconv.FormatInt(after, 10))
		}
		var p ledger.Page
		if err := c.do(ctx, http.MethodGet, "/v1/obligations", v, nil, "", &p); err != nil {
			return ledger.Page{}, err
		}
		out.Items = append(out.Items, p.Items...)
		out.Total, out.Next = p.Total, p.Next
		if p.Next == 0 || (f.Limit > 0 && len(out.Items) >= f.Limit) {
			break
		}
		after = p.Next
	}
	untilAt(out.Items)
	return out, nil
}

func (c *Client) seatRead(ctx context.Context, path string, q ledger.Query, out any) error {
	v := url.Values{}
	if s := strings.TrimSpace(q.Seat); s != "" {
		v.Set("seat", s)
	}
	nowParam(v, q.Now)
	return c.do(ctx, http.MethodGet, path, v, nil, "", out)
}

// Inbox implements ledger.API.
func (c *Client) Inbox(ctx context.Context, _ pinki.Identity, q ledger.Query) (ledger.Inbox, error) {
	var in ledger.Inbox
	err := c.seatRead(ctx, "/v1/inbox", q, &in)
	return in, err
}

// Prime implements ledger.API.
func (c *Client) Prime(ctx context.Context, _ pinki.Identity, q ledger.Query) (ledger.Briefing, error) {
	var b ledger.Briefing
	err := c.seatRead(ctx, "/v1/prime", q, &b)
	return b, err
}

// Agreements implements ledger.API.
func (c *Client) Agreements(ctx context.Context, _ pinki.Identity, q ledger.Query) (ledger.AgreementSet, error) {
	var set ledger.AgreementSet
	err := c.seatRead(ctx, "/v1/agreements", q, &set)
	if err == nil {
		for _, items := range [][]ledger.Item{set.Current, set.Pending, set.Overdue, set.Ended} {
			untilAt(items)
		}
	}
	return set, err
}

// Export implements ledger.API.
func (c *Client) Export(ctx context.Context, _ pinki.Identity, f ledger.Filter) (ledger.ExportDoc, error) {
	var doc ledger.ExportDoc
	err := c.do(ctx, http.MethodGet, "/v1/export", filterParams(f, false), nil, "", &doc)
	return doc, err
}

// Check implements ledger.API.
func (c *Client) Check(ctx context.Context, _ pinki.Identity) (ledger.CheckReport, error) {
	var rep ledger.CheckReport
	err := c.do(ctx, http.MethodGet, "/v1/check", nil, nil, "", &rep)
	return rep, err
}

// Events implements ledger.API.
func (c *Client) Events(ctx context.Context, _ pinki.Identity, after int64, limit int) ([]ledger.EventRecord, int64, error) {
	v := url.Values{}
	v.Set("after", strconv.FormatInt(max(after, 0), 10))
	if limit <= 0 || limit > 10000 {
		limit = 1000
	}
	v.Set("limit", strconv.Itoa(limit))
	var p EventsPage
	if err := c.do(ctx, http.MethodGet, "/v1/events", v, nil, "", &p); err != nil {
		return nil, after, err
	}
	return p.Events, p.Next, nil
}

// importChunk bounds the body of one import request, well under the
// server's default cap (Options.MaxImport).
const importChunk = 16 << 20

// Import implements ledger.API: the events travel as ledger lines, in
// requests of at most 16 MiB. The first request carries add; the later ones
// add to what the first imported. Like the service's own import, a failure
// part way leaves the events before it imported (the count says how many).
func (c *Client) Import(ctx context.Context, _ pinki.Identity, events []pinki.Event, add bool) (int, error) {
	n := 0
	for first := true; first || len(events) > 0; first = false {
		var buf []byte
		k := 0
		for k < len(events) {
			line := pinki.AppendLine(nil, &events[k])
			if k > 0 && len(buf)+len(line) > importChunk {
				break
			}
			buf = append(buf, line...)
			k++
		}
		events = events[k:]
		v := url.Values{}
		if add || !first {
			v.Set("append", "true")
		}
		if buf == nil {
			buf = []byte{}
		}
		var res ImportResult
		if err := c.do(ctx, http.MethodPost, "/v1/import", v, buf, "application/x-ndjson", &res); err != nil {
			return n, err
		}
		n += res.Imported
	}
	return n, nil
}

// Stream follows the server's live event stream from after, calling fn for
// each event in order, and reconnects with Last-Event-ID when the connection
// drops or the server restarts, until ctx ends or fn returns an error (which
// Stream returns). The HTTP client's own timeout must not bound a stream:
// pass NewClient an http.Client without Timeout for streaming.
//
// Errors: ctx's error when it ends; fn's error; a problem the server answers
// with (unauthenticated, forbidden) ends the stream with that error.
func (c *Client) Stream(ctx context.Context, after int64, fn func(ledger.EventRecord) error) error {
	backoff := 100 * time.Millisecond
	for {
		h := http.Header{}
		h.Set("Accept", "text/event-stream")
		if after > 0 {
			h.Set("Last-Event-ID", strconv.FormatInt(after, 10))
		}
		resp, err := c.send(ctx, http.MethodGet, "/v1/events/stream", nil, nil, "", h)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if code := pinki.ErrorCode(err); code != pinki.CodeUnavailable {
				return err
			}
		} else {
			backoff = 100 * time.Millisecond
			err = readEvents(resp.Body, func(rec ledger.EventRecord) error {
				after = rec.Seq
				return fn(rec)
			})
			resp.Body.Close()
			if err != nil {
				return err
			}
		}
		if !sleep(ctx, backoff) {
			return ctx.Err()
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// readEvents parses a server-sent event stream until it ends, returning only
// fn's error.
func readEvents(r io.Reader, fn func(ledger.EventRecord) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if len(data) > 0 {
				var rec ledger.EventRecord
				if err := json.Unmarshal(data, &rec); err == nil {
					if err := fn(rec); err != nil {
						return err
					}
				}
				data = data[:0]
			}
		case bytes.HasPrefix(line, []byte("data:")):
			data = append(data, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
		}
	}
	return nil
}
