package pinki

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/pinki-ledger/pinki/jcs"
)

// AppendLine appends e as one compact ledger line, with its newline, to dst.
// Keys come in a fixed order per type (ts, type, then the body, meta last),
// absent optional fields are omitted, and strings are escaped the way pinki
// 0.2 writes them: no HTML escaping, non-ASCII kept as UTF-8. Raw JSON fields
// (meta, schema, response, target) are written as given and must already be
// compact, valid JSON.
func AppendLine(dst []byte, e *Event) []byte {
	w := lineWriter{b: append(dst, '{')}
	w.opt("ts", e.TS) // empty only in the content form hashed by Digest
	w.str("type", string(e.Type))
	switch e.Type {
	case TypePromise, TypeRequest, TypePropose:
		w.str("id", e.ID)
		w.str("promise", e.Text)
		w.str("by", e.By)
		w.str("to", e.To)
		w.opt("on", e.On)
		w.str("until", e.Until)
		w.opt("lapse", string(e.Lapse))
		w.opt("task", e.Task)
		w.opt("proposer", e.Proposer)
		w.opt("schema_id", e.SchemaID)
		w.raw("schema", e.Schema)
	case TypeAmend:
		w.str("promise", e.Subject)
		w.str("by", e.By)
		w.str("until", e.Until)
		w.opt("reason", e.Reason)
	case TypeAccept:
		w.str("promise", e.Subject)
		w.str("by", e.By)
		w.key("rev")
		w.b = strconv.AppendInt(w.b, int64(e.Rev), 10)
	case TypeProgress:
		w.str("promise", e.Subject)
		w.str("by", e.By)
		w.str("phase", string(e.Phase))
		w.opt("note", e.Note)
	case TypeResolve:
		w.str("promise", e.Subject)
		w.str("as", string(e.As))
		w.str("by", e.By)
		if e.Evidence != nil {
			w.key("evidence")
			w.b = append(w.b, '[')
			for i, ref := range e.Evidence {
				if i > 0 {
					w.b = append(w.b, ',')
				}
				w.b = AppendString(w.b, ref)
			}
			w.b = append(w.b, ']')
		}
		w.opt("reason", e.Reason)
		w.raw("response", e.Response)
		w.opt("schema_id", e.SchemaID)
		w.opt("digest", e.Digest)
	case TypeAssess:
		w.str("promise", e.Subject)
		w.str("state", e.State)
		w.opt("observer", e.Observer)
		w.opt("note", e.Note)
	case TypeBind:
		w.str("promise", e.Subject)
		w.str("by", e.By)
		w.raw("target", e.Target)
	}
	w.raw("meta", e.Meta)
	return append(w.b, '}', '\n')
}

type lineWriter struct {
	b     []byte
	comma bool
}

func (w *lineWriter) key(k string) {
	if w.comma {
		w.b = append(w.b, ',')
	}
	w.comma = true
	w.b = append(w.b, '"')
	w.b = append(w.b, k...)
	w.b = append(w.b, '"', ':')
}

func (w *lineWriter) str(k, v string) {
	w.key(k)
	w.b = AppendString(w.b, v)
}

func (w *lineWriter) opt(k, v string) {
	if v != "" {
		w.str(k, v)
	}
}

func (w *lineWriter) raw(k, v string) {
	if v != "" {
		w.key(k)
		w.b = append(w.b, v...)
	}
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string: quotes, backslashes and control
// characters escaped, everything else (including non-ASCII) as is.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		start = i + 1
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Digest is the content digest of a creation event (SPEC §1): "sha256:" and
// the hex SHA-256 of the RFC 8785 canonical JSON of the event without its ts
// and meta. A line whose raw JSON cannot be canonicalized (a duplicate member
// name inside a hand-written schema, say) is hashed as written instead: the
// digest stays deterministic and Digest never fails.
func Digest(e *Event) string {
	c := *e
	c.TS, c.Meta = "", ""
	line := AppendLine(nil, &c)
	line = line[:len(line)-1]
	if canon, err := jcs.Canonicalize(line); err == nil {
		line = canon
	}
	sum := sha256.Sum256(line)
	return "sha256:" + hex.EncodeToString(sum[:])
}
