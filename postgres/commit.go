package postgres

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pinki-ledger/pinki"
)

// commit decides a batch of appends and answers each request.
//
// The batch is one transaction. When it fails on a unique violation (a row
// some writer put there without taking the lock), each request is committed
// alone, so that only the one that collides is refused.
func (s *Store) commit(batch []*request) {
	res, err := s.commitRetry(batch)
	if err != nil && isUnique(err) && len(batch) > 1 {
		for _, r := range batch {
			s.commit([]*request{r})
		}
		return
	}
	for i, r := range batch {
		if err != nil {
			r.Reply(result{Err: mapError(context.Background(), err, "cannot append")})
			continue
		}
		r.Reply(res[i])
	}
}

// commitRetry runs commitTx, once more on fresh connections when the first
// attempt failed on a broken connection before writing anything (the
// database restarted since the pool last used its connections).
func (s *Store) commitRetry(batch []*request) ([]result, error) {
	res, wrote, err := s.commitTx(batch)
	if err != nil && !wrote && brokenConn(context.Background(), err) {
		s.pool.Reset()
		res, _, err = s.commitTx(batch)
	}
	return res, err
}

// subjectState is what the ledger holds for one subject: how many events name
// it (its version) and the seq of the latest.
type subjectState struct {
	version int
	seq     int64
}

// commitTx commits the batch in one transaction under the append lock: it
// reads the end of the ledger and the state of every subject the batch names
// or fences, decides each request in order (a failed fence refuses that
// request alone), copies the accepted events in, updates the projection,
// notifies and commits. wrote reports whether it got as far as writing.
func (s *Store) commitTx(batch []*request) (res []result, wrote bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.CommitTimeout)
	defer cancel()
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return nil, false, err
	}
	defer func() {
		if err != nil {
			rctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			tx.Rollback(rctx)
		}
	}()
	// Take the lock, then read the end and the subjects' states: one round
	// trip, run in this order.
	var last int64
	var state map[string]subjectState
	b := &pgx.Batch{}
	b.Queue("SELECT pg_advisory_xact_lock($1)", s.lockKey)
	b.Queue("SELECT coalesce(max(seq), 0) FROM events").QueryRow(func(row pgx.Row) error { return row.Scan(&last) })
	queueSubjectStates(b, batch, &state)
	if err = tx.SendBatch(ctx, b).Close(); err != nil {
		return nil, false, err
	}

	res = make([]result, len(batch))
	touched := map[string]bool{}
	var touchedList []string
	var rows [][]any
	seq := last
	var firstLine, lastLine string
	for i, r := range batch {
		if err := checkFences(r.Fences, state, touched, last); err != nil {
			res[i].Err = err
			continue
		}
		for j := range r.Events {
			e := &r.Events[j]
			key := e.Key()
			seq++
			st := state[key]
			st.version++
			st.seq = seq
			state[key] = st
			if !touched[key] {
				touched[key] = true
				touchedList = append(touchedList, key)
			}
			line := pinki.AppendLine(nil, e)
			text := string(line[:len(line)-1])
			var ts any
			if e.TS != "" {
				ts = time.Unix(0, e.At).UTC()
			}
			rows = append(rows, []any{seq, key, st.version, string(e.Type), text, ts})
			if firstLine == "" {
				firstLine = text
			}
			lastLine = text
		}
		res[i].Pos = pinki.Position{Seq: seq}
	}
	if len(rows) == 0 {
		tx.Rollback(ctx)
		return res, false, nil
	}

	wrote = true
	if _, err = tx.CopyFrom(ctx, pgx.Identifier{"events"},
		[]string{"seq", "subject", "version", "type", "line", "ts"}, pgx.CopyFromRows(rows)); err != nil {
		return nil, wrote, err
	}
	// Update the projection and notify: one round trip after the fold read.
	b = &pgx.Batch{}
	if err = project(ctx, tx, touchedList, b); err != nil {
		return nil, wrote, err
	}
	b.Queue("SELECT pg_notify($1, $2)", s.channel, strconv.FormatInt(seq, 10))
	if err = tx.SendBatch(ctx, b).Close(); err != nil {
		return nil, wrote, err
	}
	if err = tx.Commit(ctx); err != nil {
		if serverError(err) {
			return nil, wrote, err // refused and rolled back
		}
		// The connection broke during the commit: the transaction may or may
		// not have committed. Look.
		landed, lerr := s.landed(last+1, firstLine, seq, lastLine)
		switch {
		case lerr != nil:
			return nil, wrote, fmt.Errorf("the connection broke during the commit and its outcome cannot be read back (%v): %w", lerr, err)
		case !landed:
			return nil, wrote, fmt.Errorf("the connection broke during the commit, which did not land: %w", err)
		}
		err = nil
	}
	s.observe(seq)
	return res, wrote, nil
}

// queueSubjectStates queues the query for the version and latest seq of
// every subject the batch's events name or its fences guard, into *state.
func queueSubjectStates(b *pgx.Batch, batch []*request, state *map[string]subjectState) {
	seen := map[string]bool{}
	var subjects []string
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
			subjects = append(subjects, s)
		}
	}
	for _, r := range batch {
		for _, fe := range r.Fences {
			add(fe.Subject)
		}
		for i := range r.Events {
			add(r.Events[i].Key())
		}
	}
	b.Queue(`SELECT DISTINCT ON (subject) subject, version, seq FROM events
WHERE subject = ANY($1) ORDER BY subject, version DESC`, subjects).Query(func(rows pgx.Rows) error {
		*state = make(map[string]subjectState, len(subjects))
		var subject string
		var st subjectState
		_, err := pgx.ForEachRow(rows, []any{&subject, &st.version, &st.seq}, func() error {
			(*state)[subject] = st
			return nil
		})
		return err
	})
}

// checkFences decides one request's fences: each fails when the subject was
// written after the position the writer saw it at, when it holds another
// number of events than the writer saw, when an earlier request of the batch
// wrote it, or when the position lies beyond the end of the ledger.
func checkFences(fences []pinki.Fence, state map[string]subjectState, touched map[string]bool, last int64) error {
	for _, fe := range fences {
		st := state[fe.Subject]
		switch {
		case touched[fe.Subject]:
			return conflict(fe.Subject, "a write committed together with this one changed it first")
		case fe.Seen.Seq > last:
			return fmt.Errorf("the ledger holds %d events, fewer than the %d this write was decided on: %w", last, fe.Seen.Seq, pinki.ErrReplaced)
		case st.seq > fe.Seen.Seq:
			return conflict(fe.Subject, fmt.Sprintf("event %d names it, after the %d this write was decided on", st.seq, fe.Seen.Seq))
		case st.version != fe.Version:
			return conflict(fe.Subject, fmt.Sprintf("%d events name it, not the %d this write was decided on", st.version, fe.Version))
		}
	}
	return nil
}

// landed reports whether the events a commit assigned seqs first…last to are
// in the ledger, after the connection broke during that commit.
func (s *Store) landed(first int64, firstLine string, last int64, lastLine string) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rows, err := s.pool.Query(ctx, "SELECT seq, line FROM events WHERE seq = $1 OR seq = $2", first, last)
	if err != nil {
		return false, err
	}
	found := 0
	var seq int64
	var line string
	_, err = pgx.ForEachRow(rows, []any{&seq, &line}, func() error {
		if seq == first && line == firstLine || seq == last && line == lastLine {
			found++
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	want := 2
	if first == last {
		want = 1
	}
	return found == want, nil
}
