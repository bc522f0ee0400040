package pinki

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// kv is one key and its raw JSON value, for building lines in tests.
type kv struct{ k, v string }

func line(kvs ...kv) string {
	var b strings.Builder
	b.WriteByte('{')
	for i, p := range kvs {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%q:%s", p.k, p.v)
	}
	b.WriteByte('}')
	return b.String()
}

func without(kvs []kv, key string) []kv {
	var out []kv
	for _, p := range kvs {
		if p.k != key {
			out = append(out, p)
		}
	}
	return out
}

func with(kvs []kv, p kv) []kv { return append(append([]kv(nil), kvs...), p) }

// fullLines has, per type, a line with every key the type allows, in the
// order AppendLine writes them, so that it re-encodes byte for byte.
var fullLines = map[Type][]kv{
	TypePromise: {{"ts", `"2026-09-01T09:00:00Z"`}, {"type", `"promise"`}, {"id", `"desk/ship-91"`},
		{"promise", `"hand back a reviewed schema"`}, {"by", `"reviewer"`}, {"to", `"author"`}, {"on", `"pnk_0c2b77"`},
		{"until", `"2026-09-01T17:00:00Z"`}, {"lapse", `"expire"`}, {"task", `"task-1"`}, {"meta", `{"rung":1}`}},
	TypeRequest: {{"ts", `"2026-09-01T09:00:00Z"`}, {"type", `"request"`}, {"id", `"q1"`},
		{"promise", `"stock level of sku 42?"`}, {"by", `"warehouse"`}, {"to", `"shop"`}, {"on", `"p0"`},
		{"until", `"2026-09-01T17:00:00Z"`}, {"lapse", `"overdue"`}, {"task", `"t"`}, {"schema_id", `"stock.v1"`},
		{"schema", `{"type":"object","required":["n"]}`}, {"meta", `{"a":[1,2.5,null]}`}},
	TypePropose: {{"ts", `"2026-09-01T09:00:00Z"`}, {"type", `"propose"`}, {"id", `"deal"`},
		{"promise", `"we split the review"`}, {"by", `"alice"`}, {"to", `"bob"`}, {"on", `"p0"`},
		{"until", `"2026-09-01T17:00:00Z"`}, {"lapse", `"expire"`}, {"task", `"t"`}, {"proposer", `"to"`}, {"meta", `{"x":true}`}},
	TypeAmend: {{"ts", `"2026-09-01T10:00:00Z"`}, {"type", `"amend"`}, {"promise", `"deal"`}, {"by", `"alice"`},
		{"until", `"2026-09-02T17:00:00Z"`}, {"reason", `"nudge 1"`}, {"meta", `{"by":"offboard"}`}},
	TypeAccept: {{"ts", `"2026-09-01T10:00:00Z"`}, {"type", `"accept"`}, {"promise", `"deal"`}, {"by", `"bob"`},
		{"rev", `3`}, {"meta", `{"k":"v"}`}},
	TypeProgress: {{"ts", `"2026-09-01T10:00:00Z"`}, {"type", `"progress"`}, {"promise", `"q1"`}, {"by", `"warehouse"`},
		{"phase", `"in_progress"`}, {"note", `"counting"`}, {"meta", `{"k":"v"}`}},
	TypeResolve: {{"ts", `"2026-09-01T11:00:00Z"`}, {"type", `"resolve"`}, {"promise", `"q1"`}, {"as", `"satisfied"`},
		{"by", `"warehouse"`}, {"evidence", `["https://example.org/a","commit:4f3a91c"]`}, {"reason", `"r"`},
		{"response", `{"n":42}`}, {"schema_id", `"stock.v1"`}, {"digest", `"sha256:00"`}, {"meta", `{"k":"v"}`}},
	TypeAssess: {{"ts", `"2026-09-02T09:00:00Z"`}, {"type", `"assess"`}, {"promise", `"q1"`}, {"state", `"violated"`},
		{"observer", `"shop"`}, {"note", `"nothing shipped"`}, {"meta", `{"k":"v"}`}},
	TypeBind: {{"ts", `"2026-09-01T10:00:00Z"`}, {"type", `"bind"`}, {"promise", `"deal"`}, {"by", `"bob"`},
		{"target", `{"kind":"todo","item":"42"}`}, {"meta", `{"k":"v"}`}},
}

