package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
)

// upsertObligation writes one row of the obligations projection.
const upsertObligation = `INSERT INTO obligations (id, kind, text, by_seat, to_seat, on_id, task, lapse,
	until, horizon, version, rev, phase, accepted_by, resolved_as, resolved_by, resolved_at, digest, meta,
	created_at, created_seq, updated_seq)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19::jsonb, $20, $21, $22)
ON CONFLICT (id) DO UPDATE SET kind = EXCLUDED.kind, text = EXCLUDED.text, by_seat = EXCLUDED.by_seat,
	to_seat = EXCLUDED.to_seat, on_id = EXCLUDED.on_id, task = EXCLUDED.task, lapse = EXCLUDED.lapse,
	until = EXCLUDED.until, horizon = EXCLUDED.horizon, version = EXCLUDED.version, rev = EXCLUDED.rev,
	phase = EXCLUDED.phase, accepted_by = EXCLUDED.accepted_by, resolved_as = EXCLUDED.resolved_as,
	resolved_by = EXCLUDED.resolved_by, resolved_at = EXCLUDED.resolved_at, digest = EXCLUDED.digest,
	meta = EXCLUDED.meta, created_at = EXCLUDED.created_at, created_seq = EXCLUDED.created_seq,
	updated_seq = EXCLUDED.updated_seq`

// project queues into b the upserts that bring the obligations rows of
// subjects up to date, inside the transaction that appended to them: it
// folds every event naming them (the new ones included) with the service's
// own fold, so the projection cannot disagree with it. A subject nothing
// declares (events naming an id before its creation) has no row.
func project(ctx context.Context, tx pgx.Tx, subjects []string, b *pgx.Batch) error {
	rows, err := tx.Query(ctx, "SELECT seq, line FROM events WHERE subject = ANY($1) ORDER BY seq", subjects)
	if err != nil {
		return err
	}
	l := fold.New()
	latest := make(map[string]int64, len(subjects))
	var dec pinki.Decoder
	var seq int64
	var line string
	_, err = pgx.ForEachRow(rows, []any{&seq, &line}, func() error {
		e, err := dec.Decode([]byte(line))
		if err != nil {
			return nil // a line this version cannot read: the fold skips it too
		}
		l.Apply(seq, &e)
		latest[e.Key()] = seq
		return nil
	})
	if err != nil {
		return err
	}
	for _, id := range subjects {
		o := l.Get(id)
		if o == nil {
			continue
		}
		r := &o.Record
		_, horizonAt := o.Horizon()
		accepted := []string{}
		for _, a := range o.CurrentAccepts() {
			accepted = append(accepted, a.By)
		}
		var resolvedAs, resolvedBy, resolvedAt any
		if res := o.Resolution; res != nil {
			resolvedAs, resolvedBy, resolvedAt = string(res.As), res.By, instant(res.At)
		}
		lapse := r.Lapse()
		if lapse == "" {
			lapse = pinki.LapseOverdue
		}
		b.Queue(upsertObligation, id, o.Kind.String(), r.Text, r.By, r.To, null(r.On), null(r.Task()),
			string(lapse), instant(r.UntilAt), instant(horizonAt), o.Version, o.Rev, null(string(o.Phase())),
			accepted, resolvedAs, resolvedBy, resolvedAt, o.Digest(), null(r.Meta()),
			instant(r.At), r.Seq, latest[id])
	}
	return nil
}

// instant converts Unix nanoseconds to a time for a timestamptz column.
func instant(ns int64) time.Time { return time.Unix(0, ns).UTC() }

// null maps "" to SQL NULL.
func null(s string) any {
	if s == "" {
		return nil
	}
	return s
}
