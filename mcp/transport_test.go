package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/mcp"
)

// TestStdio runs the server over newline-delimited JSON on a pair of pipes,
// the framing pinki mcp speaks on stdin and stdout.
func TestStdio(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			srv, err := mcp.NewServer(newService(t), seatA, &mcp.Options{Version: "test"})
			if err != nil {
				t.Fatal(err)
			}
			toServer, fromClient := io.Pipe()
			toClient, fromServer := io.Pipe()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- srv.Run(ctx, &sdk.IOTransport{Reader: toServer, Writer: fromServer}) }()
			t.Cleanup(func() {
				cancel()
				fromClient.Close()
				<-done
			})
			cs := clientOver(t, &sdk.IOTransport{Reader: toClient, Writer: fromClient}, v)
			if got := cs.InitializeResult().ProtocolVersion; got != v {
				t.Fatalf("negotiated %s, want %s", got, v)
			}
			exercise(t, cs)
		})
	}
}

// tokens is the test server's credential table.
var tokens = map[string]pinki.Identity{"tok-a": seatA, "tok-b": seatB}

func authenticate(r *http.Request) (pinki.Identity, error) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return pinki.Identity{}, pinki.Errorf(pinki.CodeUnauthenticated, "no bearer token")
	}
	who, ok := tokens[tok]
	if !ok {
		return pinki.Identity{}, pinki.Errorf(pinki.CodeUnauthenticated, "unknown token")
	}
	return who, nil
}

// bearer adds a bearer token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func httpServer(t *testing.T, stateless bool) *httptest.Server {
	t.Helper()
	h := mcp.HTTPHandler(newService(t), authenticate, &mcp.HTTPOptions{Streamable: sdk.StreamableHTTPOptions{Stateless: stateless}})
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts
}

func httpClient(t *testing.T, ts *httptest.Server, token, version string) *sdk.ClientSession {
	t.Helper()
	return clientOver(t, &sdk.StreamableClientTransport{Endpoint: ts.URL,
		HTTPClient: &http.Client{Transport: bearer{token}}}, version)
}

func TestStreamableHTTP(t *testing.T) {
	for _, stateless := range []bool{false, true} {
		mode := map[bool]string{false: "stateful", true: "stateless"}[stateless]
		for _, v := range versions {
			t.Run(mode+"/"+v, func(t *testing.T) {
				ts := httpServer(t, stateless)
				cs := httpClient(t, ts, "tok-a", v)
				want := v
				if v == "2026-07-28" && !stateless {
					// The SDK serves 2026-07-28 only statelessly; a
					// stateful server answers the client's discover probe
					// so that it falls back to the newest handshake.
					want = "2025-11-25"
				}
				if got := cs.InitializeResult().ProtocolVersion; got != want {
					t.Fatalf("negotiated %s, want %s", got, want)
				}
				exercise(t, cs)
				// Each token acts as its own seat.
				b := newCaller(t, httpClient(t, ts, "tok-b", v))
				if in := b.ok("inbox", nil); in["seat"] != "desk/b" {
					t.Fatalf("inbox over tok-b %v", in)
				}
			})
		}
	}
}

func TestHTTPRefusesWithoutCredential(t *testing.T) {
	ts := httpServer(t, false)
	for _, auth := range []string{"", "Bearer nope"} {
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			Code   string `json:"code"`
			Status int    `json:"status"`
		}
		err = json.NewDecoder(resp.Body).Decode(&p)
		resp.Body.Close()
		if resp.StatusCode != 401 || err != nil || p.Code != "unauthenticated" || p.Status != 401 ||
			resp.Header.Get("Content-Type") != "application/problem+json" || resp.Header.Get("WWW-Authenticate") == "" {
			t.Fatalf("authorization %q: status %d, problem %+v (%v), headers %v", auth, resp.StatusCode, p, err, resp.Header)
		}
	}
	// A client without a token cannot connect at all.
	c := sdk.NewClient(&sdk.Implementation{Name: "anon", Version: "v0"}, nil)
	if _, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: ts.URL}, nil); err == nil {
		t.Fatal("connected without a credential")
	}
}

// TestHTTPSessionBelongsToItsSeat: a stateful session opened with one token
// cannot be driven with another seat's token.
func TestHTTPSessionBelongsToItsSeat(t *testing.T) {
	ts := httpServer(t, false)
	cs := httpClient(t, ts, "tok-a", "2025-11-25")
	if cs.ID() == "" {
		t.Fatal("no session id")
	}
	body := `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"prime","arguments":{}}}`
	for token, want := range map[string]int{"tok-b": http.StatusForbidden, "tok-a": http.StatusOK} {
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", cs.ID())
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("%s on desk/a's session: status %d (%s), want %d", token, resp.StatusCode, got, want)
		}
		if want == http.StatusOK && !strings.Contains(string(got), "pinki briefing for desk/a") {
			t.Fatalf("desk/a's own call: %s", got)
		}
	}
}

func TestHTTPAuthenticatorErrors(t *testing.T) {
	authn := func(r *http.Request) (pinki.Identity, error) {
		switch r.Header.Get("X-Case") {
		case "forbidden":
			return pinki.Identity{}, pinki.Errorf(pinki.CodeForbidden, "this token may not use MCP")
		case "noseat":
			return pinki.Identity{Role: pinki.RoleAdmin}, nil
		case "not_found", "conflict", "too_large":
			return pinki.Identity{}, pinki.Errorf(pinki.Code(r.Header.Get("X-Case")), "refused")
		}
		return pinki.Identity{}, errors.New("token store down")
	}
	h := mcp.HTTPHandler(newService(t), authn, nil)
	// The statuses are the HTTP API's, for every code.
	for c, want := range map[string]int{"forbidden": 403, "noseat": 403, "down": 503, "not_found": 404, "conflict": 409, "too_large": 413} {
		req := httptest.NewRequest("POST", "/mcp", strings.NewReader("{}"))
		req.Header.Set("X-Case", c)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		code := map[int]string{403: "forbidden", 503: "unavailable", 404: "not_found", 409: "conflict", 413: "too_large"}[want]
		if rec.Code != want || !strings.Contains(rec.Body.String(), `"code":"`+code+`"`) {
			t.Errorf("%s: status %d (%s), want %d", c, rec.Code, rec.Body, want)
		}
	}
	// A server answers refusals its own way.
	h = mcp.HTTPHandler(newService(t), authn, &mcp.HTTPOptions{Refuse: func(w http.ResponseWriter, err error) {
		w.WriteHeader(418)
		io.WriteString(w, pinki.AsError(err).Message)
	}})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/mcp", nil))
	if rec.Code != 418 || rec.Body.String() != "token store down" {
		t.Errorf("custom refusal: %d %s", rec.Code, rec.Body)
	}
}
