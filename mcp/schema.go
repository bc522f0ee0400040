package mcp

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/pinki-ledger/pinki"
)

// js is a JSON Schema (or a part of one) as a Go value. Schemas are written
// here by hand, not derived by reflection, so that every word a model reads
// in tools/list is chosen, and the list stays small.
type js = map[string]any

func str(desc string) js { return js{"type": "string", "description": desc} }

func integer(desc string, min int) js {
	return js{"type": "integer", "minimum": min, "description": desc}
}

func enum(desc string, values ...string) js {
	return js{"type": "string", "enum": values, "description": desc}
}

// object is a closed object schema: unknown arguments are refused.
func object(props js, required ...string) js {
	s := js{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// result is an output schema: the result's top-level properties, typed. It
// requires none of them, so that a refusal's structured content ({code,
// message, …}) also passes a client that validates structuredContent
// against the output schema whatever isError says.
func result(props js) js { return js{"type": "object", "properties": props} }

// Fragments shared by several tools. The words are few on purpose: every
// session pays for tools/list (see TestContextCost).
var (
	tString = js{"type": "string"}
	tInt    = js{"type": "integer"}
	tBool   = js{"type": "boolean"}
	tArray  = js{"type": "array"}

	pID    = str("Obligation id (pnk_…).")
	pNewID = str("Your own stable id (1-128 of A-Za-z0-9._:/@-), else one is minted.")
	pUntil = str("Deadline: RFC 3339 with zone (2026-09-01T17:00:00Z) or a duration from now (+2h, 3d).")
	pRev   = integer("The rev you saw; if it changed since, nothing is written.", 1)
	pMeta  = js{"type": "object", "description": "Opaque JSON, stored, never read."}

	// receipt is what every write returns.
	receipt = result(js{"id": tString, "rev": tInt, "state": tString, "digest": tString, "idempotent": tBool})
)

// inputSchema is a tool's input schema, compiled for validating arguments.
type inputSchema struct {
	raw      json.RawMessage
	compiled *jsonschema.Schema
}

// compile marshals and compiles a hand-written schema. It panics: the
// schemas are constants of this package, so a failure is a bug caught by any
// test.
func compile(name string, s js) inputSchema {
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("mcp: schema of %s: %v", name, err))
	}
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		panic(fmt.Sprintf("mcp: schema of %s: %v", name, err))
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "urn:pinki:mcp:" + name
	if err := c.AddResource(url, doc); err != nil {
		panic(fmt.Sprintf("mcp: schema of %s: %v", name, err))
	}
	compiled, err := c.Compile(url)
	if err != nil {
		panic(fmt.Sprintf("mcp: schema of %s: %v", name, err))
	}
	return inputSchema{raw: raw, compiled: compiled}
}

var english = message.NewPrinter(language.English)

// violations validates args (a decoded JSON value) and returns one line per
// violation, "/path: what is wrong", sorted. A missing or unknown property is
// reported at its own path.
func (s inputSchema) violations(args any) []string {
	err := s.compiled.Validate(args)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []string{"/: " + err.Error()}
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		at := "/" + strings.Join(e.InstanceLocation, "/")
		switch k := e.ErrorKind.(type) {
		case *kind.Required:
			for _, p := range k.Missing {
				out = append(out, strings.TrimSuffix(at, "/")+"/"+p+": required")
			}
		case *kind.AdditionalProperties:
			for _, p := range k.Properties {
				out = append(out, strings.TrimSuffix(at, "/")+"/"+p+": unknown argument")
			}
		default:
			out = append(out, at+": "+e.ErrorKind.LocalizedString(english))
		}
	}
	walk(ve)
	sort.Strings(out)
	return out
}

// invalidArguments is the refusal for arguments that break the tool's input
// schema, with one line per violation in Details (the message names a
// single violation itself, and counts several).
func invalidArguments(tool string, violations []string) *pinki.Error {
	msg := fmt.Sprintf("the arguments break the input schema of %s in %d places", tool, len(violations))
	if len(violations) == 1 {
		msg = fmt.Sprintf("the arguments break the input schema of %s: %s", tool, violations[0])
	}
	return &pinki.Error{Code: pinki.CodeInvalid, Field: "arguments", Message: msg,
		Hint: "tools/list gives each tool's input schema", Details: violations}
}
