package ledger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/jcs"
)

// maxSeat bounds a seat name. Seats are often URIs; 512 bytes is generous.
const maxSeat = 512

// text validates a free-text field: trimmed, valid UTF-8, within MaxText, and
// present when required.
func text(field, v string, required bool) (string, error) {
	v = strings.TrimSpace(v)
	switch {
	case v == "" && required:
		return "", pinki.Invalid(field, "%s is empty", field)
	case !utf8.ValidString(v):
		return "", pinki.Invalid(field, "%s is not valid UTF-8", field)
	case len(v) > pinki.MaxText:
		return "", tooLarge(field, "%s is %d bytes, over the %d-byte limit", field, len(v), pinki.MaxText)
	}
	return v, nil
}

// tooLarge is the error for a field over its size cap: CodeTooLarge, which
// every surface maps like a refused input (exit 2, HTTP 413).
func tooLarge(field, format string, args ...any) *pinki.Error {
	return &pinki.Error{Code: pinki.CodeTooLarge, Field: field, Message: fmt.Sprintf(format, args...)}
}

// maxNesting is how deep a JSON value (meta, a schema, a response, a target)
// may nest: the ledger's reader refuses deeper values.
const maxNesting = 200

// nesting returns the deepest nesting of arrays and objects in the JSON text
// v (which is assumed to be valid).
func nesting(v []byte) int {
	depth, deepest, inString := 0, 0, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case inString && c == '\\':
			i++
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// seat validates a seat name: non-empty, valid UTF-8, no control characters,
// at most 512 bytes. Surrounding space is trimmed.
func seat(field, v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", pinki.Invalid(field, "%s is empty: name a seat", field).WithHint("a seat is any stable name for an identity, such as a URL or desk/reviewer")
	}
	if !utf8.ValidString(v) {
		return "", pinki.Invalid(field, "%s is not valid UTF-8", field)
	}
	if len(v) > maxSeat {
		return "", tooLarge(field, "%s is %d bytes, over the %d-byte limit for a seat", field, len(v), maxSeat)
	}
	for _, r := range v {
		if unicode.IsControl(r) {
			return "", pinki.Invalid(field, "%s holds the control character %U", field, r)
		}
	}
	return v, nil
}

// ValidID reports why id cannot be a caller-supplied id, or "" when it can:
// 1–128 characters of A-Za-z0-9._:/@- (SPEC §1), or a well-formed minted id
// (pnk_ and six or more lowercase hex digits) carried over from another ledger.
func ValidID(id string) string {
	if id == "" {
		return "it is empty"
	}
	if len(id) > pinki.MaxIDLen {
		return fmt.Sprintf("it is %d characters, over the limit of %d", len(id), pinki.MaxIDLen)
	}
	if Minted(id) {
		return ""
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '.' || c == ':' || c == '/' || c == '@' || c == '-':
		default:
			r, _ := utf8.DecodeRuneInString(id[i:])
			if strings.HasPrefix(id, "pnk_") {
				return "the pnk_ prefix is reserved for minted ids: pnk_ and six or more lowercase hex digits"
			}
			return fmt.Sprintf("it holds %q at position %d; ids use only letters, digits and . : / @ -", r, i+1)
		}
	}
	return ""
}

