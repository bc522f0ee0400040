package groupcommit

import (
	"context"
	"sync"
	"testing"

	"github.com/pinki-ledger/pinki"
)

func TestQueue(t *testing.T) {
	var mu sync.Mutex
	var batches []int
	seq := int64(0)
	q := Start(func(batch []*Request) {
		mu.Lock()
		batches = append(batches, len(batch))
		mu.Unlock()
		for _, r := range batch {
			seq += int64(len(r.Events))
			r.Reply(Result{Pos: pinki.Position{Seq: seq}})
		}
	}, 8, func() error { return pinki.Errorf(pinki.CodeUnavailable, "closed") })
	var wg sync.WaitGroup
	for i := 0; i < 40; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := q.Append(context.Background(), []pinki.Event{{Type: pinki.TypeAssess}}, nil); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	total := 0
	for _, n := range batches {
		if n > 8 {
			t.Errorf("a batch of %d, over the maximum of 8", n)
		}
		total += n
	}
	if total != 40 {
		t.Fatalf("%d requests committed, want 40", total)
	}
	if !q.Close() || q.Close() {
		t.Fatal("Close reports the wrong first closer")
	}
	if _, err := q.Append(context.Background(), []pinki.Event{{}}, nil); pinki.ErrorCode(err) != pinki.CodeUnavailable {
		t.Fatalf("append after close: %v", err)
	}
	if _, err := q.Append(context.Background(), nil, nil); err == nil {
		t.Fatal("an append of nothing was taken")
	}
}

// TestPanicAnswersTheBatch: a commit that panics answers its requests with
// an internal error and the queue goes on committing.
func TestPanicAnswersTheBatch(t *testing.T) {
	calls := 0
	q := Start(func(batch []*Request) {
		calls++
		if calls == 1 {
			panic("boom")
		}
		for _, r := range batch {
			r.Reply(Result{Pos: pinki.Position{Seq: 1}})
		}
	}, 8, func() error { return pinki.Errorf(pinki.CodeUnavailable, "closed") })
	defer q.Close()
	if _, err := q.Append(context.Background(), []pinki.Event{{}}, nil); pinki.ErrorCode(err) != pinki.CodeInternal {
		t.Fatalf("the panicking commit answered %v", err)
	}
	if _, err := q.Append(context.Background(), []pinki.Event{{}}, nil); err != nil {
		t.Fatalf("the next commit: %v", err)
	}
}