// requiredKeys is, per type, what a line cannot do without (the fold needs
// it); allowedKeys what it may carry. Written out here from the SPEC and the
// architecture notes, independently of the decoder's tables.
var (
	requiredKeys = map[Type][]string{
		TypePromise:  {"ts", "type", "id", "promise", "by", "to", "until"},
		TypeRequest:  {"ts", "type", "id", "promise", "by", "to", "until"},
		TypePropose:  {"ts", "type", "id", "promise", "by", "to", "until"},
		TypeAmend:    {"ts", "type", "promise", "until"},
		TypeAccept:   {"ts", "type", "promise", "by", "rev"},
		TypeProgress: {"ts", "type", "promise", "phase"},
		TypeResolve:  {"ts", "type", "promise", "as"},
		TypeAssess:   {"ts", "type", "promise", "state"},
		TypeBind:     {"ts", "type", "promise", "target"},
	}
	allKeys = []string{"ts", "type", "id", "promise", "by", "to", "on", "until", "task", "lapse", "proposer",
		"schema_id", "schema", "reason", "note", "phase", "as", "evidence", "response", "digest", "rev",
		"observer", "state", "target", "meta"}
)

func keysOf(kvs []kv) map[string]bool {
	m := map[string]bool{}
	for _, p := range kvs {
		m[p.k] = true
	}
	return m
}

// sample is a valid value for key on any type that allows it.
func sample(key string) string {
	switch key {
	case "ts", "until":
		return `"2026-09-01T12:00:00Z"`
	case "rev":
		return `1`
	case "evidence":
		return `["x"]`
	case "schema", "target", "meta", "response":
		return `{"a":1}`
	case "as":
		return `"cancelled"`
	case "lapse":
		return `"expire"`
	case "proposer":
		return `"to"`
	case "phase":
		return `"blocked"`
	}
	return `"x"`
}

func TestDecodeRoundTripEveryType(t *testing.T) {
	for typ, kvs := range fullLines {
		t.Run(string(typ), func(t *testing.T) {
			in := line(kvs...)
			e, err := DecodeLine([]byte(in))
			if err != nil {
				t.Fatal(err)
			}
			if e.Type != typ {
				t.Fatalf("type %q", e.Type)
			}
			out := AppendLine(nil, &e)
			if string(out) != in+"\n" {
				t.Fatalf("re-encoded differently:\n%s\n%s", in, out)
			}
			e2, err := DecodeLine(out)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(e, e2) {
				t.Fatalf("round trip changed the event:\n%+v\n%+v", e, e2)
			}
		})
	}
}

func TestDecodeFields(t *testing.T) {
	e, err := DecodeLine([]byte(line(fullLines[TypePromise]...)))
	if err != nil {
		t.Fatal(err)
	}
	want := Event{TS: "2026-09-01T09:00:00Z", Type: TypePromise, ID: "desk/ship-91", Text: "hand back a reviewed schema",
		By: "reviewer", To: "author", On: "pnk_0c2b77", Until: "2026-09-01T17:00:00Z", Lapse: LapseExpire, Task: "task-1",
		Meta: `{"rung":1}`,
		At:   time.Date(2026, 9, 1, 9, 0, 0, 0, time.UTC).UnixNano(), UntilAt: time.Date(2026, 9, 1, 17, 0, 0, 0, time.UTC).UnixNano()}
	if !reflect.DeepEqual(e, want) {
		t.Fatalf("promise:\n%+v\nwant\n%+v", e, want)
	}
	if e.Key() != "desk/ship-91" {
		t.Fatalf("key %q", e.Key())
	}
	// On every other event the "promise" key is the subject, not text.
	r, err := DecodeLine([]byte(line(fullLines[TypeResolve]...)))
	if err != nil {
		t.Fatal(err)
	}
	if r.Subject != "q1" || r.Text != "" || r.Key() != "q1" || r.As != Satisfied ||
		!reflect.DeepEqual(r.Evidence, []string{"https://example.org/a", "commit:4f3a91c"}) || r.Response != `{"n":42}` {
		t.Fatalf("resolve: %+v", r)
	}
	a, err := DecodeLine([]byte(line(fullLines[TypeAccept]...)))
	if err != nil || a.Rev != 3 || a.By != "bob" {
		t.Fatalf("accept: %+v %v", a, err)
	}
}

