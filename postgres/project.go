package postgres

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
)

// upsertObligations writes the rows of the obligations projection, one array
// per column (one statement for every obligation a commit touched). The
// acceptances ride as a JSON array each, turned back into text[].
const upsertObligations = `INSERT INTO obligations (id, kind, text, by_seat, to_seat, on_id, task, lapse,
	until, horizon, version, rev, phase, accepted_by, resolved_as, resolved_by, resolved_at, digest, meta,
	created_at, created_seq, updated_seq)
SELECT id, kind, text, by_seat, to_seat, on_id, task, lapse, until, horizon, version, rev, phase,
	ARRAY(SELECT jsonb_array_elements_text(accepted)), resolved_as, resolved_by, resolved_at, digest, meta,
	created_at, created_seq, updated_seq
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[],
	$9::timestamptz[], $10::timestamptz[], $11::integer[], $12::integer[], $13::text[], $14::jsonb[],
	$15::text[], $16::text[], $17::timestamptz[], $18::text[], $19::jsonb[], $20::timestamptz[],
	$21::bigint[], $22::bigint[])
	AS r(id, kind, text, by_seat, to_seat, on_id, task, lapse, until, horizon, version, rev, phase, accepted,
	resolved_as, resolved_by, resolved_at, digest, meta, created_at, created_seq, updated_seq)
ON CONFLICT (id) DO UPDATE SET kind = EXCLUDED.kind, text = EXCLUDED.text, by_seat = EXCLUDED.by_seat,
	to_seat = EXCLUDED.to_seat, on_id = EXCLUDED.on_id, task = EXCLUDED.task, lapse = EXCLUDED.lapse,
	until = EXCLUDED.until, horizon = EXCLUDED.horizon, version = EXCLUDED.version, rev = EXCLUDED.rev,
	phase = EXCLUDED.phase, accepted_by = EXCLUDED.accepted_by, resolved_as = EXCLUDED.resolved_as,
	resolved_by = EXCLUDED.resolved_by, resolved_at = EXCLUDED.resolved_at, digest = EXCLUDED.digest,
	meta = EXCLUDED.meta, created_at = EXCLUDED.created_at, created_seq = EXCLUDED.created_seq,
	updated_seq = EXCLUDED.updated_seq`

// projectionRows holds the projection's rows as one slice per column.
type projectionRows struct {
	id, kind, text, by, to, on, task, lapse []*string
	until, horizon, resolvedAt, createdAt   []*time.Time
	version, rev                            []int32
	phase, resolvedAs, resolvedBy, digest   []*string
	accepted, meta                          []*string
	createdSeq, updatedSeq                  []int64
}

func ptr(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func tptr(ns int64) *time.Time {
	t := instant(ns)
	return &t
}

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
	var p projectionRows
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
		acceptedJSON, _ := json.Marshal(accepted)
		var resolvedAs, resolvedBy *string
		var resolvedAt *time.Time
		if res := o.Resolution; res != nil {
			resolvedAs, resolvedBy, resolvedAt = ptr(string(res.As)), ptr(res.By), tptr(res.At)
		}
		lapse := r.Lapse()
		if lapse == "" {
			lapse = pinki.LapseOverdue
		}
		p.id = append(p.id, ptr(id))
		p.kind = append(p.kind, ptr(o.Kind.String()))
		p.text = append(p.text, &r.Text)
		p.by = append(p.by, &r.By)
		p.to = append(p.to, &r.To)
		p.on = append(p.on, ptr(r.On))
		p.task = append(p.task, ptr(r.Task()))
		p.lapse = append(p.lapse, ptr(string(lapse)))
		p.until = append(p.until, tptr(r.UntilAt))
		p.horizon = append(p.horizon, tptr(horizonAt))
		p.version = append(p.version, int32(o.Version))
		p.rev = append(p.rev, int32(o.Rev))
		p.phase = append(p.phase, ptr(string(o.Phase())))
		p.accepted = append(p.accepted, ptr(string(acceptedJSON)))
		p.resolvedAs = append(p.resolvedAs, resolvedAs)
		p.resolvedBy = append(p.resolvedBy, resolvedBy)
		p.resolvedAt = append(p.resolvedAt, resolvedAt)
		p.digest = append(p.digest, ptr(o.Digest()))
		p.meta = append(p.meta, ptr(r.Meta()))
		p.createdAt = append(p.createdAt, tptr(r.At))
		p.createdSeq = append(p.createdSeq, r.Seq)
		p.updatedSeq = append(p.updatedSeq, latest[id])
	}
	if len(p.id) > 0 {
		b.Queue(upsertObligations, p.id, p.kind, p.text, p.by, p.to, p.on, p.task, p.lapse, p.until, p.horizon,
			p.version, p.rev, p.phase, p.accepted, p.resolvedAs, p.resolvedBy, p.resolvedAt, p.digest, p.meta,
			p.createdAt, p.createdSeq, p.updatedSeq)
	}
	return nil
}

// instant converts Unix nanoseconds to a time for a timestamptz column.
func instant(ns int64) time.Time { return time.Unix(0, ns).UTC() }
