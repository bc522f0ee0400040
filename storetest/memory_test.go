package storetest_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/storetest"
)

// TestMemory runs the suite against memory, the smallest store that meets
// the contract: it checks the suite itself, apart from any adapter's quirks.
func TestMemory(t *testing.T) {
	storetest.Run(t, func(t *testing.T) pinki.Store { return newMemory() })
}

// memory is a pinki.Store in memory: seq is the index plus one, every
// append is one critical section.
type memory struct {
	mu      sync.Mutex
	events  []pinki.Event
	notify  chan struct{}
	closed  bool
	closing chan struct{}
}

func newMemory() *memory {
	return &memory{notify: make(chan struct{}), closing: make(chan struct{})}
}

var errClosed = pinki.Errorf(pinki.CodeUnavailable, "memory store is closed")

func (m *memory) Append(ctx context.Context, events []pinki.Event, fences []pinki.Fence) (pinki.Position, error) {
	if len(events) == 0 {
		return pinki.Position{}, pinki.Errorf(pinki.CodeInternal, "append of no events")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return pinki.Position{}, errClosed
	}
	for _, fe := range fences {
		if fe.Seen.Seq > int64(len(m.events)) {
			return pinki.Position{}, fmt.Errorf("fence beyond the end: %w", pinki.ErrReplaced)
		}
		version := 0
		for i, e := range m.events {
			if e.Key() != fe.Subject {
				continue
			}
			version++
			if int64(i+1) > fe.Seen.Seq {
				return pinki.Position{}, pinki.Errorf(pinki.CodeConflict, "%s changed", fe.Subject)
			}
		}
		if version != fe.Version {
			return pinki.Position{}, pinki.Errorf(pinki.CodeConflict, "%s holds %d events, not %d", fe.Subject, version, fe.Version)
		}
	}
	m.events = append(m.events, events...)
	close(m.notify)
	m.notify = make(chan struct{})
	return pinki.Position{Seq: int64(len(m.events))}, nil
}

func (m *memory) Read(ctx context.Context, from pinki.Position, fn func(pinki.Entry) error) (pinki.Position, error) {
	m.mu.Lock()
	events := m.events
	m.mu.Unlock()
	end := int64(len(events))
	if from.Seq > end {
		return from, fmt.Errorf("read beyond the end: %w", pinki.ErrReplaced)
	}
	for seq := from.Seq + 1; seq <= end; seq++ {
		if err := ctx.Err(); err != nil {
			return from, err
		}
		if err := fn(pinki.Entry{Seq: seq, Event: events[seq-1]}); err != nil {
			return from, err
		}
	}
	return pinki.Position{Seq: end}, nil
}

func (m *memory) Wait(ctx context.Context, after pinki.Position) error {
	for {
		m.mu.Lock()
		n, ch, closed := int64(len(m.events)), m.notify, m.closed
		m.mu.Unlock()
		switch {
		case closed:
			return errClosed
		case n > after.Seq:
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-m.closing:
		case <-ch:
		}
	}
}

func (m *memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.closed {
		m.closed = true
		close(m.closing)
	}
	return nil
}
