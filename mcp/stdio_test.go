package mcp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/ledger"
	"github.com/pinki-ledger/pinki/mcp"
)

// requests is a host's whole session written at once: initialize, the
// initialized notification, and tool calls (one in a batch is not: the
// protocol revision negotiated refuses batches).
var requests = strings.Join([]string{
	`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"make_promise","arguments":{"promise":"ship it","to":"desk/b","until":"+1d","id":"p1"}}}`,
	`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"inbox","arguments":{}}}`,
}, "\n") // no final newline: the last line ends with the input

// answers decodes the JSON-RPC answers written to out, by id.
func answers(t *testing.T, out []byte) map[string]json.RawMessage {
	t.Helper()
	got := map[string]json.RawMessage{}
	for _, line := range bytes.Split(bytes.TrimSpace(out), []byte("\n")) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		if m.Error != nil {
			t.Errorf("answer %s is an error: %s", m.ID, m.Error)
		}
		got[string(m.ID)] = m.Result
	}
	return got
}

// Input that ends right after the requests (printf … | pinki mcp) still gets
// every answer: the end waits for them. (The two calls run concurrently, in
// either order.)
func TestStdioAnswersBeforeEOF(t *testing.T) {
	api := newService(t)
	srv, err := mcp.NewServer(api, seatA, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	tr := &mcp.StdioTransport{Reader: strings.NewReader(requests), Writer: &out}
	if err := srv.Run(context.Background(), tr); err != nil {
		t.Fatal(err)
	}
	got := answers(t, out.Bytes())
	if len(got) != 3 || got["1"] == nil || !strings.Contains(string(got["2"]), `"id":"p1"`) ||
		!strings.Contains(string(got[`"three"`]), `"seat":"desk/a"`) {
		t.Fatalf("answers:\n%s", out.Bytes())
	}
}

// blockingAPI answers Inbox only once released.
type blockingAPI struct {
	ledger.API
	release chan struct{}
}

func (b *blockingAPI) Inbox(ctx context.Context, who pinki.Identity, q ledger.Query) (ledger.Inbox, error) {
	select {
	case <-b.release:
	case <-ctx.Done():
	}
	return b.API.Inbox(ctx, who, q)
}

// The wait at the end of the input is bounded: a call still running when
// Drain has passed is dropped, and the server returns.
func TestStdioDrainIsBounded(t *testing.T) {
	api := &blockingAPI{API: newService(t), release: make(chan struct{})}
	defer close(api.release)
	srv, err := mcp.NewServer(api, seatA, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out syncBuffer
	tr := &mcp.StdioTransport{Reader: strings.NewReader(requests), Writer: &out, Drain: 20 * time.Millisecond}
	if err := srv.Run(context.Background(), tr); err != nil {
		t.Fatal(err)
	}
	got := answers(t, []byte(out.String()))
	if got["1"] == nil || got["2"] == nil || got[`"three"`] != nil {
		t.Fatalf("answers:\n%s", out.String())
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