// TestDecodeKeysPerType adds every key to every type's minimal line: allowed
// keys are accepted, the others refused, naming the key.
func TestDecodeKeysPerType(t *testing.T) {
	for typ, full := range fullLines {
		allowed := keysOf(full)
		var minimal []kv
		for _, p := range full {
			for _, k := range requiredKeys[typ] {
				if p.k == k {
					minimal = append(minimal, p)
				}
			}
		}
		if _, err := DecodeLine([]byte(line(minimal...))); err != nil {
			t.Fatalf("%s with only its required keys: %v", typ, err)
		}
		for _, key := range append(allKeys, "priority", "Type", "ts ", "") {
			if keysOf(minimal)[key] {
				continue
			}
			in := line(with(minimal, kv{key, sample(key)})...)
			_, err := DecodeLine([]byte(in))
			switch {
			case allowed[key] && err != nil:
				t.Errorf("%s: allowed key %q refused: %v", typ, key, err)
			case !allowed[key] && err == nil:
				t.Errorf("%s: key %q accepted: %s", typ, key, in)
			case !allowed[key] && !strings.Contains(err.Error(), fmt.Sprintf("%q", key)):
				t.Errorf("%s: the error for key %q does not name it: %v", typ, key, err)
			}
		}
	}
}

// TestDecodeRequired removes each key from every type's full line: required
// keys are missed, by name; optional ones are not.
func TestDecodeRequired(t *testing.T) {
	for typ, full := range fullLines {
		req := map[string]bool{}
		for _, k := range requiredKeys[typ] {
			req[k] = true
		}
		for _, p := range full {
			in := line(without(full, p.k)...)
			_, err := DecodeLine([]byte(in))
			switch {
			case req[p.k] && err == nil:
				t.Errorf("%s without %q accepted", typ, p.k)
			case req[p.k] && !strings.Contains(err.Error(), fmt.Sprintf("%q", p.k)):
				t.Errorf("%s without %q: the error does not name it: %v", typ, p.k, err)
			case !req[p.k] && err != nil:
				t.Errorf("%s without optional %q refused: %v", typ, p.k, err)
			}
			// An explicit null is the same as leaving the key out.
			nulled := line(with(without(full, p.k), kv{p.k, "null"})...)
			_, errNull := DecodeLine([]byte(nulled))
			if (errNull == nil) != (err == nil) {
				t.Errorf("%s: %q null (%v) differs from absent (%v)", typ, p.k, errNull, err)
			}
		}
	}
}

func TestDecodeNullOptional(t *testing.T) {
	base := fullLines[TypeAssess]
	plain, err := DecodeLine([]byte(line(without(without(base, "note"), "meta")...)))
	if err != nil {
		t.Fatal(err)
	}
	nulls, err := DecodeLine([]byte(line(with(with(without(without(base, "note"), "meta"), kv{"note", "null"}), kv{"meta", "null"})...)))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(plain, nulls) {
		t.Fatalf("null optional fields differ from absent ones:\n%+v\n%+v", plain, nulls)
	}
	ev, err := DecodeLine([]byte(line(with(without(fullLines[TypeResolve], "evidence"), kv{"evidence", "null"})...)))
	if err != nil || ev.Evidence != nil {
		t.Fatalf("evidence null: %v %#v", err, ev.Evidence)
	}
	empty, err := DecodeLine([]byte(line(with(without(fullLines[TypeResolve], "evidence"), kv{"evidence", "[]"})...)))
	if err != nil || empty.Evidence == nil || len(empty.Evidence) != 0 {
		t.Fatalf("evidence []: %v %#v", err, empty.Evidence)
	}
}

const okPromise = `{"ts":"2026-09-01T09:00:00Z","type":"promise","id":"p","promise":"x","by":"a","to":"b","until":"2026-09-01T17:00:00Z"}`

func promiseWith(extra string) string { return strings.TrimSuffix(okPromise, "}") + "," + extra + "}" }

