package jsonl

import (
	"context"
	"os"

	"github.com/pinki-ledger/pinki"
)

// readResult is how a read of entries ended: end is the position after the
// last whole line read; when fn stopped the read, ferr is its error and stop
// the position before the line it stopped at.
type readResult struct {
	end, stop pinki.Position
	ferr, err error
}

// readEntries decodes the whole lines of f from start up to size and calls
// fn for each, in order. (Decoding on another goroutine while the caller
// folds was tried and measured: on two cores the garbage collector already
// uses the second one, and the fold was no faster and held more memory.)
func readEntries(ctx context.Context, f *os.File, start pinki.Position, size int64, fn func(pinki.Entry) error) readResult {
	var dec pinki.Decoder
	var r readResult
	r.end, r.err = scanLines(f, start, size, func(seq, offset int64, line []byte) error {
		if r.ferr = ctx.Err(); r.ferr != nil {
			r.stop = pinki.Position{Seq: seq - 1, Mark: offset}
			return errStop
		}
		if r.ferr = fn(decodeEntry(&dec, seq, offset, line)); r.ferr != nil {
			// Remember where the reader stopped (before this line): the
			// next page of a paging reader starts there, by seq alone.
			r.stop = pinki.Position{Seq: seq - 1, Mark: offset}
			return errStop
		}
		return nil
	})
	if r.ferr != nil {
		r.err = nil
	}
	return r
}

func decodeEntry(dec *pinki.Decoder, seq, offset int64, line []byte) pinki.Entry {
	e, err := dec.Decode(line)
	if err != nil {
		return pinki.Entry{Seq: seq, Offset: offset, Err: err, Raw: append([]byte(nil), line...)}
	}
	return pinki.Entry{Seq: seq, Offset: offset, Event: e}
}
