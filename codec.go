package pinki

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// field is one wire key of an event line.
type field uint32

const (
	fTS field = 1 << iota
	fType
	fID
	fPromise
	fBy
	fTo
	fOn
	fUntil
	fTask
	fLapse
	fProposer
	fSchemaID
	fSchema
	fReason
	fNote
	fPhase
	fAs
	fEvidence
	fResponse
	fDigest
	fRev
	fObserver
	fState
	fTarget
	fMeta
)

var fieldNames = map[field]string{
	fTS: "ts", fType: "type", fID: "id", fPromise: "promise", fBy: "by", fTo: "to",
	fOn: "on", fUntil: "until", fTask: "task", fLapse: "lapse", fProposer: "proposer",
	fSchemaID: "schema_id", fSchema: "schema", fReason: "reason", fNote: "note",
	fPhase: "phase", fAs: "as", fEvidence: "evidence", fResponse: "response",
	fDigest: "digest", fRev: "rev", fObserver: "observer", fState: "state",
	fTarget: "target", fMeta: "meta",
}

const creationCommon = fTS | fType | fID | fPromise | fBy | fTo | fOn | fUntil | fTask | fLapse | fMeta

// allowed is the set of keys each event type may carry; required, the keys
// without which the fold cannot use the line at all. Everything else that a
// rule demands (evidence on satisfied, a reason on cancelled…) is a rule the
// service enforces and `check` reports, not a decoding failure.
var allowed = map[Type]field{
	TypePromise:  creationCommon,
	TypeRequest:  creationCommon | fSchema | fSchemaID,
	TypePropose:  creationCommon | fProposer,
	TypeAmend:    fTS | fType | fPromise | fBy | fUntil | fReason | fMeta,
	TypeAccept:   fTS | fType | fPromise | fBy | fRev | fMeta,
	TypeProgress: fTS | fType | fPromise | fBy | fPhase | fNote | fMeta,
	TypeResolve:  fTS | fType | fPromise | fAs | fBy | fEvidence | fReason | fResponse | fSchemaID | fDigest | fMeta,
	TypeAssess:   fTS | fType | fPromise | fObserver | fState | fNote | fMeta,
	TypeBind:     fTS | fType | fPromise | fBy | fTarget | fMeta,
}

var required = map[Type]field{
	TypePromise:  fTS | fType | fID | fPromise | fBy | fTo | fUntil,
	TypeRequest:  fTS | fType | fID | fPromise | fBy | fTo | fUntil,
	TypePropose:  fTS | fType | fID | fPromise | fBy | fTo | fUntil,
	TypeAmend:    fTS | fType | fPromise | fUntil,
	TypeAccept:   fTS | fType | fPromise | fBy | fRev,
	TypeProgress: fTS | fType | fPromise | fPhase,
	TypeResolve:  fTS | fType | fPromise | fAs,
	TypeAssess:   fTS | fType | fPromise | fState,
	TypeBind:     fTS | fType | fPromise | fTarget,
}

// Decoder decodes ledger lines. It interns the short strings that repeat
// across a ledger (seats, types, outcomes) so that a large fold keeps one copy
// of each. A Decoder is not safe for concurrent use; its zero value is ready.
type Decoder struct {
	intern map[string]string
	// arena holds the bytes of the current line's strings: every
	// non-interned string of the event is a slice of it. It is carved from
	// chunk, a block shared by consecutive lines, so that decoding costs an
	// allocation per block rather than one per string. Bytes are never
	// written after a string points at them.
	arena []byte
	chunk []byte
	// single is set for a decoder of one line (DecodeLine): nothing repeats,
	// so nothing is interned.
	single bool
}

const chunkSize = 64 << 10

const maxInterned = 1 << 14

// own returns b as a string backed by the line's arena (one allocation per
// line instead of one per field).
func (d *Decoder) own(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(d.arena)+len(b) > cap(d.arena) {
		return string(b) // cannot happen: a line's strings fit in its length
	}
	start := len(d.arena)
	d.arena = append(d.arena, b...)
	return unsafe.String(&d.arena[start], len(b))
}

