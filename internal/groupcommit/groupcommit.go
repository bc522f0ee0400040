// Package groupcommit batches concurrent appends to a store for one committer
// goroutine: every append queued while a commit is under way goes into the
// next commit together (one lock, one write, one fsync or transaction for
// all). The file ledger and PostgreSQL stores share it.
package groupcommit

import (
	"context"
	"sync"

	"github.com/pinki-ledger/pinki"
)

// Request is one append waiting to be committed. The committer answers every
// request it is handed exactly once, with Reply.
type Request struct {
	Events []pinki.Event
	Fences []pinki.Fence
	reply  chan Result
}

// Result is a committer's answer to one request: the position after its last
// event, or why it was not appended.
type Result struct {
	Pos pinki.Position
	Err error
}

// NewRequest makes a request to hand a commit function directly (tests of a
// store's commit do; Queue.Append makes its own).
func NewRequest(events []pinki.Event, fences []pinki.Fence) *Request {
	return &Request{Events: events, Fences: fences, reply: make(chan Result, 1)}
}

// Reply answers the request. It must be called once.
func (r *Request) Reply(res Result) { r.reply <- res }

// Wait returns the answer, once Reply gave it.
func (r *Request) Wait() Result { return <-r.reply }

// Queue hands batches of requests to a commit function running on its own
// goroutine.
type Queue struct {
	commit    func(batch []*Request)
	max       int
	errClosed func() error

	pending chan *Request
	quit    chan struct{} // closed when the committer is to stop
	closing chan struct{} // closed when Close begins: wakes waiters
	done    chan struct{}

	mu     sync.Mutex
	closed bool
	// inflight counts Appends that got past the closed check; Close waits for
	// them so that no request is queued after the committer stopped.
	inflight sync.WaitGroup
}

// Start starts a committer that calls commit with batches of at most max
// requests. errClosed makes the error Append returns after Close.
func Start(commit func(batch []*Request), max int, errClosed func() error) *Queue {
	q := &Queue{commit: commit, max: max, errClosed: errClosed, pending: make(chan *Request, 1024),
		quit: make(chan struct{}), closing: make(chan struct{}), done: make(chan struct{})}
	go q.loop()
	return q
}

// Append queues events with their fences and waits for the committer's
// answer. Once queued, it waits for the answer even if ctx ends, so that a
// caller never reports failure for an event that landed.
//
// Errors: the committer's; errClosed() after Close; ctx's error when ctx
// ends before the append was queued.
func (q *Queue) Append(ctx context.Context, events []pinki.Event, fences []pinki.Fence) (pinki.Position, error) {
	if len(events) == 0 {
		return pinki.Position{}, pinki.Errorf(pinki.CodeInternal, "append of no events")
	}
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return pinki.Position{}, q.errClosed()
	}
	q.inflight.Add(1)
	q.mu.Unlock()
	defer q.inflight.Done()
	r := NewRequest(events, fences)
	select {
	case q.pending <- r:
	case <-ctx.Done():
		return pinki.Position{}, ctx.Err()
	}
	res := r.Wait()
	return res.Pos, res.Err
}

// Close stops the committer once the appends under way are answered. It
// reports whether this call closed the queue (false: it was already closed).
func (q *Queue) Close() bool {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		<-q.done
		return false
	}
	q.closed = true
	q.mu.Unlock()
	close(q.closing)
	q.inflight.Wait()
	close(q.quit)
	<-q.done
	return true
}

// Closed reports whether Close has begun.
func (q *Queue) Closed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed
}

// Closing is closed when Close begins, to wake anything waiting on the store.
func (q *Queue) Closing() <-chan struct{} { return q.closing }

// loop takes whatever requests are pending and commits them together.
func (q *Queue) loop() {
	defer close(q.done)
	for {
		var batch []*Request
		select {
		case r := <-q.pending:
			batch = append(batch, r)
		case <-q.quit:
			return // Close waited for every append under way: nothing is pending
		}
	more:
		for len(batch) < q.max {
			select {
			case r := <-q.pending:
				batch = append(batch, r)
			default:
				break more
			}
		}
		q.commitSafely(batch)
	}
}

// commitSafely runs commit, turning a panic into an internal error for every
// request of the batch not answered yet, so that one bad batch cannot take
// the store (and the server) down.
func (q *Queue) commitSafely(batch []*Request) {
	defer func() {
		if p := recover(); p != nil {
			err := pinki.Errorf(pinki.CodeInternal, "the commit failed: %v", p)
			for _, r := range batch {
				select {
				case r.reply <- Result{Err: err}:
				default: // answered before the panic
				}
			}
		}
	}()
	q.commit(batch)
}
