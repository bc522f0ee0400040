package httpapi

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
	"github.com/pinki-ledger/pinki/tokens"
)

// sse opens the event stream as caller and returns a reader of its lines.
func (e *env) sse(ctx context.Context, caller, lastID string) (*http.Response, *bufio.Reader) {
	e.t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "GET", e.http.URL+"/v1/events/stream", nil)
	req.Header.Set("Authorization", "Bearer "+e.tok[caller])
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := e.http.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		e.t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return resp, bufio.NewReader(resp.Body)
}

// nextID reads lines up to the next event and returns its id, or "" at the
// end of the stream. Heartbeats are counted.
func nextID(t *testing.T, r *bufio.Reader, heartbeats *int) string {
	t.Helper()
	id := ""
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return ""
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, ": heartbeat"):
			if heartbeats != nil {
				*heartbeats++
			}
		case strings.HasPrefix(line, "id: "):
			id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "data: "):
			if !strings.Contains(line, `"seq":`+id+`,`) {
				t.Fatalf("data %q does not carry seq %s", line, id)
			}
		case line == "" && id != "":
			return id
		}
	}
}

// TestStreamResume checks that the stream sends each event with its
// sequence number as id, resumes after Last-Event-ID, delivers new events
// live, sends heartbeats while idle, leaves out what a seat may not read,
// and ends when the server drains.
func TestStreamResume(t *testing.T) {
	e := newEnv(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := 1; i <= 3; i++ {
		e.promise(fmt.Sprintf("s%d", i))
	}
	resp, r := e.sse(ctx, "creditor", "1")
	defer resp.Body.Close()
	for _, want := range []string{"2", "3"} {
		if got := nextID(t, r, nil); got != want {
			t.Fatalf("id %q, want %q", got, want)
		}
	}
	_, r3 := e.sse(ctx, "third", "")
	e.promise("s4")
	if got := nextID(t, r, nil); got != "4" {
		t.Fatalf("live id %q, want 4", got)
	}
	// The third seat sees only its own: it is a party to s5.
	if _, err := e.svc.Create(ctx, local, ledger.CreateInput{Kind: fold.KindPromise, ID: "s5", Text: "x", By: third, To: creditor, Until: "+1h"}); err != nil {
		t.Fatal(err)
	}
	hb := 0
	if got := nextID(t, r3, &hb); got != "5" {
		t.Fatalf("third seat got id %q first, want 5", got)
	}
	if got := nextID(t, r, nil); got != "5" {
		t.Fatalf("creditor id %q, want 5", got)
	}
	// Resume after the last id seen: nothing is sent twice.
	resp.Body.Close()
	resp2, r2 := e.sse(ctx, "creditor", "5")
	defer resp2.Body.Close()
	e.promise("s6")
	hb = 0
	if got := nextID(t, r2, &hb); got != "6" {
		t.Fatalf("resumed id %q, want 6", got)
	}
	// Idle: heartbeats, then the server drains and the stream ends.
	done := make(chan string)
	go func() { done <- nextID(t, r2, &hb) }()
	time.Sleep(150 * time.Millisecond)
	e.server.Drain()
	select {
	case got := <-done:
		if got != "" {
			t.Fatalf("after drain got id %q", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stream did not end on drain")
	}
	if hb == 0 {
		t.Fatal("no heartbeat while idle")
	}
	if r := e.do("debtor", "GET", "/v1/events/stream", nil); r.status != 503 {
		t.Fatalf("a stream while draining: %d", r.status)
	}
	if r := e.do("debtor", "GET", "/v1/events/stream?after=x", nil); r.status != 400 {
		t.Fatalf("bad after: %d", r.status)
	}
}

// TestClientStream follows the stream through the client across a server
// restart: it resumes where it left off, with nothing lost or repeated.
func TestClientStream(t *testing.T) {
	e := newEnv(t, Options{})
	e.promise("c1")
	c := e.client("debtor")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var mu sync.Mutex
	var seen []int64
	errc := make(chan error, 1)
	go func() {
		errc <- c.Stream(ctx, 0, func(rec ledger.EventRecord) error {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, rec.Seq)
			if len(seen) == 3 {
				return errors.New("enough")
			}
			return nil
		})
	}()
	wait := func(n int) {
		for ctx.Err() == nil {
			mu.Lock()
			k := len(seen)
			mu.Unlock()
			if k >= n {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Fatalf("timed out waiting for %d events", n)
	}
	wait(1)
	e.promise("c2")
	wait(2)
	e.http.CloseClientConnections() // the connection drops: the client resumes
	e.promise("c3")
	if err := <-errc; err == nil || err.Error() != "enough" {
		t.Fatalf("stream ended with %v", err)
	}
	if fmt.Sprint(seen) != "[1 2 3]" {
		t.Fatalf("seen %v", seen)
	}
}

// slowAPI holds Create until released, to keep a write in flight.
type slowAPI struct {
	ledger.API
	entered chan struct{}
	release chan struct{}
}

func (s *slowAPI) Create(ctx context.Context, who pinki.Identity, in ledger.CreateInput) (ledger.Receipt, error) {
	close(s.entered)
	<-s.release
	return s.API.Create(ctx, who, in)
}

// TestGracefulShutdown starts a write, begins shutting down while it is in
// flight, and checks that the write completes, is acknowledged and is in the
// ledger, and that Serve returns nil.
func TestGracefulShutdown(t *testing.T) {
	e := newEnv(t, Options{})
	slow := &slowAPI{API: e.svc, entered: make(chan struct{}), release: make(chan struct{})}
	srv := NewServer(slow, e.tokens, Options{})
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- Serve(ctx, ln, srv, ServeOptions{ShutdownTimeout: 10 * time.Second}) }()
	c, err := NewClient("http://"+ln.Addr().String(), e.tok["debtor"], nil)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		rc  ledger.Receipt
		err error
	}
	res := make(chan result, 1)
	go func() {
		rc, err := c.Create(context.Background(), local, ledger.CreateInput{Kind: fold.KindPromise, ID: "inflight", Text: "x", To: creditor, Until: "+1h"})
		res <- result{rc, err}
	}()
	<-slow.entered
	stop() // shutdown begins with the write in flight
	time.Sleep(50 * time.Millisecond)
	select {
	case err := <-served:
		t.Fatalf("Serve returned %v before the write finished", err)
	default:
	}
	close(slow.release)
	r := <-res
	if r.err != nil || r.rc.ID != "inflight" || r.rc.Seq == 0 {
		t.Fatalf("in-flight write: %+v %v", r.rc, r.err)
	}
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if !strings.Contains(e.ledgerBytes(), `"id":"inflight"`) {
		t.Fatal("the acknowledged write is not in the ledger")
	}
	if _, err := c.Get(context.Background(), local, ledger.Query{ID: "inflight"}); pinki.ErrorCode(err) != pinki.CodeUnavailable {
		t.Fatalf("after shutdown: %v", err)
	}
}

// TestRevokedAtOnce revokes a token from another token store over the same
// file (another process: `pinki token revoke`) and checks that the server's
// next request with it fails.
func TestRevokedAtOnce(t *testing.T) {
	e := newEnv(t, Options{})
	other := tokens.OpenFile(e.tokens.Path(), nil)
	secret, tok, err := other.Add(context.Background(), "seat/late", pinki.RoleSeat)
	if err != nil {
		t.Fatal(err)
	}
	e.tok["late"] = secret
	if r := e.do("late", "GET", "/v1/whoami", nil); r.status != 200 || !strings.Contains(string(r.body), `"seat/late"`) {
		t.Fatalf("new token: %d %s", r.status, r.body)
	}
	if _, err := other.Revoke(context.Background(), tok.ID); err != nil {
		t.Fatal(err)
	}
	r := e.do("late", "GET", "/v1/whoami", nil)
	if r.status != 401 || !strings.Contains(r.problem(t).Detail, "revoked") {
		t.Fatalf("revoked token: %d %s", r.status, r.body)
	}
}

// TestStreamOutlivesTimeouts checks that an event stream lasts beyond the
// http.Server's read and write timeouts, which bound ordinary requests.
func TestStreamOutlivesTimeouts(t *testing.T) {
	e := newEnv(t, Options{Heartbeat: 40 * time.Millisecond})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go Serve(ctx, ln, e.server, ServeOptions{ReadTimeout: 150 * time.Millisecond, WriteTimeout: 150 * time.Millisecond,
		ReadHeaderTimeout: 150 * time.Millisecond})
	req, _ := http.NewRequest("GET", "http://"+ln.Addr().String()+"/v1/events/stream", nil)
	req.Header.Set("Authorization", "Bearer "+e.tok["debtor"])
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	time.Sleep(500 * time.Millisecond)
	e.promise("late")
	if got := nextID(t, r, nil); got != "1" {
		t.Fatalf("after the timeouts: id %q, want 1", got)
	}
}