// str returns b as a string: interned (one copy per distinct value, for the
// values that repeat across a ledger), or from the arena.
func (d *Decoder) str(b []byte, intern bool) string {
	if !intern || d.single {
		return d.own(b)
	}
	if d.intern == nil {
		d.intern = make(map[string]string, 256)
	}
	if s, ok := d.intern[string(b)]; ok {
		return s
	}
	v := string(b) // an interned value never points into an arena
	if len(d.intern) < maxInterned {
		d.intern[v] = v
	}
	return v
}

// words are the fixed vocabulary of the ledger: types, outcomes, phases,
// lapse policies, proposers and the usual assessment states. word returns
// them without a map lookup.
func (d *Decoder) word(b []byte) string {
	switch string(b) {
	case "promise":
		return "promise"
	case "amend":
		return "amend"
	case "resolve":
		return "resolve"
	case "assess":
		return "assess"
	case "request":
		return "request"
	case "propose":
		return "propose"
	case "accept":
		return "accept"
	case "progress":
		return "progress"
	case "bind":
		return "bind"
	case "satisfied":
		return "satisfied"
	case "failed":
		return "failed"
	case "cancelled":
		return "cancelled"
	case "released":
		return "released"
	case "acknowledged":
		return "acknowledged"
	case "in_progress":
		return "in_progress"
	case "blocked":
		return "blocked"
	case "pending_human":
		return "pending_human"
	case "overdue":
		return "overdue"
	case "expire":
		return "expire"
	case "by":
		return "by"
	case "to":
		return "to"
	case "violated":
		return "violated"
	case "kept":
		return "kept"
	case "disputed":
		return "disputed"
	}
	return d.str(b, true)
}

// DecodeLine decodes one ledger line (without its newline) strictly: valid
// JSON, one object, a known type, only the keys that type allows, each once,
// with values of the right JSON type, and the keys the fold needs present. Its
// error is one lower-case sentence suitable for "line N: …".
func DecodeLine(line []byte) (Event, error) {
	// One line: an arena of its length, not a chunk shared by lines to
	// come, and no interning.
	d := Decoder{chunk: make([]byte, 0, len(line)), single: true}
	return d.Decode(line)
}

// Decode is DecodeLine with interning.
func (d *Decoder) Decode(line []byte) (Event, error) {
	var e Event
	// The line's strings fit in its length: reserve that much of the chunk.
	if cap(d.chunk)-len(d.chunk) < len(line) {
		d.chunk = make([]byte, 0, max(chunkSize, len(line)))
	}
	d.arena = d.chunk[len(d.chunk) : len(d.chunk) : len(d.chunk)+len(line)]
	defer func() { d.chunk = d.chunk[:len(d.chunk)+len(d.arena)] }()
	s := scanner{b: line}
	s.ws()
	if !s.eat('{') {
		return e, s.fail("not a JSON object")
	}
	var seen, keys field // keys: every key met; seen: those with a value
	var text string
	var typeSeen bool
	s.ws()
	if !s.eat('}') {
		for {
			s.ws()
			key, err := s.str()
			if err != nil {
				return e, err
			}
			s.ws()
			if !s.eat(':') {
				return e, s.fail("expected ':' after key")
			}
			s.ws()
			f, ok := keyField(key)
			if !ok {
				return e, fmt.Errorf("unknown field %q", key)
			}
			if keys&f != 0 {
				return e, fmt.Errorf("field %q appears twice", key)
			}
			keys |= f
			if s.null() {
				// An explicit null is an absent optional field.
			} else {
				seen |= f
				if err := d.value(&s, f, &e, &text); err != nil {
					return e, fmt.Errorf("field %q: %w", key, err)
				}
				if f == fType {
					typeSeen = true
				}
			}
			s.ws()
			if s.eat(',') {
				continue
			}
			if s.eat('}') {
				break
			}
			return e, s.fail("expected ',' or '}'")
		}
	}
	s.ws()
	if s.i != len(s.b) {
		return e, s.fail("trailing data after the object")
	}
	if !typeSeen {
		return e, fmt.Errorf("no \"type\"")
	}
	if !e.Type.Known() {
		return e, fmt.Errorf("unknown event type %q", e.Type)
	}
	if extra := keys &^ allowed[e.Type]; extra != 0 { // keys: a null counts too
		return e, fmt.Errorf("field %q is not allowed on a %s event", fieldNames[lowest(extra)], e.Type)
	}
	if missing := required[e.Type] &^ seen; missing != 0 {
		return e, fmt.Errorf("a %s event needs %q", e.Type, fieldNames[lowest(missing)])
	}
	if seen&fPromise != 0 {
		if e.Type.Creates() {
			e.Text = text
		} else {
			e.Subject = text
		}
	}
	at, err := parseInstant(e.TS)
	if err != nil {
		return e, fmt.Errorf("field \"ts\": %v", err)
	}
	e.At = at
	if seen&fUntil != 0 {
		u, err := parseInstant(e.Until)
		if err != nil {
			return e, fmt.Errorf("field \"until\": %v", err)
		}
		e.UntilAt = u
	}
	if seen&fAs != 0 && !e.As.Valid() {
		return e, fmt.Errorf("field \"as\": %q is not satisfied, failed, cancelled or released", e.As)
	}
	// The other closed vocabularies: a value this version does not know is
	// not understood, never read as something else.
	if e.Lapse != "" && e.Lapse != LapseOverdue && e.Lapse != LapseExpire {
		return e, fmt.Errorf("field \"lapse\": %q is not overdue or expire", e.Lapse)
	}
	if e.Proposer != "" && e.Proposer != "by" && e.Proposer != "to" {
		return e, fmt.Errorf("field \"proposer\": %q is not by or to", e.Proposer)
	}
	if seen&fPhase != 0 && !e.Phase.Writable() {
		return e, fmt.Errorf("field \"phase\": %q is not acknowledged, in_progress, blocked or pending_human", e.Phase)
	}
	return e, nil
}

