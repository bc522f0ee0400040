package postgres

import (
	"testing"
	"time"

	"github.com/pinki-ledger/pinki/tokens"
	"github.com/pinki-ledger/pinki/tokens/tokenstest"
)

// TestTokens runs the token stores' suite on the tokens table: two stores
// on one schema stand for two servers sharing the database.
func TestTokens(t *testing.T) {
	u := testURL(t)
	tokenstest.Run(t, func(t *testing.T, clock func() time.Time) (tokens.Store, tokens.Store) {
		schema := freshSchema(t)
		a := openStore(t, u, schema, Options{MaxConns: 2})
		b := openStore(t, u, schema, Options{MaxConns: 2})
		return a.Tokens(clock), b.Tokens(clock)
	})
}
