package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultDrain is how long, at most, the end of a StdioTransport's input
// waits for the answers to the requests read before it.
const DefaultDrain = 5 * time.Second

// StdioTransport is the transport pinki mcp serves on: newline-delimited
// JSON-RPC read from Reader and written to Writer, as the SDK's
// IOTransport. Unlike it, the end of the input (stdin closing) reaches the
// server only once every request read before it has been answered: a host
// that writes its requests and closes stdin at once (printf … | pinki mcp)
// gets every answer. The wait is bounded by Drain (0: DefaultDrain), and
// ends early when a write fails or the connection is closed.
//
// Closing the connection closes Reader when it is an io.Closer; Writer is
// never closed.
type StdioTransport struct {
	Reader io.Reader
	Writer io.Writer
	Drain  time.Duration
}

// Connect implements sdk.Transport.
//
// Errors: those of the SDK's IOTransport (none as of v1.8.0).
func (t *StdioTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	limit := t.Drain
	if limit <= 0 {
		limit = DefaultDrain
	}
	d := &drain{pending: map[jsonrpc.ID]bool{}, changed: make(chan struct{}), closed: make(chan struct{})}
	in := &drainReader{r: t.Reader, d: d, limit: limit}
	out := &drainWriter{w: t.Writer, d: d}
	return (&sdk.IOTransport{Reader: in, Writer: out}).Connect(ctx)
}

// drain tracks the calls read and not yet answered.
type drain struct {
	mu      sync.Mutex
	pending map[jsonrpc.ID]bool
	broken  bool          // a write failed: no answer will come
	changed chan struct{} // closed (and replaced) when pending shrinks or broken is set
	closed  chan struct{} // closed when the connection is
	once    sync.Once
}

func (d *drain) update(f func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	f()
	close(d.changed)
	d.changed = make(chan struct{})
}

// wait returns when no call is pending, a write failed, the connection was
// closed, or limit has passed.
func (d *drain) wait(limit time.Duration) {
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for {
		d.mu.Lock()
		idle, ch := len(d.pending) == 0 || d.broken, d.changed
		d.mu.Unlock()
		if idle {
			return
		}
		select {
		case <-ch:
		case <-d.closed:
			return
		case <-timer.C:
			return
		}
	}
}

// lines splits a byte stream into lines, calling fn for each complete,
// non-blank one. A line longer than the SDK accepts is skipped (the SDK
// refuses it and ends the session).
type lines struct {
	buf  []byte
	skip bool
}

func (l *lines) feed(p []byte, fn func([]byte)) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			l.add(p)
			return
		}
		l.add(p[:i])
		if line := bytes.TrimSpace(l.buf); len(line) > 0 && !l.skip {
			fn(line)
		}
		l.buf, l.skip, p = l.buf[:0], false, p[i+1:]
	}
}

func (l *lines) add(p []byte) {
	if l.skip {
		return
	}
	if len(l.buf)+len(p) > sdk.DefaultMaxLineLength {
		l.buf, l.skip = l.buf[:0], true
		return
	}
	l.buf = append(l.buf, p...)
}

// messages decodes a line as JSON-RPC messages (one, or a batch), leaving
// out what does not decode: the SDK answers or refuses it on its own.
func messages(line []byte) []jsonrpc.Message {
	raws := []json.RawMessage{line}
	if line[0] == '[' && json.Unmarshal(line, &raws) != nil {
		return nil
	}
	var out []jsonrpc.Message
	for _, raw := range raws {
		if m, err := jsonrpc.DecodeMessage(raw); err == nil {
			out = append(out, m)
		}
	}
	return out
}

// drainReader notes the calls it reads, and holds the end of its input back
// until they are answered.
type drainReader struct {
	r     io.Reader
	d     *drain
	limit time.Duration
	lines lines
	eof   error // the end, held back from a read that also returned bytes
}

func (r *drainReader) Read(p []byte) (int, error) {
	if r.eof != nil {
		r.d.wait(r.limit)
		return 0, r.eof
	}
	n, err := r.r.Read(p)
	r.lines.feed(p[:n], r.read)
	if err != nil {
		// Flush a last line without its newline, as the SDK decodes it.
		r.lines.feed([]byte{'\n'}, r.read)
		if n > 0 {
			// The server has yet to decode these bytes: wait on the next read.
			r.eof = err
			return n, nil
		}
		r.d.wait(r.limit)
	}
	return n, err
}

// read notes the calls on one input line, and forgets those a
// notifications/cancelled names (no answer is due for them).
func (r *drainReader) read(line []byte) {
	for _, m := range messages(line) {
		req, ok := m.(*jsonrpc.Request)
		switch {
		case !ok:
		case req.IsCall():
			r.d.update(func() { r.d.pending[req.ID] = true })
		case req.Method == "notifications/cancelled":
			var params struct {
				RequestID any `json:"requestId"`
			}
			if json.Unmarshal(req.Params, &params) == nil {
				if id, err := jsonrpc.MakeID(params.RequestID); err == nil {
					r.d.update(func() { delete(r.d.pending, id) })
				}
			}
		}
	}
}

func (r *drainReader) Close() error {
	r.d.once.Do(func() { close(r.d.closed) })
	if c, ok := r.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// drainWriter notes the answers it writes.
type drainWriter struct {
	w     io.Writer
	d     *drain
	mu    sync.Mutex
	lines lines
}

func (w *drainWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		w.d.update(func() { w.d.broken = true })
		return n, err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines.feed(p[:n], func(line []byte) {
		for _, m := range messages(line) {
			if resp, ok := m.(*jsonrpc.Response); ok {
				w.d.update(func() { delete(w.d.pending, resp.ID) })
			}
		}
	})
	return n, nil
}

func (w *drainWriter) Close() error { return nil }
