package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/tokens"
)

// tokensMigration is the schema step of the token store: one row per token,
// in creation order (n), holding its public id, the SHA-256 hash of its
// secret (never the secret), the seat and role it is bound to, and when it
// was created and revoked.
var tokensMigration = migration{2, "tokens", `
CREATE TABLE tokens (
	n       bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	id      text        NOT NULL UNIQUE,
	hash    text        NOT NULL UNIQUE,
	seat    text        NOT NULL,
	role    text        NOT NULL CHECK (role IN ('seat', 'observer', 'verifier', 'admin')),
	created timestamptz NOT NULL,
	revoked timestamptz
);
`}

// The token store's step follows the ledger's own steps (schema.go).
func init() { migrations = append(migrations, tokensMigration) }

// Tokens is a tokens.Store kept in the tokens table beside the ledger, so
// that every pinki server on the database authenticates with the same
// tokens. Lookup reads the table on every call: a revocation made through
// any process refuses the token at its next request. It is safe for
// concurrent use.
type Tokens struct {
	s     *Store
	clock func() time.Time
}

var _ tokens.Store = (*Tokens)(nil)

// Tokens returns the token store in the store's schema. clock stamps
// creations and revocations; nil means time.Now. It uses the store's
// connection pool, so it works until the store is closed.
func (s *Store) Tokens(clock func() time.Time) *Tokens {
	if clock == nil {
		clock = time.Now
	}
	return &Tokens{s: s, clock: clock}
}

const tokenColumns = "id, hash, seat, role, created, revoked"

// scanToken reads one row of tokenColumns.
func scanToken(row pgx.Row) (tokens.Token, error) {
	var t tokens.Token
	var role string
	var created time.Time
	var revoked *time.Time
	if err := row.Scan(&t.ID, &t.Hash, &t.Seat, &role, &created, &revoked); err != nil {
		return t, err
	}
	t.Role, t.Created = pinki.Role(role), tokens.Stamp(created)
	if revoked != nil {
		t.Revoked = tokens.Stamp(*revoked)
	}
	return t, nil
}

// Add implements tokens.Store.
func (k *Tokens) Add(ctx context.Context, seat string, role pinki.Role) (string, tokens.Token, error) {
	secret, t, err := tokens.Mint(seat, role, k.clock())
	if err != nil {
		return "", tokens.Token{}, err
	}
	_, err = k.s.pool.Exec(ctx, "INSERT INTO tokens (id, hash, seat, role, created) VALUES ($1, $2, $3, $4, $5::timestamptz)",
		t.ID, t.Hash, t.Seat, string(t.Role), t.Created)
	if isUnique(err) { // 48 bits of id: only if the random source repeats
		return "", tokens.Token{}, pinki.Errorf(pinki.CodeUnavailable, "a token with id %s already exists: try again", t.ID)
	}
	if err != nil {
		return "", tokens.Token{}, mapError(ctx, err, "cannot add the token")
	}
	return secret, t, nil
}

// List implements tokens.Store.
func (k *Tokens) List(ctx context.Context) ([]tokens.Token, error) {
	rows, err := k.s.pool.Query(ctx, "SELECT "+tokenColumns+" FROM tokens ORDER BY n")
	if err != nil {
		return nil, mapError(ctx, err, "cannot list the tokens")
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (tokens.Token, error) { return scanToken(r) })
	if err != nil {
		return nil, mapError(ctx, err, "cannot list the tokens")
	}
	if out == nil {
		out = []tokens.Token{}
	}
	return out, nil
}

// Revoke implements tokens.Store. The first revocation's time is kept.
func (k *Tokens) Revoke(ctx context.Context, ref string) (tokens.Token, error) {
	id, err := tokens.RefID(ref)
	if err != nil {
		return tokens.Token{}, err
	}
	t, err := scanToken(k.s.pool.QueryRow(ctx,
		"UPDATE tokens SET revoked = coalesce(revoked, $2::timestamptz) WHERE id = $1 RETURNING "+tokenColumns,
		id, tokens.Stamp(k.clock())))
	if errors.Is(err, pgx.ErrNoRows) {
		return tokens.Token{}, tokens.NotFound(id)
	}
	if err != nil {
		return tokens.Token{}, mapError(ctx, err, "cannot revoke the token")
	}
	return t, nil
}

// Lookup implements tokens.Store: the secret is hashed before anything is
// compared, and the stored hash is compared in constant time.
func (k *Tokens) Lookup(ctx context.Context, secret string) (pinki.Identity, error) {
	hash, err := tokens.Presented(secret)
	if err != nil {
		return pinki.Identity{}, err
	}
	t, err := scanToken(k.s.pool.QueryRow(ctx, "SELECT "+tokenColumns+" FROM tokens WHERE hash = $1", hash))
	found := err == nil
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return pinki.Identity{}, mapError(ctx, err, "cannot read the tokens")
	}
	return tokens.Grant(t, found, hash)
}