// strictCases are lines the decoder must refuse, with a word of the reason.
var strictCases = []struct{ name, line, why string }{
	{"empty", ``, "not a JSON object"},
	{"array", `[]`, "not a JSON object"},
	{"string", `"promise"`, "not a JSON object"},
	{"null", `null`, "not a JSON object"},
	{"bom", "\ufeff" + okPromise, "not a JSON object"},
	{"unterminated object", `{"ts":"2026-09-01T09:00:00Z"`, "expected"},
	{"unterminated string", `{"ts":"2026-09-01T09:00:00Z`, "unterminated"},
	{"no type", `{"ts":"2026-09-01T09:00:00Z"}`, `no "type"`},
	{"empty object", `{}`, `no "type"`},
	{"null type", strings.Replace(okPromise, `"promise","id"`, `null,"id"`, 1), `no "type"`},
	{"unknown type", strings.Replace(okPromise, `"type":"promise"`, `"type":"nudge"`, 1), "unknown event type"},
	{"type case", strings.Replace(okPromise, `"type":"promise"`, `"type":"Promise"`, 1), "unknown event type"},
	{"unknown key", promiseWith(`"priority":"high"`), "unknown field"},
	{"key case", promiseWith(`"Meta":{"a":1}`), "unknown field"},
	{"key not allowed", promiseWith(`"rev":1`), "not allowed"},
	{"duplicate key", promiseWith(`"by":"c"`), "twice"},
	{"duplicate ts", promiseWith(`"ts":"2026-09-01T09:00:00Z"`), "twice"},
	{"duplicate meta", promiseWith(`"meta":{"a":1},"meta":{"a":1}`), "twice"},
	{"duplicate escaped key", promiseWith(`"b\u0079":"c"`), "twice"},
	{"number for string", strings.Replace(okPromise, `"by":"a"`, `"by":1`, 1), "expected a string"},
	{"bool for string", strings.Replace(okPromise, `"by":"a"`, `"by":true`, 1), "expected a string"},
	{"array for string", strings.Replace(okPromise, `"by":"a"`, `"by":["a"]`, 1), "expected a string"},
	{"object for string", strings.Replace(okPromise, `"by":"a"`, `"by":{"a":1}`, 1), "expected a string"},
	{"number for ts", strings.Replace(okPromise, `"ts":"2026-09-01T09:00:00Z"`, `"ts":1788253200`, 1), "expected a string"},
	{"meta array", promiseWith(`"meta":[1]`), "object"},
	{"meta string", promiseWith(`"meta":"{}"`), "object"},
	{"meta number", promiseWith(`"meta":1`), "object"},
	{"meta bool", promiseWith(`"meta":true`), "object"},
	{"meta unterminated", promiseWith(`"meta":{"a":1`), "expected"},
	{"meta bad number", promiseWith(`"meta":{"a":01}`), "expected"},
	{"meta bad literal", promiseWith(`"meta":{"a":nul}`), "invalid literal"},
	{"meta trailing comma", promiseWith(`"meta":{"a":1,}`), "expected a string"},
	{"meta too deep", promiseWith(`"meta":{"a":` + strings.Repeat("[", 201) + strings.Repeat("]", 201) + `}`), "deeply"},
	{"rev string", `{"ts":"2026-09-01T09:00:00Z","type":"accept","promise":"d","by":"a","rev":"1"}`, "integer"},
	{"rev float", `{"ts":"2026-09-01T09:00:00Z","type":"accept","promise":"d","by":"a","rev":1.0}`, "integer"},
	{"rev exponent", `{"ts":"2026-09-01T09:00:00Z","type":"accept","promise":"d","by":"a","rev":1e3}`, "integer"},
	{"rev negative", `{"ts":"2026-09-01T09:00:00Z","type":"accept","promise":"d","by":"a","rev":-1}`, "integer"},
	{"rev leading zero", `{"ts":"2026-09-01T09:00:00Z","type":"accept","promise":"d","by":"a","rev":01}`, "integer"},
	{"rev huge", `{"ts":"2026-09-01T09:00:00Z","type":"accept","promise":"d","by":"a","rev":12345678901}`, "integer"},
	{"evidence string", `{"ts":"2026-09-01T09:00:00Z","type":"resolve","promise":"p","as":"satisfied","by":"a","evidence":"x"}`, "array"},
	{"evidence numbers", `{"ts":"2026-09-01T09:00:00Z","type":"resolve","promise":"p","as":"satisfied","by":"a","evidence":[1]}`, "expected a string"},
	{"evidence null item", `{"ts":"2026-09-01T09:00:00Z","type":"resolve","promise":"p","as":"satisfied","by":"a","evidence":[null]}`, "expected a string"},
	{"evidence trailing comma", `{"ts":"2026-09-01T09:00:00Z","type":"resolve","promise":"p","as":"satisfied","by":"a","evidence":["x",]}`, "expected a string"},
	{"unknown outcome", `{"ts":"2026-09-01T09:00:00Z","type":"resolve","promise":"p","as":"done","by":"a"}`, `"as"`},
	{"outcome case", `{"ts":"2026-09-01T09:00:00Z","type":"resolve","promise":"p","as":"Satisfied","by":"a"}`, `"as"`},
	{"invalid utf-8", strings.Replace(okPromise, `"x"`, "\"\xff\"", 1), "UTF-8"},
	{"truncated utf-8", strings.Replace(okPromise, `"x"`, "\"\xe2\x80\"", 1), "UTF-8"},
	{"overlong utf-8", strings.Replace(okPromise, `"x"`, "\"\xc0\xaf\"", 1), "UTF-8"},
	{"utf-8 surrogate", strings.Replace(okPromise, `"x"`, "\"\xed\xa0\x80\"", 1), "UTF-8"},
	{"invalid utf-8 after escape", strings.Replace(okPromise, `"x"`, "\"\\n\xff\"", 1), "UTF-8"},
	{"invalid utf-8 in key", promiseWith("\"\xff\":1"), "UTF-8"},
	{"invalid utf-8 in meta", promiseWith("\"meta\":{\"a\":\"\xff\"}"), "UTF-8"},
	{"lone high surrogate", strings.Replace(okPromise, `"x"`, `"\ud800"`, 1), "surrogate"},
	{"lone low surrogate", strings.Replace(okPromise, `"x"`, `"\udc00"`, 1), "surrogate"},
	{"high then letter", strings.Replace(okPromise, `"x"`, `"\ud800\u0041"`, 1), "surrogate"},
	{"high then text", strings.Replace(okPromise, `"x"`, `"\ud800x"`, 1), "surrogate"},
	{"two highs", strings.Replace(okPromise, `"x"`, `"\ud800\ud800"`, 1), "surrogate"},
	{"lone surrogate in meta", promiseWith(`"meta":{"a":"\udfff"}`), "surrogate"},
	{"bad escape", strings.Replace(okPromise, `"x"`, `"\x"`, 1), "bad escape"},
	{"short unicode escape", strings.Replace(okPromise, `"x"`, `"\u12"`, 1), `\u`},
	{"raw control", strings.Replace(okPromise, `"x"`, "\"a\tb\"", 1), "control"},
	{"raw newline", strings.Replace(okPromise, `"x"`, "\"a\nb\"", 1), "control"},
	{"raw CR in string", strings.Replace(okPromise, `"x"`, "\"a\rb\"", 1), "control"},
	{"until without zone", strings.Replace(okPromise, `2026-09-01T17:00:00Z`, `2026-09-01T17:00:00`, 1), `"until"`},
	{"until date only", strings.Replace(okPromise, `2026-09-01T17:00:00Z`, `2026-09-01`, 1), `"until"`},
	{"until space", strings.Replace(okPromise, `2026-09-01T17:00:00Z`, `2026-09-01 17:00:00Z`, 1), `"until"`},
	{"until lower case", strings.Replace(okPromise, `2026-09-01T17:00:00Z`, `2026-09-01t17:00:00z`, 1), `"until"`},
	{"until no seconds", strings.Replace(okPromise, `2026-09-01T17:00:00Z`, `2026-09-01T17:00Z`, 1), `"until"`},
	{"until bad day", strings.Replace(okPromise, `2026-09-01T17:00:00Z`, `2026-02-29T17:00:00Z`, 1), `"until"`},
	{"until leap second", strings.Replace(okPromise, `2026-09-01T17:00:00Z`, `2026-12-31T23:59:60Z`, 1), `"until"`},
	{"until empty", strings.Replace(okPromise, `2026-09-01T17:00:00Z`, ``, 1), `"until"`},
	{"ts without zone", strings.Replace(okPromise, `2026-09-01T09:00:00Z`, `2026-09-01T09:00:00`, 1), `"ts"`},
	{"ts unix", strings.Replace(okPromise, `"2026-09-01T09:00:00Z"`, `"1788253200"`, 1), `"ts"`},
	{"trailing garbage", okPromise + "x", "trailing"},
	{"two objects", okPromise + "{}", "trailing"},
	{"trailing comma", okPromise + ",", "trailing"},
	{"comma before brace", strings.TrimSuffix(okPromise, "}") + ",}", "expected a string"},
	{"missing colon", `{"ts" "2026-09-01T09:00:00Z"}`, "':'"},
	{"single quotes", `{'ts':'2026-09-01T09:00:00Z'}`, "expected a string"},
}

