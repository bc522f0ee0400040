package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/pinki-ledger/pinki"
)

// uniqueViolation is PostgreSQL's SQLSTATE for a unique constraint refusing
// a row.
const uniqueViolation = "23505"

// mapError turns a database error into the store's error contract: the
// context's own error when ctx ended, a *pinki.Error as it is, CodeConflict
// for a unique violation (two writers on one obligation version), and
// CodeUnavailable for everything else (connection loss, a database that is
// down or refusing, a timeout).
func mapError(ctx context.Context, err error, what string) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var pe *pinki.Error
	if errors.As(err, &pe) {
		return err
	}
	var pg *pgconn.PgError
	if errors.As(err, &pg) && pg.Code == uniqueViolation {
		return &pinki.Error{Code: pinki.CodeConflict,
			Message: "a concurrent write took the same place in the ledger (" + pg.ConstraintName + ")",
			Hint:    "read it again and retry"}
	}
	return &pinki.Error{Code: pinki.CodeUnavailable, Message: fmt.Sprintf("postgres: %s: %v", what, err)}
}

// isUnique reports whether err is a unique violation.
func isUnique(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == uniqueViolation
}

// serverError reports whether err is an error the server reported for a
// statement (the connection is fine and the transaction was rolled back),
// as opposed to a lost connection, whose effects are unknown.
func serverError(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code[:2] != "08" && pg.Code[:2] != "57"
}

// brokenConn reports whether err came from a connection that broke (not
// from the server refusing a statement, nor from ctx ending).
func brokenConn(ctx context.Context, err error) bool {
	return err != nil && ctx.Err() == nil && !serverError(err) && !errors.Is(err, pgx.ErrNoRows)
}

func conflict(subject, why string) error {
	return &pinki.Error{Code: pinki.CodeConflict,
		Message: fmt.Sprintf("%s changed while this write was being decided: %s", subject, why),
		Hint:    "read it again and retry"}
}
