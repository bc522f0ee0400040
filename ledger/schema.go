package ledger

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/pinki-ledger/pinki"
)

// schemaURL is the base URL a request's inline schema is compiled under. It
// is not fetched; nothing is.
const schemaURL = "urn:pinki:request-schema"

var english = message.NewPrinter(language.English)

// refusingLoader refuses every URL the compiler asks for: a request's schema
// must be self-contained (SPEC §1). The standard meta-schemas are embedded in
// the library and never reach a loader.
type refusingLoader struct{}

func (refusingLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("remote $ref %q refused: the schema must be self-contained", url)
}

// compiledSchemas caches compiled schemas by their canonical text, up to
// maxCompiled of them: a long-running server sees requests with any number of
// distinct schemas, and a compile is cheap next to unbounded memory. When the
// cache is full it starts over.
var compiledSchemas = struct {
	sync.Mutex
	m map[string]*jsonschema.Schema
}{m: map[string]*jsonschema.Schema{}}

const maxCompiled = 512

func cachedSchema(canonical string) *jsonschema.Schema {
	compiledSchemas.Lock()
	defer compiledSchemas.Unlock()
	return compiledSchemas.m[canonical]
}

func cacheSchema(canonical string, sch *jsonschema.Schema) {
	compiledSchemas.Lock()
	defer compiledSchemas.Unlock()
	if len(compiledSchemas.m) >= maxCompiled {
		clear(compiledSchemas.m)
	}
	compiledSchemas.m[canonical] = sch
}

// CompileSchema compiles an inline JSON Schema 2020-12. It refuses schemas over
// 64 KiB, schemas that are not JSON objects (the boolean schemas too: a
// request's schema describes an answer), schemas naming another
// draft in $schema, and any $ref that leaves the document.
//
// Errors: CodeTooLarge over 64 KiB; CodeInvalid with field "schema" for
// every other refusal, naming what the compiler refused.
func CompileSchema(canonical string) (*jsonschema.Schema, error) {
	if sch := cachedSchema(canonical); sch != nil {
		return sch, nil
	}
	if len(canonical) > pinki.MaxSchema {
		return nil, &pinki.Error{Code: pinki.CodeTooLarge, Field: "schema",
			Message: fmt.Sprintf("schema is %d bytes, over the limit of %d", len(canonical), pinki.MaxSchema)}
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(canonical))
	if err != nil {
		return nil, pinki.Invalid("schema", "schema is not valid JSON: %v", err)
	}
	switch doc := doc.(type) {
	case map[string]any:
		if v, ok := doc["$schema"].(string); ok && strings.TrimSuffix(v, "#") != "https://json-schema.org/draft/2020-12/schema" {
			return nil, pinki.Invalid("schema", "schema declares $schema %q; pinki takes JSON Schema 2020-12 only", v)
		}
	default:
		return nil, pinki.Invalid("schema", "a request's schema is a JSON object, not %s", jsonKind([]byte(canonical))).
			WithHint(`such as {"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refusingLoader{})
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, pinki.Invalid("schema", "schema refused: %v", err)
	}
	sch, err := c.Compile(schemaURL)
	if err != nil {
		msg := err.Error()
		if strings.Contains(msg, "refused: the schema must be self-contained") {
			return nil, pinki.Invalid("schema", "schema has a remote $ref: %s", oneLine(msg)).
				WithHint("inline every definition under $defs and refer to it as #/$defs/NAME")
		}
		return nil, pinki.Invalid("schema", "schema does not compile as JSON Schema 2020-12: %s", oneLine(msg))
	}
	cacheSchema(canonical, sch)
	return sch, nil
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// validateResponse validates a compact JSON response against a schema and
// returns every violation with its instance path, sorted.
func validateResponse(sch *jsonschema.Schema, response string) []string {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(response)))
	if err != nil {
		return []string{"(root): not valid JSON: " + err.Error()}
	}
	err = sch.Validate(inst)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []string{"(root): " + err.Error()}
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			path := "/" + strings.Join(e.InstanceLocation, "/")
			out = append(out, fmt.Sprintf("%s: %s", path, e.ErrorKind.LocalizedString(english)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(out)
	return dedupe(out)
}

func dedupe(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}