func TestDecodeStrict(t *testing.T) {
	for _, c := range strictCases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeLine([]byte(c.line))
			if err == nil {
				t.Fatalf("accepted: %q", c.line)
			}
			if !strings.Contains(err.Error(), c.why) {
				t.Fatalf("error %q does not say %q", err, c.why)
			}
			if msg := err.Error(); strings.Contains(msg, "\n") || msg != strings.ToLower(msg[:1])+msg[1:] {
				t.Fatalf("error is not one lower-case line: %q", msg)
			}
		})
	}
}

// TestDecodeLenient covers what a strict decoder still accepts: JSON
// whitespace anywhere between tokens (compacted out of raw values), a CR
// before the newline (CRLF files), escapes of every kind, surrogate pairs,
// non-ASCII, and an empty meta object (the service refuses it; the decoder
// reads what a ledger holds).
func TestDecodeLenient(t *testing.T) {
	want, err := DecodeLine([]byte(okPromise))
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]string{
		"crlf":    okPromise + "\r",
		"crlf+lf": okPromise + "\r\n",
		"spaces": " \t{ \"ts\" : \"2026-09-01T09:00:00Z\" ,\t\"type\":\"promise\", \"id\":\"p\",\"promise\" :\"x\"," +
			"\"by\":\"a\",\"to\":\"b\",\"until\":\"2026-09-01T17:00:00Z\" } ",
		"escaped key":   strings.Replace(okPromise, `"by"`, `"\u0062y"`, 1),
		"escaped value": strings.Replace(okPromise, `"b"`, `"\u0062"`, 1),
	} {
		got, err := DecodeLine([]byte(in))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %+v", name, got)
		}
	}
	e, err := DecodeLine([]byte(promiseWith(`"meta" : { "a" : [ 1 , { "b" : "c d" } ] , "e" : "\u00e9\n" }`)))
	if err != nil || e.Meta != `{"a":[1,{"b":"c d"}],"e":"\u00e9\n"}` {
		t.Fatalf("meta not compacted as is: %v %s", err, e.Meta)
	}
	e, err = DecodeLine([]byte(strings.Replace(okPromise, `"x"`, `"\"\\\/\b\f\n\r\t\u00e9\u00E9\ud83d\ude00é😀 <&> `+"\u2028"+`"`, 1)))
	if err != nil || e.Text != "\"\\/\b\f\n\r\t\u00e9\u00e9\U0001F600é😀 <&> \u2028" {
		t.Fatalf("escapes: %v %q", err, e.Text)
	}
	e, err = DecodeLine([]byte(promiseWith(`"meta":{}`)))
	if err != nil || e.Meta != `{}` {
		t.Fatalf("empty meta: %v %q", err, e.Meta)
	}
	deep := strings.Repeat("[", 150) + strings.Repeat("]", 150)
	if _, err := DecodeLine([]byte(promiseWith(`"meta":{"a":` + deep + `}`))); err != nil {
		t.Fatalf("meta nested 150 deep: %v", err)
	}
}

