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

// compiledSchemas caches compiled schemas by their canonical text.
var compiledSchemas sync.Map // string -> *jsonschema.Schema

// CompileSchema compiles an inline JSON Schema 2020-12. It refuses schemas over
// 64 KiB, schemas that are not objects or booleans, schemas naming another
// draft in $schema, and any $ref that leaves the document.
func CompileSchema(canonical string) (*jsonschema.Schema, error) {
	if v, ok := compiledSchemas.Load(canonical); ok {
		return v.(*jsonschema.Schema), nil
	}
	if len(canonical) > pinki.MaxSchema {
		return nil, &pinki.Error{Code: pinki.CodeTooLarge, Field: "schema",
			Message: fmt.Sprintf("schema is %d bytes, over the limit of %d", len(canonical), pinki.MaxSchema)}
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(canonical))
	if err != nil {
		return nil, pinki.Invalid("schema", "schema is not valid JSON: %v", err)
	}
	if m, ok := doc.(map[string]any); ok {
		if v, ok := m["$schema"].(string); ok && strings.TrimSuffix(v, "#") != "https://json-schema.org/draft/2020-12/schema" {
			return nil, pinki.Invalid("schema", "schema declares $schema %q; pinki takes JSON Schema 2020-12 only", v)
		}
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
	compiledSchemas.Store(canonical, sch)
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
