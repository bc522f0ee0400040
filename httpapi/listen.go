package httpapi

import (
	"net"

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