func lowest(f field) field { return f & -f }

func keyField(key []byte) (field, bool) {
	switch string(key) {
	case "ts":
		return fTS, true
	case "type":
		return fType, true
	case "id":
		return fID, true
	case "promise":
		return fPromise, true
	case "by":
		return fBy, true
	case "to":
		return fTo, true
	case "on":
		return fOn, true
	case "until":
		return fUntil, true
	case "task":
		return fTask, true
	case "lapse":
		return fLapse, true
	case "proposer":
		return fProposer, true
	case "schema_id":
		return fSchemaID, true
	case "schema":
		return fSchema, true
	case "reason":
		return fReason, true
	case "note":
		return fNote, true
	case "phase":
		return fPhase, true
	case "as":
		return fAs, true
	case "evidence":
		return fEvidence, true
	case "response":
		return fResponse, true
	case "digest":
		return fDigest, true
	case "rev":
		return fRev, true
	case "observer":
		return fObserver, true
	case "state":
		return fState, true
	case "target":
		return fTarget, true
	case "meta":
		return fMeta, true
	}
	return 0, false
}

func (d *Decoder) value(s *scanner, f field, e *Event, text *string) error {
	switch f {
	case fEvidence:
		return d.strings(s, &e.Evidence)
	case fRev:
		n, err := s.integer()
		if err != nil {
			return err
		}
		e.Rev = n
		return nil
	case fMeta, fSchema, fTarget:
		raw, err := s.raw()
		if err != nil {
			return err
		}
		if raw[0] != '{' {
			return fmt.Errorf("must be a JSON object")
		}
		switch f {
		case fMeta:
			e.Meta = d.own(raw)
		case fSchema:
			e.Schema = d.own(raw)
		default:
			e.Target = d.own(raw)
		}
		return nil
	case fResponse:
		raw, err := s.raw()
		if err != nil {
			return err
		}
		e.Response = d.own(raw)
		return nil
	}
	b, err := s.str()
	if err != nil {
		return err
	}
	switch f {
	case fTS:
		e.TS = d.own(b)
	case fType:
		e.Type = Type(d.word(b))
	case fID:
		e.ID = d.own(b)
	case fPromise:
		*text = d.own(b)
	case fBy:
		e.By = d.str(b, true)
	case fTo:
		e.To = d.str(b, true)
	case fOn:
		e.On = d.own(b)
	case fUntil:
		e.Until = d.own(b)
	case fTask:
		e.Task = d.own(b)
	case fLapse:
		e.Lapse = Lapse(d.word(b))
	case fProposer:
		e.Proposer = d.word(b)
	case fSchemaID:
		e.SchemaID = d.str(b, true)
	case fReason:
		e.Reason = d.own(b)
	case fNote:
		e.Note = d.own(b)
	case fPhase:
		e.Phase = Phase(d.word(b))
	case fAs:
		e.As = Outcome(d.word(b))
	case fDigest:
		e.Digest = d.own(b)
	case fObserver:
		e.Observer = d.str(b, true)
	case fState:
		e.State = d.word(b)
	}
	return nil
}

