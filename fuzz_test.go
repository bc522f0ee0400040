package pinki

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzDecodeLine feeds arbitrary bytes to the decoder. It must never panic;
// what it refuses must include everything encoding/json finds invalid; what
// it accepts must agree with encoding/json on every field's value, hold no
// key twice, and re-encode with AppendLine to a line that decodes to an equal
// Event and re-encodes to the same bytes. The seed corpus (run by plain `go
// test`) is every ledger line of the fold traces and compat ledgers, every
// full line per type and every strictness case.
func FuzzDecodeLine(f *testing.F) {
	for _, pattern := range []string{
		filepath.Join("fold", "testdata", "*.txt"),
		filepath.Join("testdata", "compat", "*.jsonl"),
	} {
		files, _ := filepath.Glob(pattern)
		for _, path := range files {
			data, err := os.ReadFile(path)
			if err != nil {
				f.Fatal(err)
			}
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				if l := sc.Bytes(); len(l) > 0 && l[0] == '{' {
					f.Add(append([]byte(nil), l...))
				}
			}
		}
	}
	for _, kvs := range fullLines {
		f.Add([]byte(line(kvs...)))
	}
	for _, c := range strictCases {
		f.Add([]byte(c.line))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		e, err := DecodeLine(in)
		if err != nil {
			return
		}
		if !json.Valid(in) {
			t.Fatalf("accepted a line encoding/json finds invalid: %q", in)
		}
		agreeWithJSON(t, in, &e)
		enc := AppendLine(nil, &e)
		if !json.Valid(enc) {
			t.Fatalf("re-encoded line is not valid JSON: %q", enc)
		}
		e2, err := DecodeLine(enc[:len(enc)-1])
		if err != nil {
			t.Fatalf("re-encoded line does not decode: %v\n%q\n%q", err, in, enc)
		}
		if !reflect.DeepEqual(e, e2) {
			t.Fatalf("round trip changes the event:\n%+v\n%+v", e, e2)
		}
		if enc2 := AppendLine(nil, &e2); !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding is not stable:\n%q\n%q", enc, enc2)
		}
	})
}

// agreeWithJSON decodes an accepted line with encoding/json and compares
// every key's value with the Event's field.
func agreeWithJSON(t *testing.T, in []byte, e *Event) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(in))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("accepted a line that is not an object: %q", in)
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		key := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			t.Fatal(err)
		}
		if seen[key] {
			t.Fatalf("accepted key %q twice: %q", key, in)
		}
		seen[key] = true
		if string(raw) == "null" {
			continue
		}
		switch key {
		case "evidence":
			var want []string
			if err := json.Unmarshal(raw, &want); err != nil || !reflect.DeepEqual(want, e.Evidence) {
				t.Fatalf("evidence %q decoded as %q (%v)", raw, e.Evidence, err)
			}
			continue
		case "rev":
			var want int
			if err := json.Unmarshal(raw, &want); err != nil || want != e.Rev {
				t.Fatalf("rev %s decoded as %d (%v)", raw, e.Rev, err)
			}
			continue
		case "meta", "schema", "target", "response":
			var compact bytes.Buffer
			if err := json.Compact(&compact, raw); err != nil {
				t.Fatal(err)
			}
			got := map[string]string{"meta": e.Meta, "schema": e.Schema, "target": e.Target, "response": e.Response}[key]
			if compact.String() != got {
				t.Fatalf("%s %s decoded as %s", key, raw, got)
			}
			continue
		}
		field, ok := stringFields[key]
		if !ok {
			t.Fatalf("accepted unknown key %q: %q", key, in)
		}
		got := field(e)
		var want string
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("key %q: %s is not a JSON string but was accepted", key, raw)
		}
		if want != got {
			t.Fatalf("key %q: encoding/json reads %q, the decoder %q", key, want, got)
		}
	}
}

// stringFields reads the Event field each string-valued key decodes into.
var stringFields = map[string]func(e *Event) string{
	"ts":   func(e *Event) string { return e.TS },
	"type": func(e *Event) string { return string(e.Type) },
	"id":   func(e *Event) string { return e.ID },
	"promise": func(e *Event) string {
		if e.Type.Creates() {
			return e.Text // on a creation, the text
		}
		return e.Subject // on every other event, the id concerned
	},
	"by":        func(e *Event) string { return e.By },
	"to":        func(e *Event) string { return e.To },
	"on":        func(e *Event) string { return e.On },
	"until":     func(e *Event) string { return e.Until },
	"task":      func(e *Event) string { return e.Task },
	"lapse":     func(e *Event) string { return string(e.Lapse) },
	"proposer":  func(e *Event) string { return e.Proposer },
	"schema_id": func(e *Event) string { return e.SchemaID },
	"reason":    func(e *Event) string { return e.Reason },
	"note":      func(e *Event) string { return e.Note },
	"phase":     func(e *Event) string { return string(e.Phase) },
	"as":        func(e *Event) string { return string(e.As) },
	"digest":    func(e *Event) string { return e.Digest },
	"observer":  func(e *Event) string { return e.Observer },
	"state":     func(e *Event) string { return e.State },
}
