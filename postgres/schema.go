package postgres

import (
	"context"
	"fmt"
	"hash/fnv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/pinki-ledger/pinki"
)

// migration is one step of the schema. Steps are applied in order, each in
// its own transaction with its row in pinki_migrations; a step is never
// edited once released, only followed by another.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations is the schema, step by step.
//
// events is the ledger: one row per line, seq dense and assigned in ledger
// order under a transaction-scoped advisory lock (so commit order is seq
// order), line holding exactly the bytes pinki.AppendLine wrote (without the
// newline), subject the id the event concerns and version its number among
// the events naming that id (1, 2, …): unique (subject, version) makes the
// database itself refuse two writers racing on one obligation.
//
// obligations is a projection for SQL users, written in the same transaction
// as the events it reflects, by the same fold the service runs. It holds
// what does not depend on the clock (states such as overdue do, and are
// computed by the service).
var migrations = []migration{
	{1, "events and obligations", `
CREATE TABLE events (
	seq         bigint      PRIMARY KEY CHECK (seq > 0),
	subject     text        NOT NULL,
	version     integer     NOT NULL CHECK (version > 0),
	type        text        NOT NULL,
	line        text        NOT NULL,
	ts          timestamptz,
	appended_at timestamptz NOT NULL DEFAULT now(),
	CONSTRAINT events_subject_version UNIQUE (subject, version)
);

CREATE TABLE obligations (
	id          text        PRIMARY KEY,
	kind        text        NOT NULL,
	text        text        NOT NULL,
	by_seat     text        NOT NULL,
	to_seat     text        NOT NULL,
	on_id       text,
	task        text,
	lapse       text        NOT NULL,
	until       timestamptz NOT NULL,
	horizon     timestamptz NOT NULL,
	version     integer     NOT NULL,
	rev         integer     NOT NULL,
	phase       text,
	accepted_by text[]      NOT NULL,
	resolved_as text,
	resolved_by text,
	resolved_at timestamptz,
	digest      text        NOT NULL,
	meta        jsonb,
	created_at  timestamptz NOT NULL,
	created_seq bigint      NOT NULL,
	updated_seq bigint      NOT NULL
);

CREATE INDEX obligations_by_seat ON obligations (by_seat);
CREATE INDEX obligations_to_seat ON obligations (to_seat);
CREATE INDEX obligations_open ON obligations (horizon) WHERE resolved_as IS NULL;
`},
}

// lockKey derives an advisory lock key for purpose in schema, so that ledgers
// in different schemas of one database do not wait on each other.
func lockKey(purpose, schema string) int64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "pinki\x00%s\x00%s", purpose, schema)
	return int64(h.Sum64())
}

// migrate brings the schema up to date. It holds a session advisory lock
// while it works, so that processes starting at once apply each step once;
// a process that finds every step applied changes nothing.
//
// Errors: CodeUnavailable when the database cannot be reached or a step
// fails, or when the database holds steps newer than this version knows.
func migrate(ctx context.Context, pool *pgxpool.Pool, schema string, create bool) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return mapError(ctx, err, "cannot connect")
	}
	defer conn.Release()
	key := lockKey("migrate", schema)
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", key); err != nil {
		return mapError(ctx, err, "cannot lock the schema for migration")
	}
	defer conn.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", key)
	if create {
		if _, err := conn.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+pgx.Identifier{schema}.Sanitize()); err != nil {
			return mapError(ctx, err, "cannot create schema "+schema)
		}
	}
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS pinki_migrations (
	version    integer     PRIMARY KEY,
	name       text        NOT NULL,
	applied_at timestamptz NOT NULL DEFAULT now()
)`); err != nil {
		return mapError(ctx, err, "cannot create the migrations table")
	}
	var applied int
	if err := conn.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM pinki_migrations").Scan(&applied); err != nil {
		return mapError(ctx, err, "cannot read the migrations table")
	}
	latest := migrations[len(migrations)-1].version
	if applied > latest {
		return pinki.Errorf(pinki.CodeUnavailable,
			"the database schema %s is at version %d, newer than the %d this pinki knows: upgrade pinki", schema, applied, latest)
	}
	for _, m := range migrations {
		if m.version <= applied {
			continue
		}
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO pinki_migrations (version, name) VALUES ($1, $2)", m.version, m.name)
			return err
		})
		if err != nil {
			return mapError(ctx, err, fmt.Sprintf("cannot apply migration %d (%s)", m.version, m.name))
		}
	}
	return nil
}
