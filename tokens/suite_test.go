package tokens_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki/tokens"
	"github.com/pinki-ledger/pinki/tokens/tokenstest"
)

// TestFileSuite runs the suite every store passes on File: two Files on one
// path stand for two processes sharing the token file.
func TestFileSuite(t *testing.T) {
	tokenstest.Run(t, func(t *testing.T, clock func() time.Time) (tokens.Store, tokens.Store) {
		path := filepath.Join(t.TempDir(), ".pinki", tokens.FileName)
		return tokens.OpenFile(path, clock), tokens.OpenFile(path, clock)
	})
}
