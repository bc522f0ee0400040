package jsonl

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/pinki-ledger/pinki"
)

// Fetch implements pinki.Fetcher: it reads the lines at the given offsets
// directly (one pread each), so that showing one obligation's history costs a
// few reads whatever the size of the ledger. It returns the entries in the
// order asked.
//
// Errors: CodeUnavailable when the file cannot be read; ErrReplaced (wrapped)
// when a line is not where it was (the file was replaced or rewritten).
func (s *Store) Fetch(ctx context.Context, lines []pinki.LineRef) ([]pinki.Entry, error) {
	if len(lines) == 0 {
		return nil, nil
	}
	f, err := os.Open(s.path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", s.path, pinki.ErrReplaced)
		}
		return nil, pinki.Errorf(pinki.CodeUnavailable, "cannot open ledger %s: %v", s.path, err)
	}
	defer f.Close()
	var dec pinki.Decoder
	out := make([]pinki.Entry, 0, len(lines))
	buf := make([]byte, 4096)
	for _, ref := range lines {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		line, err := readLine(f, ref.Offset, &buf)
		if err != nil {
			return nil, err
		}
		e, derr := dec.Decode(bytes.TrimSuffix(line, []byte{'\r'}))
		if derr != nil {
			return nil, fmt.Errorf("%s line %d: %v: %w", s.path, ref.Seq, derr, pinki.ErrReplaced)
		}
		out = append(out, pinki.Entry{Seq: ref.Seq, Offset: ref.Offset, Event: e})
	}
	return out, nil
}

// readLine reads the line starting at offset, without its newline.
func readLine(f *os.File, offset int64, buf *[]byte) ([]byte, error) {
	b := *buf
	n := 0
	for {
		m, err := f.ReadAt(b[n:], offset+int64(n))
		n += m
		if i := bytes.IndexByte(b[:n], '\n'); i >= 0 {
			*buf = b
			return b[:i], nil
		}
		if err == io.EOF {
			return nil, fmt.Errorf("no whole line at offset %d: %w", offset, pinki.ErrReplaced)
		}
		if err != nil {
			return nil, pinki.Errorf(pinki.CodeUnavailable, "cannot read ledger: %v", err)
		}
		if n == len(b) {
			b = append(b, make([]byte, len(b))...)
		}
	}
}

var _ pinki.Fetcher = (*Store)(nil)
