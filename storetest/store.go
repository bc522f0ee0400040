package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
)

// RunStore runs the store contract tests.
func RunStore(t *testing.T, open func(t *testing.T) pinki.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s pinki.Store)
	}{
		{"Empty", testEmpty},
		{"RoundTrip", testRoundTrip},
		{"Positions", testPositions},
		{"ReadFrom", testReadFrom},
		{"ReadStopsAtStart", testReadStopsAtStart},
		{"ReadErrors", testReadErrors},
		{"Fetch", testFetch},
		{"FenceAfterSeen", testFenceAfterSeen},
		{"FenceCreation", testFenceCreation},
		{"FenceFailsWholeBatch", testFenceFailsWholeBatch},
		{"FenceBatchSameSubject", testFenceBatchSameSubject},
		{"AtomicBatch", testAtomicBatch},
		{"AppendNothing", testAppendNothing},
		{"Wait", testWait},
		{"WaitWakes", testWaitWakes},
		{"ConcurrentAppenders", testConcurrentAppenders},
		{"RacingWriters", testRacingWriters},
		{"Close", testClose},
		{"CloseRacingAppends", testCloseRacingAppends},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, open(t))
		})
	}
}

func testEmpty(t *testing.T, s pinki.Store) {
	entries, end := ReadAll(t, s, pinki.Position{})
	if len(entries) != 0 || end.Seq != 0 {
		t.Fatalf("a new store reads %d entries up to %+v, want none at seq 0", len(entries), end)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := s.Wait(ctx, pinki.Position{}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Wait on an empty store = %v, want the context's deadline error", err)
	}
}

// testRoundTrip appends one event of every type (one per Append, then all
// in one Append) and reads them back byte-identical.
func testRoundTrip(t *testing.T, s pinki.Store) {
	events := everyKind()
	for i := range events {
		MustAppend(t, s, events[i:i+1])
	}
	MustAppend(t, s, events)
	entries, _ := ReadAll(t, s, pinki.Position{})
	want := append(append([]pinki.Event(nil), events...), events...)
	if len(entries) != len(want) {
		t.Fatalf("read %d entries, want %d", len(entries), len(want))
	}
	var last int64
	for i, en := range entries {
		if en.Err != nil {
			t.Fatalf("entry %d (seq %d) did not decode: %v: %s", i, en.Seq, en.Err, en.Raw)
		}
		if en.Seq <= last {
			t.Fatalf("entry %d has seq %d after seq %d", i, en.Seq, last)
		}
		last = en.Seq
		if got, want := Line(&en.Event), Line(&want[i]); got != want {
			t.Fatalf("entry %d (seq %d) changed in the store:\n got %s\nwant %s", i, en.Seq, got, want)
		}
		if en.Event.At != want[i].At || en.Event.UntilAt != want[i].UntilAt {
			t.Fatalf("entry %d: parsed instants %d/%d, want %d/%d", i, en.Event.At, en.Event.UntilAt, want[i].At, want[i].UntilAt)
		}
	}
}

// testPositions checks that every Append returns the position after its last
// event, that positions grow by the number of events appended, and that Read
// ends where the last Append did.
func testPositions(t *testing.T, s pinki.Store) {
	var prev pinki.Position
	var ends []int64
	for i := 0; i < 6; i++ {
		batch := []pinki.Event{Promise(fmt.Sprintf("pos-%d", i))}
		for j := 0; j < i%3; j++ {
			batch = append(batch, Amend(fmt.Sprintf("pos-%d", i), j))
		}
		pos := MustAppend(t, s, batch)
		if pos.Seq != prev.Seq+int64(len(batch)) {
			t.Fatalf("append %d of %d events returned seq %d after seq %d", i, len(batch), pos.Seq, prev.Seq)
		}
		prev = pos
		ends = append(ends, pos.Seq)
	}
	entries, end := ReadAll(t, s, pinki.Position{})
	if end.Seq != prev.Seq {
		t.Fatalf("Read ended at seq %d, the last Append at seq %d", end.Seq, prev.Seq)
	}
	if n := len(entries); n == 0 || entries[n-1].Seq != prev.Seq {
		t.Fatalf("the last entry read is not at the last Append's seq %d", prev.Seq)
	}
	seqs := map[int64]bool{}
	for _, en := range entries {
		seqs[en.Seq] = true
	}
	for i, seq := range ends {
		if !seqs[seq] {
			t.Fatalf("append %d returned seq %d, which no entry has", i, seq)
		}
	}
	// Reading on from the end finds nothing and stays there.
	more, again := ReadAll(t, s, end)
	if len(more) != 0 || again.Seq != end.Seq {
		t.Fatalf("Read from the end read %d entries up to seq %d, want none at seq %d", len(more), again.Seq, end.Seq)
	}
}

// testReadFrom reads from every position an Append returned, with and
// without the adapter's mark.
func testReadFrom(t *testing.T, s pinki.Store) {
	var positions []pinki.Position
	var events []pinki.Event
	for i := 0; i < 8; i++ {
		e := Promise(fmt.Sprintf("from-%d", i))
		events = append(events, e)
		positions = append(positions, MustAppend(t, s, []pinki.Event{e}))
	}
	check := func(from pinki.Position, wantFrom int) {
		t.Helper()
		entries, end := ReadAll(t, s, from)
		if len(entries) != len(events)-wantFrom {
			t.Fatalf("Read(%+v) read %d entries, want %d", from, len(entries), len(events)-wantFrom)
		}
		for i, en := range entries {
			if en.Err != nil || Line(&en.Event) != Line(&events[wantFrom+i]) {
				t.Fatalf("Read(%+v): entry %d is %s, want %s", from, i, Line(&en.Event), Line(&events[wantFrom+i]))
			}
		}
		if end.Seq != positions[len(positions)-1].Seq {
			t.Fatalf("Read(%+v) ended at seq %d, want %d", from, end.Seq, positions[len(positions)-1].Seq)
		}
	}
	check(pinki.Position{}, 0)
	for i, p := range positions {
		check(p, i+1)
		check(pinki.Position{Seq: p.Seq}, i+1) // a position known by its sequence number alone
	}
}

// testReadStopsAtStart checks that Read stops at the end of the ledger as it
// was when Read began, even when an append lands during the Read.
func testReadStopsAtStart(t *testing.T, s pinki.Store) {
	MustAppend(t, s, []pinki.Event{Promise("snap-1")})
	MustAppend(t, s, []pinki.Event{Promise("snap-2")})
	n := 0
	end, err := s.Read(testContext(t), pinki.Position{}, func(en pinki.Entry) error {
		if n == 0 {
			MustAppend(t, s, []pinki.Event{Promise("snap-3")})
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Fatalf("a Read that began with 2 entries read %d", n)
	}
	more, _ := ReadAll(t, s, end)
	if len(more) != 1 || more[0].Event.ID != "snap-3" {
		t.Fatalf("reading on from %+v found %d entries, want snap-3 alone", end, len(more))
	}
}

// testReadErrors checks that an error from fn stops the read and is returned,
// and that a cancelled context ends a read with the context's error.
func testReadErrors(t *testing.T, s pinki.Store) {
	for i := 0; i < 5; i++ {
		MustAppend(t, s, []pinki.Event{Promise(fmt.Sprintf("rerr-%d", i))})
	}
	stop := errors.New("enough")
	calls := 0
	_, err := s.Read(testContext(t), pinki.Position{}, func(en pinki.Entry) error {
		calls++
		if calls == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) {
		t.Fatalf("Read returned %v, want fn's error", err)
	}
	if calls != 2 {
		t.Fatalf("fn was called %d times after it returned an error on call 2", calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = s.Read(ctx, pinki.Position{}, func(pinki.Entry) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Read with a cancelled context returned %v, want context.Canceled", err)
	}
}

// testFetch checks, for stores that implement pinki.Fetcher, that fetching
// lines by the references Read handed out returns the same entries, in the
// order asked.
func testFetch(t *testing.T, s pinki.Store) {
	fetcher, ok := s.(pinki.Fetcher)
	if !ok {
		t.Skipf("%T does not implement pinki.Fetcher", s)
	}
	events := everyKind()
	MustAppend(t, s, events[:4])
	MustAppend(t, s, events[4:])
	entries, _ := ReadAll(t, s, pinki.Position{})
	var refs []pinki.LineRef
	var want []pinki.Entry
	for i := len(entries) - 1; i >= 0; i -= 2 { // backwards, every other line
		refs = append(refs, pinki.LineRef{Seq: entries[i].Seq, Offset: entries[i].Offset})
		want = append(want, entries[i])
	}
	got, err := fetcher.Fetch(testContext(t), refs)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("fetched %d entries for %d refs", len(got), len(refs))
	}
	for i := range got {
		if got[i].Seq != want[i].Seq || got[i].Err != nil || Line(&got[i].Event) != Line(&want[i].Event) {
			t.Fatalf("fetch %d: seq %d %s, want seq %d %s", i, got[i].Seq, Line(&got[i].Event), want[i].Seq, Line(&want[i].Event))
		}
	}
}

func testFenceAfterSeen(t *testing.T, s pinki.Store) {
	p1 := MustAppend(t, s, []pinki.Event{Promise("fa")})
	p2 := MustAppend(t, s, []pinki.Event{Amend("fa", 1)}, pinki.Fence{Subject: "fa", Version: 1, Seen: p1})
	_, err := s.Append(testContext(t), []pinki.Event{Amend("fa", 2)}, []pinki.Fence{{Subject: "fa", Version: 1, Seen: p1}})
	wantCode(t, err, pinki.CodeConflict, "append fenced at a position before a later change")
	// Other subjects appended after Seen do not fail the fence.
	MustAppend(t, s, []pinki.Event{Promise("fb")})
	MustAppend(t, s, []pinki.Event{Amend("fa", 3)}, pinki.Fence{Subject: "fa", Version: 2, Seen: p2})
	// A fence by sequence number alone works the same.
	_, err = s.Append(testContext(t), []pinki.Event{Amend("fa", 4)}, []pinki.Fence{{Subject: "fa", Version: 2, Seen: pinki.Position{Seq: p2.Seq}}})
	wantCode(t, err, pinki.CodeConflict, "append fenced by seq before a later change")
	entries, _ := ReadAll(t, s, pinki.Position{})
	if len(entries) != 4 {
		t.Fatalf("the ledger holds %d entries, want 4: a failed fence must append nothing", len(entries))
	}
}

func testFenceCreation(t *testing.T, s pinki.Store) {
	p0 := MustAppend(t, s, []pinki.Event{Promise("other")})
	MustAppend(t, s, []pinki.Event{Promise("fc")}, pinki.Fence{Subject: "fc", Version: 0, Seen: p0})
	_, err := s.Append(testContext(t), []pinki.Event{Promise("fc")}, []pinki.Fence{{Subject: "fc", Version: 0, Seen: p0}})
	wantCode(t, err, pinki.CodeConflict, "second creation fenced at version 0")
	// An event naming an id before its creation takes the id too.
	p1 := MustAppend(t, s, []pinki.Event{Amend("dangling", 1)})
	_, err = s.Append(testContext(t), []pinki.Event{Promise("dangling")}, []pinki.Fence{{Subject: "dangling", Version: 0, Seen: p0}})
	wantCode(t, err, pinki.CodeConflict, "creation fenced before a dangling event named the id")
	MustAppend(t, s, []pinki.Event{Promise("dangling")}, pinki.Fence{Subject: "dangling", Version: 1, Seen: p1})
	// A creation fence on the empty ledger's start.
	MustAppend(t, s, []pinki.Event{Promise("fresh")}, pinki.Fence{Subject: "fresh", Version: 0})
	entries, _ := ReadAll(t, s, pinki.Position{})
	if len(entries) != 5 {
		t.Fatalf("the ledger holds %d entries, want 5", len(entries))
	}
}

// testFenceFailsWholeBatch checks that one failing fence refuses the whole
// append, including the events the other fences would have allowed.
func testFenceFailsWholeBatch(t *testing.T, s pinki.Store) {
	p1 := MustAppend(t, s, []pinki.Event{Promise("wa")})
	MustAppend(t, s, []pinki.Event{Amend("wa", 1)})
	_, err := s.Append(testContext(t), []pinki.Event{Promise("wb"), Amend("wa", 2)}, []pinki.Fence{
		{Subject: "wb", Version: 0, Seen: p1},
		{Subject: "wa", Version: 1, Seen: p1},
	})
	wantCode(t, err, pinki.CodeConflict, "batch with one stale fence")
	entries, _ := ReadAll(t, s, pinki.Position{})
	if len(entries) != 2 {
		t.Fatalf("the ledger holds %d entries, want 2", len(entries))
	}
	for _, en := range entries {
		if en.Event.Key() == "wb" {
			t.Fatal("an event of a refused batch was appended")
		}
	}
}

// testFenceBatchSameSubject sends many requests fenced on one subject at
// once, so that several land in one group commit: the first wins, every other
// conflicts, whether it was decided in the same batch or a later one.
func testFenceBatchSameSubject(t *testing.T, s pinki.Store) {
	seen := MustAppend(t, s, []pinki.Event{Promise("gb")})
	for round := 0; round < 5; round++ {
		const n = 16
		errs := race(n, func(i int) error {
			_, err := s.Append(testContext(t), []pinki.Event{Amend("gb", round*100+i)},
				[]pinki.Fence{{Subject: "gb", Version: 1 + round, Seen: seen}})
			return err
		})
		wins := 0
		for _, err := range errs {
			if err == nil {
				wins++
			} else if pinki.ErrorCode(err) != pinki.CodeConflict {
				t.Fatalf("round %d: a losing writer got %v, want a conflict", round, err)
			}
		}
		if wins != 1 {
			t.Fatalf("round %d: %d of %d writers fenced at one position won, want exactly 1", round, wins, n)
		}
		_, seen = ReadAll(t, s, pinki.Position{})
		if seen.Seq != int64(2+round) {
			t.Fatalf("round %d: the ledger ends at seq %d, want %d", round, seen.Seq, 2+round)
		}
	}
}

// testAtomicBatch checks that a multi-event append lands in order, with
// consecutive sequence numbers, and reads back as a unit.
func testAtomicBatch(t *testing.T, s pinki.Store) {
	MustAppend(t, s, []pinki.Event{Promise("before")})
	batch := []pinki.Event{Promise("ab"), Amend("ab", 1), Amend("ab", 2), Resolve("ab", "https://example.org/ab")}
	pos := MustAppend(t, s, batch, pinki.Fence{Subject: "ab", Version: 0})
	MustAppend(t, s, []pinki.Event{Promise("after")})
	entries, _ := ReadAll(t, s, pinki.Position{})
	if len(entries) != 6 {
		t.Fatalf("read %d entries, want 6", len(entries))
	}
	for i, e := range batch {
		en := entries[1+i]
		if Line(&en.Event) != Line(&e) {
			t.Fatalf("batch event %d reads as %s, want %s", i, Line(&en.Event), Line(&e))
		}
		if en.Seq != pos.Seq-int64(len(batch)-1-i) {
			t.Fatalf("batch event %d has seq %d; the batch ended at seq %d", i, en.Seq, pos.Seq)
		}
	}
}

func testAppendNothing(t *testing.T, s pinki.Store) {
	if _, err := s.Append(testContext(t), nil, nil); err == nil {
		t.Fatal("an append of no events succeeded")
	}
	entries, _ := ReadAll(t, s, pinki.Position{})
	if len(entries) != 0 {
		t.Fatalf("an empty append left %d entries", len(entries))
	}
}

func testWait(t *testing.T, s pinki.Store) {
	p1 := MustAppend(t, s, []pinki.Event{Promise("w1")})
	p2 := MustAppend(t, s, []pinki.Event{Promise("w2")})
	for _, after := range []pinki.Position{{}, p1, {Seq: p1.Seq}} {
		if err := s.Wait(testContext(t), after); err != nil {
			t.Fatalf("Wait(%+v) with an entry after it: %v", after, err)
		}
	}
	for _, after := range []pinki.Position{p2, {Seq: p2.Seq}} {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		err := s.Wait(ctx, after)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Wait(%+v) at the end = %v, want the context's deadline error", after, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Wait(ctx, p2) }()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Wait after cancel = %v, want context.Canceled", err)
		}
	case <-time.After(timeout):
		t.Fatal("Wait did not return after its context was cancelled")
	}
}

func testWaitWakes(t *testing.T, s pinki.Store) {
	end := MustAppend(t, s, []pinki.Event{Promise("ww0")})
	for i := 1; i <= 3; i++ {
		done := make(chan error, 1)
		from := end
		if i == 2 {
			from = pinki.Position{Seq: end.Seq}
		}
		go func() { done <- s.Wait(testContext(t), from) }()
		end = MustAppend(t, s, []pinki.Event{Promise(fmt.Sprintf("ww%d", i))})
		if err := <-done; err != nil {
			t.Fatalf("Wait(%+v) across an append: %v", from, err)
		}
	}
}

// testConcurrentAppenders runs many goroutines appending one to three events
// each time, some fenced: every acknowledged event must be in the ledger
// exactly once, each append's events consecutive and ending at the position
// returned, and each goroutine's appends in the order it made them.
func testConcurrentAppenders(t *testing.T, s pinki.Store) {
	const writers, appends = 8, 25
	type ack struct {
		ids []string
		pos pinki.Position
	}
	acks := make([][]ack, writers)
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var seen pinki.Position
			for i := 0; i < appends; i++ {
				id := fmt.Sprintf("c%d-%d", w, i)
				batch := []pinki.Event{Promise(id)}
				for j := 0; j < i%3; j++ {
					batch = append(batch, Amend(id, j))
				}
				var fences []pinki.Fence
				if i%2 == 0 {
					fences = []pinki.Fence{{Subject: id, Version: 0, Seen: seen}}
				}
				pos, err := s.Append(testContext(t), batch, fences)
				if err != nil {
					errs <- fmt.Errorf("writer %d append %d: %w", w, i, err)
					return
				}
				seen = pos
				ids := make([]string, len(batch))
				for k := range batch {
					ids[k] = id
				}
				acks[w] = append(acks[w], ack{ids: ids, pos: pos})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	entries, _ := ReadAll(t, s, pinki.Position{})
	bySeq := map[int64]int{}
	creations := map[string]int{}
	var last int64
	for i, en := range entries {
		if en.Err != nil {
			t.Fatalf("seq %d does not decode: %v", en.Seq, en.Err)
		}
		if en.Seq <= last {
			t.Fatalf("seq %d read after seq %d", en.Seq, last)
		}
		last = en.Seq
		bySeq[en.Seq] = i
		if en.Event.Type == pinki.TypePromise {
			creations[en.Event.ID]++
		}
	}
	total := 0
	for w := range acks {
		var prev int64
		for i, a := range acks[w] {
			total += len(a.ids)
			if a.pos.Seq <= prev {
				t.Fatalf("writer %d: append %d ended at seq %d, not after its previous append at %d", w, i, a.pos.Seq, prev)
			}
			prev = a.pos.Seq
			end, ok := bySeq[a.pos.Seq]
			if !ok {
				t.Fatalf("writer %d: append %d ended at seq %d, which the ledger does not hold", w, i, a.pos.Seq)
			}
			for k := range a.ids {
				idx := end - (len(a.ids) - 1 - k)
				if idx < 0 || entries[idx].Event.Key() != a.ids[k] {
					t.Fatalf("writer %d: append %d is not consecutive in the ledger ending at seq %d", w, i, a.pos.Seq)
				}
				if k > 0 && entries[idx].Seq != entries[idx-1].Seq+1 {
					t.Fatalf("writer %d: append %d has a gap inside it", w, i)
				}
			}
			if creations[a.ids[0]] != 1 {
				t.Fatalf("%s was created %d times, want once", a.ids[0], creations[a.ids[0]])
			}
		}
	}
	if total != len(entries) {
		t.Fatalf("the ledger holds %d entries; %d events were acknowledged", len(entries), total)
	}
}

// testRacingWriters races writers resolving one obligation, each fenced at
// the position it saw the obligation at: exactly one resolve lands, and every
// other writer gets CodeConflict.
func testRacingWriters(t *testing.T, s pinki.Store) {
	const n = 12
	for round := 0; round < 3; round++ {
		id := fmt.Sprintf("race-%d", round)
		seen := MustAppend(t, s, []pinki.Event{Promise(id)})
		results := race(n, func(i int) error {
			_, err := s.Append(testContext(t), []pinki.Event{Resolve(id, fmt.Sprintf("https://example.org/%d", i))},
				[]pinki.Fence{{Subject: id, Version: 1, Seen: seen}})
			return err
		})
		winner := -1
		for i, err := range results {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("round %d: writers %d and %d both won", round, winner, i)
			case err == nil:
				winner = i
			default:
				wantCode(t, err, pinki.CodeConflict, fmt.Sprintf("round %d: losing writer %d", round, i))
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no writer won", round)
		}
		entries, _ := ReadAll(t, s, seen)
		if len(entries) != 1 || entries[0].Event.Evidence[0] != fmt.Sprintf("https://example.org/%d", winner) {
			t.Fatalf("round %d: the ledger holds %d resolves after the creation, want the winner's alone", round, len(entries))
		}
	}
}

func testClose(t *testing.T, s pinki.Store) {
	end := MustAppend(t, s, []pinki.Event{Promise("cl")})
	waited := make(chan error, 1)
	go func() { waited <- s.Wait(testContext(t), end) }()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	select {
	case err := <-waited:
		if err == nil {
			t.Fatal("a Wait blocked across Close returned nil, with nothing appended")
		}
	case <-time.After(timeout):
		t.Fatal("a Wait blocked across Close did not return")
	}
	_, err := s.Append(testContext(t), []pinki.Event{Promise("late")}, nil)
	wantCode(t, err, pinki.CodeUnavailable, "Append after Close")
	if err := s.Wait(testContext(t), end); err == nil {
		t.Fatal("Wait after Close returned nil with nothing appended")
	}
}

// testCloseRacingAppends closes the store while appends are under way: every
// Append returns, either acknowledged or with CodeUnavailable.
func testCloseRacingAppends(t *testing.T, s pinki.Store) {
	MustAppend(t, s, []pinki.Event{Promise("cr")})
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; ; j++ {
				_, err := s.Append(testContext(t), []pinki.Event{Amend("cr", i*1000+j)}, nil)
				if err != nil {
					if code := pinki.ErrorCode(err); code != pinki.CodeUnavailable {
						t.Errorf("append racing Close: %v (code %s), want success or unavailable", err, code)
					}
					return
				}
			}
		}()
	}
	time.Sleep(20 * time.Millisecond) // let appends get under way; any moment will do
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
		t.Fatal("appends racing Close did not all return")
	}
}