func (d *Decoder) strings(s *scanner, out *[]string) error {
	if !s.eat('[') {
		return s.fail("must be an array of strings")
	}
	s.ws()
	if s.eat(']') {
		*out = []string{}
		return nil
	}
	var list []string
	for {
		s.ws()
		b, err := s.str()
		if err != nil {
			return err
		}
		list = append(list, d.own(b))
		s.ws()
		if s.eat(',') {
			continue
		}
		if s.eat(']') {
			break
		}
		return s.fail("expected ',' or ']' in array")
	}
	*out = list
	return nil
}

// plain marks the bytes a string's fast path passes over without a second
// look: printable ASCII but the quote and the backslash.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return
}()

// scanner is a strict JSON scanner over one line.
type scanner struct {
	b   []byte
	i   int
	buf []byte // scratch for unescaping
}

func (s *scanner) fail(msg string) error {
	if s.i >= len(s.b) {
		return fmt.Errorf("%s at end of line", msg)
	}
	return fmt.Errorf("%s at byte %d", msg, s.i+1)
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

func (s *scanner) eat(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

func (s *scanner) null() bool {
	if s.i < len(s.b) && s.b[s.i] == 'n' && bytes.HasPrefix(s.b[s.i:], []byte("null")) {
		s.i += 4
		return true
	}
	return false
}

// str scans a JSON string and returns its unescaped bytes. The slice is valid
// until the next call.
func (s *scanner) str() ([]byte, error) {
	if !s.eat('"') {
		return nil, s.fail("expected a string")
	}
	start := s.i
	// Fast path: no escapes. Only a string with a byte above 0x7f needs its
	// UTF-8 checked.
	high := false
	for s.i < len(s.b) {
		c := s.b[s.i]
		if plain[c] {
			s.i++
			continue
		}
		if c == '"' {
			out := s.b[start:s.i]
			s.i++
			if high && !utf8.Valid(out) {
				return nil, fmt.Errorf("string is not valid UTF-8")
			}
			return out, nil
		}
		if c == '\\' {
			break
		}
		if c < 0x20 {
			return nil, s.fail("control character in string")
		}
		high = true
		s.i++
	}
	s.buf = append(s.buf[:0], s.b[start:s.i]...)
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			if !utf8.Valid(s.buf) {
				return nil, fmt.Errorf("string is not valid UTF-8")
			}
			return s.buf, nil
		case c < 0x20:
			return nil, s.fail("control character in string")
		case c != '\\':
			s.buf = append(s.buf, c)
			s.i++
			continue
		}
		s.i++
		if s.i >= len(s.b) {
			break
		}
		esc := s.b[s.i]
		s.i++
		switch esc {
		case '"', '\\', '/':
			s.buf = append(s.buf, esc)
		case 'b':
			s.buf = append(s.buf, '\b')
		case 'f':
			s.buf = append(s.buf, '\f')
		case 'n':
			s.buf = append(s.buf, '\n')
		case 'r':
			s.buf = append(s.buf, '\r')
		case 't':
			s.buf = append(s.buf, '\t')
		case 'u':
			r, ok := s.hex4()
			if !ok {
				return nil, s.fail("bad \\u escape")
			}
			if utf16.IsSurrogate(r) {
				// A lone surrogate cannot be represented in UTF-8; a pair can.
				if s.i+1 < len(s.b) && s.b[s.i] == '\\' && s.b[s.i+1] == 'u' {
					s.i += 2
					r2, ok := s.hex4()
					if !ok {
						return nil, s.fail("bad \\u escape")
					}
					r = utf16.DecodeRune(r, r2)
				} else {
					r = utf8.RuneError
				}
				if r == utf8.RuneError {
					return nil, fmt.Errorf("string holds an unpaired surrogate")
				}
			}
			s.buf = utf8.AppendRune(s.buf, r)
		default:
			return nil, s.fail("bad escape")
		}
	}
	return nil, s.fail("unterminated string")
}

