package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/pinki-ledger/pinki"
)

// readBody reads a request body of at most limit bytes.
//
// Errors: CodeTooLarge over the limit; CodeInvalid when the body cannot be
// read (a client that stopped sending).
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, &pinki.Error{Code: pinki.CodeTooLarge, Field: "body",
			Message: fmt.Sprintf("request body is over the limit of %d bytes", limit)}
	}
	if err != nil {
		return nil, pinki.Invalid("body", "cannot read the request body: %v", err)
	}
	return body, nil
}

// decodeStrict decodes one JSON object from body into v, refusing unknown
// fields, duplicate keys at the top level, a second value after the first,
// and values of the wrong type. what names the body in messages ("a promise").
//
// Errors: CodeInvalid naming the field at fault when there is one.
func decodeStrict(body []byte, v any, what string) error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return pinki.Invalid("body", "the request body is empty: send %s as a JSON object", what)
	}
	if trimmed[0] != '{' {
		return pinki.Invalid("body", "the request body must be a JSON object (%s)", what)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err, what)
	}
	if _, err := dec.Token(); err != io.EOF {
		return pinki.Invalid("body", "the request body holds more than one JSON value")
	}
	if key := duplicateKey(body); key != "" {
		return pinki.Invalid(key, "the request body names %q twice", key)
	}
	return nil
}

// jsonError turns a decoding error into a one-line CodeInvalid error.
func jsonError(err error, what string) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return pinki.Invalid("body", "the request body is not valid JSON: %s (at byte %d)", syn.Error(), syn.Offset)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "body"
		}
		return pinki.Invalid(field, "%s must be %s, not %s", field, jsonType(typ.Type.Kind().String()), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return pinki.Invalid("body", "the request body is not valid JSON: it ends too early")
	}
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		name := strings.Trim(rest, `"`)
		e := pinki.Invalid(name, "unknown field %q in %s", name, what)
		if identityFields[name] {
			e = e.WithHint("the writer is the bearer token's seat: no body field names who writes")
		}
		return e
	}
	return pinki.Invalid("body", "the request body does not decode as %s: %s", what, strings.TrimPrefix(msg, "json: "))
}

// identityFields are the body fields a client might send to name who
// writes: an unknown one of these gets the hint that the token decides.
var identityFields = map[string]bool{"by": true, "observer": true, "as": true, "seat": true, "who": true}

func jsonType(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "int", "int64", "int32", "uint", "uint64":
		return "an integer"
	case "slice":
		return "an array"
	case "struct", "map":
		return "an object"
	case "bool":
		return "a boolean"
	case "ptr":
		return "an integer"
	}
	return "a " + kind
}

// duplicateKey returns a key the top-level object of body names twice, or "".
// body is known to be one valid JSON object.
func duplicateKey(body []byte) string {
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil {
		return ""
	}
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return ""
		}
		key, _ := t.(string)
		if seen[key] {
			return key
		}
		seen[key] = true
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return ""
		}
	}
	return ""
}
