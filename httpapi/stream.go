package httpapi

import (
	"bufio"
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/ledger"
)

// follower is what a *ledger.Service offers beyond ledger.API that lets
// event streams wake up when the store grows, instead of polling.
type follower interface {
	Store() pinki.Store
	Position() pinki.Position
}

// hub tells event streams that the ledger may hold new events.
type hub struct {
	mu     sync.Mutex
	ch     chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
}

func newHub(api ledger.API, poll time.Duration, draining <-chan struct{}) *hub {
	ctx, cancel := context.WithCancel(context.Background())
	h := &hub{ch: make(chan struct{}), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(h.done)
		if f, ok := api.(follower); ok {
			h.follow(ctx, f, poll)
			return
		}
		t := time.NewTicker(poll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				h.broadcast()
			}
		}
	}()
	return h
}

// follow waits on the store beyond the service's fold and wakes the streams
// each time it grows.
func (h *hub) follow(ctx context.Context, f follower, poll time.Duration) {
	pos := f.Position()
	for ctx.Err() == nil {
		if err := f.Store().Wait(ctx, pos); err != nil {
			if !sleep(ctx, poll) {
				return
			}
			pos = f.Position()
			continue
		}
		h.broadcast()
		// Let the service's fold move from pos (on, or back to the start of
		// a replaced ledger) before waiting again, so that a store that grew
		// is not reported over and over.
		next := f.Position()
		for next == pos {
			if !sleep(ctx, 10*time.Millisecond) {
				return
			}
			next = f.Position()
			h.broadcast()
		}
		pos = next
	}
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// wait returns a channel closed at the next broadcast.
func (h *hub) wait() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.ch
}

func (h *hub) broadcast() {
	h.mu.Lock()
	close(h.ch)
	h.ch = make(chan struct{})
	h.mu.Unlock()
}

func (h *hub) stop() {
	h.cancel()
	<-h.done
}

// streamPage is how many events a stream reads at a time.
const streamPage = 1000

// stream answers GET /v1/events/stream: server-sent events, one per ledger
// event the token may read, with the sequence number as the event id. It
// starts after ?after=N, or after the Last-Event-ID header when a client
// resumes (the header wins), sends a comment line every Heartbeat while idle,
// and ends when the client goes away or the server shuts down.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, who pinki.Identity) error {
	q := newQuery(r)
	after := q.int("after", 0, 0, 1<<62)
	if err := q.done(); err != nil {
		return err
	}
	if id := strings.TrimSpace(r.Header.Get("Last-Event-ID")); id != "" {
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil || n < 0 {
			return pinki.Invalid("Last-Event-ID", "Last-Event-ID %q must be a sequence number", id)
		}
		after = n
	}
	select {
	case <-s.draining:
		return (&pinki.Error{Code: pinki.CodeUnavailable, Message: "the server is shutting down"}).
			WithHint("reconnect with Last-Event-ID to resume")
	default:
	}
	ctx := r.Context()
	wake := s.hub.wait()
	recs, next, err := s.api.Events(ctx, who, after, streamPage)
	if err != nil {
		return err
	}
	rc := http.NewResponseController(w)
	// The server's read and write timeouts bound requests, not streams: lift
	// them (an expired read deadline would end the stream's context), and
	// bound each write instead.
	rc.SetReadDeadline(time.Time{})
	rc.SetWriteDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 32<<10)
	send := func() bool {
		rc.SetWriteDeadline(time.Now().Add(s.opts.RequestTimeout))
		if bw.Flush() != nil || rc.Flush() != nil {
			return false
		}
		return true
	}
	bw.WriteString("retry: 2000\n\n")
	heartbeat := time.NewTicker(s.opts.Heartbeat)
	defer heartbeat.Stop()
	for {
		for _, rec := range recs {
			bw.WriteString("id: ")
			bw.WriteString(strconv.FormatInt(rec.Seq, 10))
			bw.WriteString("\nevent: event\ndata: {\"seq\":")
			bw.WriteString(strconv.FormatInt(rec.Seq, 10))
			bw.WriteString(",\"event\":")
			bw.Write(rec.Event)
			bw.WriteString("}\n\n")
		}
		if !send() {
			return nil
		}
		if next != after {
			// More may follow at once.
			after = next
		} else {
			select {
			case <-ctx.Done():
				return nil
			case <-s.draining:
				return nil
			case <-heartbeat.C:
				bw.WriteString(": heartbeat\n\n")
				if !send() {
					return nil
				}
				continue
			case <-wake:
			}
		}
		wake = s.hub.wait()
		if recs, next, err = s.api.Events(ctx, who, after, streamPage); err != nil {
			return nil // the status is sent: end the stream; the client resumes
		}
	}
}