func (s *scanner) hex4() (rune, bool) {
	if s.i+4 > len(s.b) {
		return 0, false
	}
	var r rune
	for _, c := range s.b[s.i : s.i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	s.i += 4
	return r, true
}

func (s *scanner) integer() (int, error) {
	start := s.i
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		s.i++
	}
	digits := s.b[start:s.i]
	if len(digits) == 0 || (len(digits) > 1 && digits[0] == '0') || len(digits) > 9 {
		return 0, fmt.Errorf("must be a non-negative integer")
	}
	if s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		return 0, fmt.Errorf("must be a non-negative integer")
	}
	n, _ := strconv.Atoi(string(digits))
	return n, nil
}

// raw scans any JSON value and returns it compacted. The bytes are valid
// until the next call.
func (s *scanner) raw() ([]byte, error) {
	start := s.i
	spaced, err := s.skip(0)
	if err != nil {
		return nil, err
	}
	v := s.b[start:s.i]
	if !spaced {
		return v, nil
	}
	var out bytes.Buffer
	if err := json.Compact(&out, v); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

const maxDepth = 200

// skip validates one JSON value and reports whether it held insignificant
// whitespace.
func (s *scanner) skip(depth int) (bool, error) {
	if depth > maxDepth {
		return false, fmt.Errorf("nested too deeply")
	}
	if s.i >= len(s.b) {
		return false, s.fail("expected a value")
	}
	spaced := false
	switch c := s.b[s.i]; {
	case c == '{' || c == '[':
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		s.i++
		n := s.i
		s.ws()
		spaced = n != s.i
		if s.eat(closer) {
			return spaced, nil
		}
		for {
			if c == '{' {
				n = s.i
				s.ws()
				spaced = spaced || n != s.i
				if _, err := s.str(); err != nil {
					return false, err
				}
				n = s.i
				s.ws()
				spaced = spaced || n != s.i
				if !s.eat(':') {
					return false, s.fail("expected ':'")
				}
			}
			n = s.i
			s.ws()
			spaced = spaced || n != s.i
			sp, err := s.skip(depth + 1)
			if err != nil {
				return false, err
			}
			n = s.i
			s.ws()
			spaced = spaced || sp || n != s.i
			if s.eat(',') {
				continue
			}
			if s.eat(closer) {
				return spaced, nil
			}
			return false, s.fail("expected ',' or closing bracket")
		}
	case c == '"':
		_, err := s.str()
		return false, err
	case c == 't':
		return false, s.word("true")
	case c == 'f':
		return false, s.word("false")
	case c == 'n':
		return false, s.word("null")
	default:
		return false, s.number()
	}
}

func (s *scanner) word(w string) error {
	if bytes.HasPrefix(s.b[s.i:], []byte(w)) {
		s.i += len(w)
		return nil
	}
	return s.fail("invalid literal")
}

func (s *scanner) number() error {
	start := s.i
	s.eat('-')
	digits := func() int {
		n := s.i
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
		}
		return s.i - n
	}
	if s.i < len(s.b) && s.b[s.i] == '0' {
		s.i++
	} else if digits() == 0 {
		s.i = start
		return s.fail("invalid value")
	}
	if s.eat('.') && digits() == 0 {
		return s.fail("invalid number")
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if !s.eat('+') {
			s.eat('-')
		}
		if digits() == 0 {
			return s.fail("invalid number")
		}
	}
	// A number must be a finite double, as RFC 8785 (the digest's canonical
	// form) requires: 1e400 is valid JSON that no digest could be made of.
	if _, err := strconv.ParseFloat(string(s.b[start:s.i]), 64); err != nil {
		return fmt.Errorf("number %s is out of range", s.b[start:s.i])
	}
	return nil
}