// TestDecoderInterning checks that a reused Decoder gives the same events as
// DecodeLine.
func TestDecoderInterning(t *testing.T) {
	var d Decoder
	for i := 0; i < 3; i++ {
		for typ, kvs := range fullLines {
			in := []byte(line(kvs...))
			a, err1 := d.Decode(in)
			b, err2 := DecodeLine(in)
			if err1 != nil || err2 != nil || !reflect.DeepEqual(a, b) {
				t.Fatalf("%s: %v %v\n%+v\n%+v", typ, err1, err2, a, b)
			}
		}
	}
}

// TestDecoderEdges pins two cases the decoder once got wrong: a duplicate
// key after an explicit null is still a duplicate, and an instant beyond the
// range of int64 nanoseconds saturates instead of wrapping around.
func TestDecoderEdges(t *testing.T) {
	t.Run("duplicate key after null", func(t *testing.T) {
		in := promiseWith(`"on":null,"on":"z"`)
		if _, err := DecodeLine([]byte(in)); err == nil || !strings.Contains(err.Error(), "twice") {
			t.Fatalf("%s: %v", in, err)
		}
	})
	t.Run("instant beyond 2262", func(t *testing.T) {
		e, err := DecodeLine([]byte(strings.Replace(okPromise, `2026-09-01T17:00:00Z`, `9999-12-31T23:59:59Z`, 1)))
		if err != nil || e.UntilAt != math.MaxInt64 {
			t.Fatalf("until 9999-12-31: %d, %v", e.UntilAt, err)
		}
		e, err = DecodeLine([]byte(strings.Replace(okPromise, `2026-09-01T17:00:00Z`, `0001-01-01T00:00:00Z`, 1)))
		if err != nil || e.UntilAt != math.MinInt64 {
			t.Fatalf("until 0001-01-01: %d, %v", e.UntilAt, err)
		}
	})
	t.Run("closed vocabularies, finite numbers, nulls on keys not allowed", func(t *testing.T) {
		for _, in := range []string{
			promiseWith(`"lapse":"expires"`),
			promiseWith(`"meta":{"n":1e400}`),
			promiseWith(`"meta":{"n":-1e400}`),
			promiseWith(`"observer":null`),
			`{"ts":"2026-09-01T12:00:00Z","type":"propose","id":"a","promise":"t","by":"x","to":"y","until":"2026-09-02T12:00:00Z","proposer":"them"}`,
			`{"ts":"2026-09-01T12:00:00Z","type":"progress","promise":"a","by":"x","phase":"requested"}`,
		} {
			if _, err := DecodeLine([]byte(in)); err == nil {
				t.Errorf("accepted: %s", in)
			}
		}
		if _, err := DecodeLine([]byte(promiseWith(`"meta":{"n":1e-400}`))); err != nil {
			t.Errorf("a number that rounds to 0 is finite: %v", err)
		}
	})
	t.Run("no comma fraction, no +24:00", func(t *testing.T) {
		for _, v := range []string{"2026-09-01T17:00:00,5Z", "2026-09-01T17:00:00+24:00", "2026-09-01T17:00:00+23:60"} {
			if _, err := parseInstant(v); err == nil {
				t.Errorf("%s accepted", v)
			}
		}
	})
}