// Minted reports whether id has the shape of a minted id.
func Minted(id string) bool {
	if !strings.HasPrefix(id, "pnk_") || len(id) < 10 {
		return false
	}
	for _, c := range id[4:] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func checkID(field, id string) (string, error) {
	id = strings.TrimSpace(id)
	if why := ValidID(id); why != "" {
		return "", pinki.Invalid(field, "%s %q will not do as an id: %s", field, id, why)
	}
	return id, nil
}

// Meta validates and canonicalizes a meta object (SPEC §1): a JSON object,
// non-empty, at most 8 KiB in its canonical form. It returns "" for no meta.
//
// Errors: CodeInvalid naming field (not JSON, not an object, empty, nested
// deeper than 200); CodeTooLarge over 8 KiB.
func Meta(field string, v json.RawMessage) (string, error) {
	if len(bytes.TrimSpace(v)) == 0 {
		return "", nil
	}
	if len(v) > 8*pinki.MaxMeta {
		return "", tooLarge(field, "%s is %d bytes as given, far over the limit of %d", field, len(v), pinki.MaxMeta)
	}
	canon, err := jcs.Canonicalize(v)
	if err != nil {
		return "", pinki.Invalid(field, "%s is not valid JSON: %s", field, strings.TrimPrefix(err.Error(), "jcs: "))
	}
	if d := nesting(canon); d > maxNesting {
		return "", pinki.Invalid(field, "%s nests %d levels deep, over the limit of %d", field, d, maxNesting)
	}
	switch canon[0] {
	case '{':
	case '[':
		return "", pinki.Invalid(field, "%s must be a JSON object, not an array", field)
	default:
		return "", pinki.Invalid(field, "%s must be a JSON object, not %s", field, jsonKind(canon))
	}
	if string(canon) == "{}" {
		return "", pinki.Invalid(field, "%s is an empty object: leave it out instead", field)
	}
	if len(canon) > pinki.MaxMeta {
		return "", tooLarge(field, "%s is %d bytes, over the limit of %d", field, len(canon), pinki.MaxMeta)
	}
	return string(canon), nil
}

func jsonKind(canon []byte) string {
	switch canon[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// Deadline parses a deadline: an RFC 3339 instant with a zone ("Z" or an
// offset), or a duration from now such as +2h, 30m, 1d12h or 1w. The result
// is in UTC; a duration is added to now and truncated to whole seconds.
//
// Errors: CodeInvalid naming field for an empty value, an instant without a
// zone, a duration with an unknown unit or longer than about 292 years.
func Deadline(field, v string, now time.Time) (time.Time, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, pinki.Invalid(field, "%s is empty: give a deadline", field).
			WithHint("an instant with a zone such as 2026-09-01T17:00:00Z, or a duration such as +2h")
	}
	if d, ok, err := relative(v); ok {
		if err != nil {
			return time.Time{}, pinki.Invalid(field, "%s %q: %v", field, v, err)
		}
		return now.Add(d).UTC().Truncate(time.Second), nil // the ledger's precision
	}
	if t, err := pinki.ParseTime(v); err == nil {
		return t.UTC(), nil
	}
	// Accept minutes precision with a zone (2026-09-01T17:00Z), as pinki does.
	for _, layout := range []string{"2006-01-02T15:04Z07:00"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t.UTC(), nil
		}
	}
	hint := "a deadline names one moment, so it needs a zone: 2026-09-01T17:00:00Z or 2026-09-01T10:00:00-07:00, or a duration such as +2h"
	return time.Time{}, pinki.Invalid(field, "%s %q is not an RFC 3339 instant with a zone, nor a duration", field, v).WithHint("%s", hint)
}

// relative parses [+]N<unit>… with units s, m, h, d (24h) and w (7d). ok is
// false when v does not look like a duration at all.
func relative(v string) (d time.Duration, ok bool, err error) {
	s := strings.TrimPrefix(v, "+")
	if s == "" || s[0] < '0' || s[0] > '9' {
		return 0, false, nil
	}
	if len(s) >= 5 && s[4] == '-' {
		return 0, false, nil // a date
	}
	for s != "" {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 || i == len(s) {
			return 0, true, fmt.Errorf("a duration is numbers with units s, m, h, d or w, such as 2h30m")
		}
		n, perr := strconv.ParseInt(s[:i], 10, 64)
		if perr != nil || n > 1e6 {
			return 0, true, fmt.Errorf("number too large")
		}
		var unit time.Duration
		switch s[i] {
		case 's':
			unit = time.Second
		case 'm':
			unit = time.Minute
		case 'h':
			unit = time.Hour
		case 'd':
			unit = 24 * time.Hour
		case 'w':
			unit = 7 * 24 * time.Hour
		default:
			return 0, true, fmt.Errorf("unknown unit %q: use s, m, h, d or w", s[i])
		}
		if time.Duration(n) > (math.MaxInt64-d)/unit {
			return 0, true, fmt.Errorf("longer than a duration can be (about 292 years): give an instant instead")
		}
		d += time.Duration(n) * unit
		s = s[i+1:]
	}
	return d, true, nil
}

// evidence trims each reference and refuses blank ones.
func evidence(refs []string) ([]string, error) {
	var out []string
	for i, r := range refs {
		r = strings.TrimSpace(r)
		if r == "" {
			return nil, pinki.Invalid("evidence", "evidence reference %d is empty", i+1)
		}
		if !utf8.ValidString(r) {
			return nil, pinki.Invalid("evidence", "evidence reference %d is not valid UTF-8", i+1)
		}
		if len(r) > pinki.MaxText {
			return nil, tooLarge("evidence", "evidence reference %d is %d bytes, over the %d-byte limit", i+1, len(r), pinki.MaxText)
		}
		out = append(out, r)
	}
	return out, nil
}

// compactJSON validates v as one JSON value (no duplicate keys, finite
// numbers, at most maxNesting deep) of at most limit bytes once compacted,
// and returns it compacted, in the writer's key order. Comparisons use its
// canonical form (sameJSON).
//
// Errors: CodeInvalid naming field for what is not such a value;
// CodeTooLarge over limit.
func compactJSON(field string, v json.RawMessage, limit int) (string, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, v); err != nil {
		return "", pinki.Invalid(field, "%s is not valid JSON: %v", field, err)
	}
	if buf.Len() > limit {
		return "", tooLarge(field, "%s is %d bytes, over the limit of %d", field, buf.Len(), limit)
	}
	if d := nesting(buf.Bytes()); d > maxNesting {
		return "", pinki.Invalid(field, "%s nests %d levels deep, over the limit of %d", field, d, maxNesting)
	}
	if _, err := jcs.Canonicalize(buf.Bytes()); err != nil {
		return "", pinki.Invalid(field, "%s: %s", field, strings.TrimPrefix(err.Error(), "jcs: "))
	}
	return buf.String(), nil
}

// sameJSON reports whether two JSON texts are the same value: equal in their
// RFC 8785 canonical forms (key order and spacing do not matter).
func sameJSON(a, b string) bool {
	if a == b {
		return true
	}
	if a == "" || b == "" {
		return false
	}
	ca, err1 := jcs.Canonicalize([]byte(a))
	cb, err2 := jcs.Canonicalize([]byte(b))
	return err1 == nil && err2 == nil && bytes.Equal(ca, cb)
}