// parseInstant parses an RFC 3339 instant with a zone into Unix nanoseconds,
// with a fast path for the UTC form the ledger writes.
func parseInstant(v string) (int64, error) {
	if n, ok := fastUTC(v); ok {
		return n, nil
	}
	t, err := ParseTime(v)
	if err != nil {
		return 0, fmt.Errorf("%q is not an RFC 3339 time with a zone", v)
	}
	return Nanos(t), nil
}

// Nanos is t as Unix nanoseconds, saturated at the ends of int64 (years
// before 1678 or after 2262): a deadline of 9999-12-31 is later than every
// instant pinki can compare it with, never a date in 1816.
func Nanos(t time.Time) int64 {
	sec := t.Unix()
	switch {
	case sec > maxSec:
		return math.MaxInt64
	case sec < minSec:
		return math.MinInt64
	}
	return sec*1e9 + int64(t.Nanosecond())
}

// rfc3339Shape reports whether v has exactly the RFC 3339 date-time shape
// with a zone: YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM), offset hours at most
// 23. time.Parse alone also takes a comma before the fraction and +24:00.
func rfc3339Shape(v string) bool {
	digits := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		}
		return true
	}
	if len(v) < 20 || !digits(v[0:4]) || v[4] != '-' || !digits(v[5:7]) || v[7] != '-' || !digits(v[8:10]) ||
		v[10] != 'T' || !digits(v[11:13]) || v[13] != ':' || !digits(v[14:16]) || v[16] != ':' || !digits(v[17:19]) {
		return false
	}
	rest := v[19:]
	if rest[0] == '.' {
		i := 1
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			i++
		}
		if i == 1 {
			return false
		}
		rest = rest[i:]
	}
	if rest == "Z" {
		return true
	}
	return len(rest) == 6 && (rest[0] == '+' || rest[0] == '-') && digits(rest[1:3]) && rest[3] == ':' &&
		digits(rest[4:6]) && rest[1:3] <= "23" && rest[4:6] <= "59"
}

// ParseInstant is parseInstant for other packages: RFC 3339 with a zone, to
// Unix nanoseconds.
func ParseInstant(v string) (int64, error) { return parseInstant(v) }

// fastUTC parses "YYYY-MM-DDTHH:MM:SS[.fffffffff]Z".
func fastUTC(v string) (int64, bool) {
	if len(v) < 20 || v[len(v)-1] != 'Z' || v[4] != '-' || v[7] != '-' || v[10] != 'T' || v[13] != ':' || v[16] != ':' {
		return 0, false
	}
	num := func(s string) (int, bool) {
		n := 0
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	y, ok1 := num(v[0:4])
	mo, ok2 := num(v[5:7])
	d, ok3 := num(v[8:10])
	h, ok4 := num(v[11:13])
	mi, ok5 := num(v[14:16])
	sec, ok6 := num(v[17:19])
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) {
		return 0, false
	}
	if mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || sec > 59 {
		return 0, false
	}
	var frac int64
	rest := v[19 : len(v)-1]
	if rest != "" {
		if rest[0] != '.' || len(rest) < 2 || len(rest) > 10 {
			return 0, false
		}
		f, ok := num(rest[1:])
		if !ok {
			return 0, false
		}
		frac = int64(f)
		for i := len(rest) - 1; i < 9; i++ {
			frac *= 10
		}
	}
	days := daysFromCivil(y, mo, d)
	secs := ((days*24+int64(h))*60+int64(mi))*60 + int64(sec)
	if secs > maxSec || secs < minSec {
		return 0, false // out of int64 nanoseconds: Nanos saturates
	}
	return secs*1e9 + frac, true
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the number of days from 1970-01-01 to y-m-d (proleptic
// Gregorian), after Howard Hinnant's algorithm.
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// The range of whole seconds whose nanoseconds fit an int64.
const (
	maxSec = math.MaxInt64/int64(time.Second) - 1
	minSec = math.MinInt64/int64(time.Second) + 1
)
