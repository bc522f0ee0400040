package httpapi

import (
	"context"
	"errors"
	"log"
	"net"
	"net/http"
	"time"
)

// DefaultListen is where `pinki serve` listens by default.
const DefaultListen = "127.0.0.1:7447"

// ServeOptions are the http.Server's timeouts. Zero values take the
// defaults: ReadHeaderTimeout 5s, ReadTimeout 30s (the whole request, body
// included), WriteTimeout 30s (the answer; event streams lift it for
// themselves), IdleTimeout 120s (a keep-alive connection between requests),
// ShutdownTimeout 15s (how long shutdown waits for requests in flight).
type ServeOptions struct {
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
	ShutdownTimeout   time.Duration
	// ErrorLog receives the http.Server's own errors; nil discards them.
	ErrorLog *log.Logger
}

// NewHTTPServer returns an http.Server for h with the options' timeouts.
func NewHTTPServer(h http.Handler, opts ServeOptions) *http.Server {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&opts.ReadHeaderTimeout, 5*time.Second)
	def(&opts.ReadTimeout, 30*time.Second)
	def(&opts.WriteTimeout, 30*time.Second)
	def(&opts.IdleTimeout, 120*time.Second)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: opts.ReadHeaderTimeout, ReadTimeout: opts.ReadTimeout,
		WriteTimeout: opts.WriteTimeout, IdleTimeout: opts.IdleTimeout, MaxHeaderBytes: 64 << 10,
		ErrorLog: opts.ErrorLog}
	if srv.ErrorLog == nil {
		srv.ErrorLog = log.New(discard{}, "", 0)
	}
	if d, ok := h.(interface{ Drain() }); ok {
		srv.RegisterOnShutdown(d.Drain)
	}
	return srv
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// Serve serves h on ln until ctx ends, then shuts down gracefully: it stops
// accepting connections, ends event streams (h's Drain, when it has one),
// and waits up to ShutdownTimeout for the requests in flight, writes
// included, to finish. It returns nil after a graceful shutdown.
//
// Errors: the listener's error if serving fails; a shutdown that times out
// closes the remaining connections and returns context.DeadlineExceeded.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, opts ServeOptions) error {
	srv := NewHTTPServer(h, opts)
	shutdown := opts.ShutdownTimeout
	if shutdown <= 0 {
		shutdown = 15 * time.Second
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdown)
	defer cancel()
	err := srv.Shutdown(sctx)
	if err != nil {
		srv.Close()
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
