package httpapi

import (
	"net"
	"sync"

	"github.com/pinki-ledger/pinki"
)

// Listen opens a TCP listener on addr (host:port; DefaultListen when empty).
//
// Errors: CodeUnavailable naming the address (in use, not permitted).
func Listen(addr string) (net.Listener, error) {
	if addr == "" {
		addr = DefaultListen
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, (&pinki.Error{Code: pinki.CodeUnavailable, Field: "listen",
			Message: "cannot listen on " + addr + ": " + err.Error()}).
			WithHint("pick another address with --listen HOST:PORT")
	}
	return ln, nil
}

// UnknownLines counts the distinct ledger lines a service could not decode,
// so that a server can tell its clients (the Pinki-Unknown-Lines header) and
// the CLI in --server mode exits 3 as it does against a local file. Pass
// Record as ledger.Options.OnUnknownLine and Count as Options.UnknownLines.
// The zero value is ready; it is safe for concurrent use.
type UnknownLines struct {
	mu   sync.Mutex
	seen map[int64]struct{}
}

// Record notes one line the service could not decode.
func (u *UnknownLines) Record(seq int64, raw []byte, err error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.seen == nil {
		u.seen = map[int64]struct{}{}
	}
	u.seen[seq] = struct{}{}
}

// Count is how many distinct lines were recorded.
func (u *UnknownLines) Count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.seen)
}
