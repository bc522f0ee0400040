package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/jsonl"
	"github.com/pinki-ledger/pinki/ledger"
	"github.com/pinki-ledger/pinki/tokens"
)

// t0 is the clock of every test service.
var t0 = time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)

// The seats of the tests.
const (
	debtor   = "seat/debtor"
	creditor = "seat/creditor"
	third    = "seat/third"
	observer = "seat/observer"
	verifier = "seat/verifier"
	admin    = "seat/admin"
)

// env is a server over a file ledger in a temporary folder, with a token
// for each caller of the authorization matrix.
type env struct {
	t      *testing.T
	path   string
	store  *jsonl.Store
	svc    *ledger.Service
	tokens *tokens.File
	server *Server
	http   *httptest.Server
	tok    map[string]string // caller -> secret
}

func newEnv(t *testing.T, opts Options) *env {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, ".pinki", "ledger.jsonl")
	store, err := jsonl.Open(path, jsonl.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	unknown := new(UnknownLines)
	svc := ledger.New(store, ledger.Options{Follow: true, Clock: func() time.Time { return t0 }, OnUnknownLine: unknown.Record})
	tf := tokens.OpenFile(tokens.PathFor(path), func() time.Time { return t0 })
	if opts.Heartbeat == 0 {
		opts.Heartbeat = 50 * time.Millisecond
	}
	if opts.UnknownLines == nil {
		opts.UnknownLines = unknown.Count
	}
	if opts.Poll == 0 {
		opts.Poll = 20 * time.Millisecond
	}
	srv := NewServer(svc, tf, opts)
	hs := httptest.NewServer(srv)
	e := &env{t: t, path: path, store: store, svc: svc, tokens: tf, server: srv, http: hs, tok: map[string]string{}}
	t.Cleanup(func() {
		hs.CloseClientConnections()
		srv.Close()
		hs.Close()
		svc.Close()
		store.Close()
	})
	add := func(caller, seat string, role pinki.Role) {
		secret, _, err := tf.Add(context.Background(), seat, role)
		if err != nil {
			t.Fatal(err)
		}
		e.tok[caller] = secret
	}
	add("debtor", debtor, pinki.RoleSeat)
	add("creditor", creditor, pinki.RoleSeat)
	add("third", third, pinki.RoleSeat)
	add("observer", observer, pinki.RoleObserver)
	add("verifier", verifier, pinki.RoleVerifier)
	add("admin", admin, pinki.RoleAdmin)
	add("revoked", debtor, pinki.RoleSeat)
	if _, err := tf.Revoke(context.Background(), e.tok["revoked"]); err != nil {
		t.Fatal(err)
	}
	e.tok["forged"] = tokens.Prefix + strings.Repeat("A", 43)
	e.tok["none"] = ""
	return e
}

// ledgerBytes is the ledger file's content ("" when it does not exist).
func (e *env) ledgerBytes() string {
	b, err := os.ReadFile(e.path)
	if err != nil && !os.IsNotExist(err) {
		e.t.Fatal(err)
	}
	return string(b)
}

// response is an answer as the tests look at it.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) problem(t *testing.T) Problem {
	t.Helper()
	var p Problem
	if ct := r.header.Get("Content-Type"); ct != ProblemContentType {
		t.Fatalf("content type %q, want %q; body %s", ct, ProblemContentType, r.body)
	}
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatalf("problem does not decode: %v: %s", err, r.body)
	}
	return p
}

// do sends a request as caller; body is JSON-encoded unless it is a string
// or []byte, sent as is.
func (e *env) do(caller, method, path string, body any) response {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, e.http.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if tok := e.tok[caller]; tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := e.http.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: data}
}

// local is the identity-free service call the fixtures use.
var local = pinki.Identity{}

// promise declares a promise from debtor to creditor directly in the service.
func (e *env) promise(id string) {
	e.t.Helper()
	if _, err := e.svc.Create(context.Background(), local, ledger.CreateInput{Kind: fold.KindPromise, ID: id, Text: "ship it",
		By: debtor, To: creditor, Until: "+2h"}); err != nil {
		e.t.Fatal(err)
	}
}