// TestFastUTC checks the fast path against time.Parse: every day from 1678
// to 2261 (leap years, century rules) at a few times of day, fractions of
// every length, and forms the fast path must leave to time.Parse.
func TestFastUTC(t *testing.T) {
	agree := func(v string) {
		t.Helper()
		want, werr := strictRFC3339(v)
		got, ok := fastUTC(v)
		if ok && (werr != nil || got != want.UnixNano()) {
			t.Fatalf("fastUTC(%q) = %d, time.Parse = %v, %v", v, got, want, werr)
		}
		n, err := parseInstant(v)
		if (err == nil) != (werr == nil) || (err == nil && n != want.UnixNano()) {
			t.Fatalf("parseInstant(%q) = %d, %v; time.Parse = %v, %v", v, n, err, want, werr)
		}
	}
	times := []string{"T00:00:00Z", "T23:59:59Z", "T12:34:56.789Z"}
	i := 0
	for d := time.Date(1678, 1, 1, 0, 0, 0, 0, time.UTC); d.Year() < 2262; d = d.AddDate(0, 0, 1) {
		v := d.Format("2006-01-02") + times[i%len(times)]
		i++
		if _, ok := fastUTC(v); !ok {
			t.Fatalf("fastUTC refuses %q", v)
		}
		agree(v)
	}
	for _, v := range []string{
		"2024-02-29T00:00:00Z", "2000-02-29T00:00:00Z", "2026-02-29T00:00:00Z", "1900-02-29T00:00:00Z",
		"2100-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z",
		"2026-01-00T00:00:00Z", "2026-01-32T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T23:60:00Z",
		"2026-01-01T23:59:60Z", "1970-01-01T00:00:00Z", "1969-12-31T23:59:59.999999999Z",
		"2026-09-01T17:00:00.1Z", "2026-09-01T17:00:00.12Z", "2026-09-01T17:00:00.123Z",
		"2026-09-01T17:00:00.1234Z", "2026-09-01T17:00:00.12345Z", "2026-09-01T17:00:00.123456Z",
		"2026-09-01T17:00:00.1234567Z", "2026-09-01T17:00:00.12345678Z", "2026-09-01T17:00:00.123456789Z",
		"2026-09-01T17:00:00.000000001Z", "2026-09-01T17:00:00.1234567891Z", "2026-09-01T17:00:00.Z",
		"2026-09-01T17:00:00.5", "2026-09-01T17:00:00+00:00", "2026-09-01T19:00:00+02:00",
		"2026-09-01T10:00:00-07:00", "2026-09-01T17:00:00.5+05:30", "2026-09-01T17:00:00-00:00",
		"2026-09-01T17:00:00z", "2026-09-01t17:00:00Z", "2026-09-01 17:00:00Z", "+2026-09-01T17:00:00Z",
		"2026-9-01T17:00:00Z", "20260901T170000Z", "2026-09-01T17:00Z", "2026-09-01T17:00:00ZZ",
		"2026-09-01T17:00:00 Z", "2026-09-01T17:00:00,5Z", "-001-09-01T17:00:00Z", "2026-09-01T17:00:0aZ", "２０２６-09-01T17:00:00Z", "",
	} {
		agree(v)
	}
}

// rfc3339 is the RFC 3339 date-time production with a zone (section 5.6),
// written independently of the decoder's own shape check.
var rfc3339 = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-](0\d|1\d|2[0-3]):[0-5]\d)$`)

// strictRFC3339 is the reference the decoder must agree with: the RFC 3339
// shape, then time.Parse for the values (days per month, leap years).
func strictRFC3339(v string) (time.Time, error) {
	if !rfc3339.MatchString(v) {
		return time.Time{}, fmt.Errorf("not RFC 3339: %q", v)
	}
	return time.Parse(time.RFC3339Nano, v)
}

// FuzzInstant checks parseInstant (fast path and fallback) against
// time.Parse on arbitrary text within the range Unix nanoseconds can hold.
func FuzzInstant(f *testing.F) {
	for _, s := range []string{"2026-09-01T17:00:00Z", "2024-02-29T23:59:59.999999999Z", "2026-09-01T19:00:00+02:00", "1999-12-31T23:59:59.5Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		want, werr := strictRFC3339(v)
		n, err := parseInstant(v)
		if werr == nil && (want.Year() < 1678 || want.Year() > 2261) {
			// Outside int64 nanoseconds: saturated, never wrapped around.
			if err != nil || (want.Year() > 2261) != (n > 0) {
				t.Fatalf("parseInstant(%q) = %d, %v: not saturated", v, n, err)
			}
			return
		}
		if (err == nil) != (werr == nil) || (err == nil && n != want.UnixNano()) {
			t.Fatalf("parseInstant(%q) = %d, %v; time.Parse = %v, %v", v, n, err, want, werr)
		}
	})
}

func TestErrorMessagesNameTheLine(t *testing.T) {
	// The error is one sentence a caller prefixes with "line N: ".
	_, err := DecodeLine([]byte(`{"ts":"2026-09-01T09:00:00Z","type":"promise"`))
	if err == nil || bytes.ContainsAny([]byte(err.Error()), "\n\r") {
		t.Fatalf("%v", err)
	}
}

// TestDecodeLineCost: decoding one line allocates its arena, sized to the
// line, and nothing else (no interning table, no chunk meant for lines to
// come). The service decodes every event it writes once more, to be sure it
// reads back, so this is on every write's path.
func TestDecodeLineCost(t *testing.T) {
	line := []byte(`{"ts":"2026-09-01T09:00:00Z","type":"promise","id":"p1","promise":"write the report","by":"alice","to":"bob","until":"2026-09-01T17:00:00Z"}`)
	const runs = 200
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		if _, err := DecodeLine(line); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	allocs := (after.Mallocs - before.Mallocs) / runs
	bytes := (after.TotalAlloc - before.TotalAlloc) / runs
	if allocs > 1 || bytes > uint64(2*len(line)) {
		t.Fatalf("DecodeLine of a %d-byte line: %d allocations, %d bytes; want 1 allocation of at most %d bytes",
			len(line), allocs, bytes, 2*len(line))
	}
}
