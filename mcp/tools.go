package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

// binding is the service and the identity a server acts as.
type binding struct {
	api ledger.API
	who pinki.Identity
}

// toolSpec is one tool: its definition, the arguments that would name the
// writer (refused unless they name the bound seat), its compiled input schema
// and its call.
type toolSpec struct {
	tool     *sdk.Tool
	identity []string
	input    inputSchema
	// call decodes the validated arguments, calls the service and returns
	// the structured result and its text.
	call func(ctx context.Context, b binding, args []byte) (any, string, error)
}

// seatArg names whose view a read is (ledger.Query.Seat); like the writer
// arguments each tool names in define, the bound seat fills it.
const seatArg = "seat"

var (
	reads  = &sdk.ToolAnnotations{ReadOnlyHint: true}
	falseP = false
	// Writes append to the ledger, never destroy; an identical retry is an
	// idempotent success.
	writes = &sdk.ToolAnnotations{IdempotentHint: true, DestructiveHint: &falseP}
)

// define builds a toolSpec whose arguments decode into In and whose result
// Out is the structured content. writer names the argument that would name
// the writer in the service's input (by, observer, …), "" when none; text
// renders the text content, nil meaning the compact JSON of the result.
func define[In, Out any](name, desc string, ann *sdk.ToolAnnotations, writer string, in, out js,
	fn func(ctx context.Context, b binding, in In) (Out, error), text func(Out) string) toolSpec {
	identity := []string{seatArg}
	if writer != "" {
		identity = append(identity, writer)
	}
	input := compile(name, in)
	return toolSpec{
		tool:     &sdk.Tool{Name: name, Description: desc, Annotations: ann, InputSchema: input.raw, OutputSchema: out},
		identity: identity,
		input:    input,
		call: func(ctx context.Context, b binding, args []byte) (any, string, error) {
			var v In
			if err := json.Unmarshal(args, &v); err != nil {
				// The schema admitted it, so this is a mismatch between
				// schema and struct: a bug.
				return nil, "", pinki.Errorf(pinki.CodeInternal, "decoding arguments of %s: %v", name, err)
			}
			o, err := fn(ctx, b, v)
			if err != nil {
				return nil, "", err
			}
			if text != nil {
				return o, text(o), nil
			}
			raw, err := json.Marshal(o)
			if err != nil {
				return nil, "", pinki.Errorf(pinki.CodeInternal, "encoding the result of %s: %v", name, err)
			}
			return json.RawMessage(raw), string(raw), nil
		},
	}
}

// handler adapts a toolSpec to the SDK: identity arguments, schema
// validation, the call, and refusals as tool errors.
func (b binding) handler(t toolSpec) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		args, err := b.arguments(t, req.Params.Arguments)
		if err != nil {
			return refusal(err), nil
		}
		out, text, err := t.call(ctx, b, args)
		if err != nil {
			return refusal(err), nil
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, StructuredContent: out}, nil
	}
}

// arguments checks raw arguments and returns them ready to decode: an
// argument naming the writer is dropped when it names the bound seat and
// refused otherwise; then the rest must satisfy the input schema.
//
// Errors: CodeForbidden for an identity argument naming another seat;
// CodeInvalid listing every schema violation.
func (b binding) arguments(t toolSpec, raw json.RawMessage) ([]byte, error) {
	if trimmed := bytes.TrimSpace(raw); len(trimmed) == 0 || string(trimmed) == "null" {
		raw = json.RawMessage("{}")
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil {
		for _, k := range t.identity {
			v, ok := obj[k]
			if !ok {
				continue
			}
			var s string
			if json.Unmarshal(v, &s) != nil || strings.TrimSpace(s) != b.who.Seat {
				return nil, (&pinki.Error{Code: pinki.CodeForbidden, Field: k,
					Message: fmt.Sprintf("this server acts as seat %q only, so %s cannot be %s", b.who.Seat, k, v)}).
					WithHint("leave %s out: the server writes and reads as its own seat", k)
			}
			delete(obj, k)
		}
		raw, _ = json.Marshal(obj) // a map of raw JSON values always encodes
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, invalidArguments(t.tool.Name, []string{"/: not valid JSON: " + err.Error()})
	}
	if v := t.input.violations(doc); len(v) > 0 {
		return nil, invalidArguments(t.tool.Name, v)
	}
	return raw, nil
}

// refusal renders an error as a tool error: text "<code>: <message>", then
// "hint: …" and one "- …" line per detail; structured content is the
// *pinki.Error itself ({code, message, field, hint, details}).
func refusal(err error) *sdk.CallToolResult {
	pe := pinki.AsError(err)
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s", pe.Code, pe.Message)
	if pe.Hint != "" {
		fmt.Fprintf(&b, "\nhint: %s", pe.Hint)
	}
	for _, d := range pe.Details {
		fmt.Fprintf(&b, "\n- %s", d)
	}
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: b.String()}}, StructuredContent: pe}
}

// Tool inputs. Field names are the argument names; the schemas in tools
// below are the contract, these structs only decode what they admitted.
type (
	promiseArgs struct {
		Promise string          `json:"promise"`
		To      string          `json:"to"`
		Until   string          `json:"until"`
		On      string          `json:"on"`
		ID      string          `json:"id"`
		Meta    json.RawMessage `json:"meta"`
	}
	requestArgs struct {
		Promise  string          `json:"promise"`
		By       string          `json:"by"`
		Until    string          `json:"until"`
		Schema   json.RawMessage `json:"schema"`
		SchemaID string          `json:"schema_id"`
		Lapse    pinki.Lapse     `json:"lapse"`
		ID       string          `json:"id"`
		Meta     json.RawMessage `json:"meta"`
	}
	proposeArgs struct {
		Terms string          `json:"terms"`
		With  string          `json:"with"`
		Role  string          `json:"role"`
		Until string          `json:"until"`
		ID    string          `json:"id"`
		Meta  json.RawMessage `json:"meta"`
	}
	acceptArgs struct {
		ID   string          `json:"id"`
		Rev  int             `json:"rev"`
		Meta json.RawMessage `json:"meta"`
	}
	amendArgs struct {
		ID     string          `json:"id"`
		Until  string          `json:"until"`
		Reason string          `json:"reason"`
		Rev    *int            `json:"rev"`
		Meta   json.RawMessage `json:"meta"`
	}
	progressArgs struct {
		ID    string          `json:"id"`
		Phase pinki.Phase     `json:"phase"`
		Note  string          `json:"note"`
		Rev   *int            `json:"rev"`
		Meta  json.RawMessage `json:"meta"`
	}
	resolveArgs struct {
		ID       string          `json:"id"`
		As       pinki.Outcome   `json:"as"`
		Evidence []string        `json:"evidence"`
		Reason   string          `json:"reason"`
		Response json.RawMessage `json:"response"`
		SchemaID string          `json:"schema_id"`
		Digest   string          `json:"digest"`
		Rev      *int            `json:"rev"`
		Meta     json.RawMessage `json:"meta"`
	}
	assessArgs struct {
		ID    string          `json:"id"`
		State string          `json:"state"`
		Note  string          `json:"note"`
		Rev   *int            `json:"rev"`
		Meta  json.RawMessage `json:"meta"`
	}
	listArgs struct {
		Scope    string       `json:"scope"`
		States   []fold.State `json:"states"`
		Kind     string       `json:"kind"`
		Debtor   string       `json:"debtor"`
		Creditor string       `json:"creditor"`
		Limit    int          `json:"limit"`
		After    int64        `json:"after"`
	}
	showArgs struct {
		ID string `json:"id"`
	}
	noArgs struct{}
)

var kinds = map[string]fold.Kind{"promise": fold.KindPromise, "request": fold.KindRequest, "agreement": fold.KindAgreement}

var scopes = map[string]ledger.Scope{"": ledger.ScopeOpen, "open": ledger.ScopeOpen, "overdue": ledger.ScopeOverdue, "all": ledger.ScopeAll}

var stateNames = func() []string {
	out := make([]string, len(fold.States))
	for i, s := range fold.States {
		out[i] = string(s)
	}
	return out
}()

// DefaultListPage and MaxListPage are the list tool's page sizes, when the
// model gives no limit and at most: a model pays for every item it reads.
const (
	DefaultListPage = 50
	MaxListPage     = 200
)

// briefing is the prime tool's structured content: the briefing's text and
// what frames it, not the item lists the text already shows, so that a host
// receives about what the text is.
type briefing struct {
	Seat    string `json:"seat"`
	Now     string `json:"now"`
	Omitted int    `json:"omitted"`
	Text    string `json:"text"`
}

// tools is every tool the server offers.
var tools = []toolSpec{
	define("make_promise",
		"Record a promise your seat makes: you owe `promise` to seat `to` by `until`; owed at once, or once obligation `on` is satisfied.",
		writes, "by",
		object(js{
			"promise": str("What you promise."),
			"to":      str("Seat you owe it to (may be your own)."),
			"until":   pUntil,
			"on":      str("Id of an obligation that must be satisfied first."),
			"id":      pNewID,
			"meta":    pMeta,
		}, "promise", "to", "until"),
		receipt,
		func(ctx context.Context, b binding, a promiseArgs) (ledger.Receipt, error) {
			return b.api.Create(ctx, b.who, ledger.CreateInput{Kind: fold.KindPromise, ID: a.ID, Text: a.Promise,
				By: b.who.Seat, To: a.To, On: a.On, Until: a.Until, Meta: a.Meta})
		}, nil),

	define("make_request",
		"Ask seat `by` for `promise` by `until`; `by` then owes you the answer. With schema + schema_id the answer must be JSON matching it. The answer repeats the returned digest.",
		writes, "to",
		object(js{
			"promise":   str("What you ask for."),
			"by":        str("Seat that owes the answer."),
			"until":     pUntil,
			"lapse":     enum("expire: unanswered at the deadline, it ends expired (default overdue: stays open).", "overdue", "expire"),
			"schema":    js{"type": "object", "description": "Self-contained JSON Schema 2020-12 for the answer."},
			"schema_id": str("Label the answer repeats, such as stock.v1."),
			"id":        pNewID,
			"meta":      pMeta,
		}, "promise", "by", "until"),
		receipt,
		func(ctx context.Context, b binding, a requestArgs) (ledger.Receipt, error) {
			return b.api.Create(ctx, b.who, ledger.CreateInput{Kind: fold.KindRequest, ID: a.ID, Text: a.Promise,
				By: a.By, To: b.who.Seat, Until: a.Until, Lapse: a.Lapse, Schema: a.Schema, SchemaID: a.SchemaID, Meta: a.Meta})
		}, nil),

	define("propose",
		"Propose an agreement with seat `with`. It is owed only once both parties accept its current rev.",
		writes, "proposer",
		object(js{
			"terms": str("What would be owed."),
			"with":  str("The other party's seat."),
			"role":  enum("debtor: you would owe the terms; creditor: you would be owed them.", "debtor", "creditor"),
			"until": str("Deadline of the terms; acceptances must come before it. RFC 3339 with zone or a duration (+3d)."),
			"id":    pNewID,
			"meta":  pMeta,
		}, "terms", "with", "role", "until"),
		receipt,
		func(ctx context.Context, b binding, a proposeArgs) (ledger.Receipt, error) {
			in := ledger.CreateInput{Kind: fold.KindAgreement, ID: a.ID, Text: a.Terms, By: b.who.Seat, To: a.With,
				Until: a.Until, Meta: a.Meta}
			if a.Role == "creditor" {
				in.By, in.To = a.With, b.who.Seat
			}
			return b.api.Create(ctx, b.who, in)
		}, nil),

	define("accept",
		"Accept an agreement's terms at the rev you saw (show, list, prime give it). Stale rev: nothing is written.",
		writes, "by",
		object(js{"id": pID, "rev": integer("Rev of the terms you accept.", 1), "meta": pMeta}, "id", "rev"),
		receipt,
		func(ctx context.Context, b binding, a acceptArgs) (ledger.Receipt, error) {
			return b.api.Accept(ctx, b.who, ledger.AcceptInput{ID: a.ID, Rev: a.Rev, Meta: a.Meta})
		}, nil),

	define("amend",
		"Move the deadline of an open obligation you owe (an agreement: either party, voiding acceptances). History is kept.",
		writes, "by",
		object(js{"id": pID, "until": pUntil, "reason": str("Why."), "rev": pRev, "meta": pMeta}, "id", "until"),
		receipt,
		func(ctx context.Context, b binding, a amendArgs) (ledger.Receipt, error) {
			return b.api.Amend(ctx, b.who, ledger.AmendInput{ID: a.ID, Until: a.Until, Reason: a.Reason, Rev: a.Rev, Meta: a.Meta})
		}, nil),

	define("report_progress",
		"Report your phase on an obligation you owe that is owed now.",
		writes, "by",
		object(js{
			"id":    pID,
			"phase": enum("pending_human: waiting for a person.", "acknowledged", "in_progress", "blocked", "pending_human"),
			"note":  str("Short note."),
			"rev":   pRev,
			"meta":  pMeta,
		}, "id", "phase"),
		receipt,
		func(ctx context.Context, b binding, a progressArgs) (ledger.Receipt, error) {
			return b.api.Progress(ctx, b.who, ledger.ProgressInput{ID: a.ID, Phase: a.Phase, Note: a.Note, Rev: a.Rev, Meta: a.Meta})
		}, nil),

	define("resolve",
		"End an obligation. Debtor: satisfied (evidence; a request: response + digest, + schema_id if typed), failed or cancelled (reason). Creditor: released. Declining a proposal: cancelled or released. The first resolve wins.",
		writes, "by",
		object(js{
			"id":        pID,
			"as":        enum("Outcome.", "satisfied", "failed", "cancelled", "released"),
			"evidence":  js{"type": "array", "items": tString, "minItems": 1, "description": "What was delivered: URL, path, commit, artifact id."},
			"reason":    str("Why (failed, cancelled, released)."),
			"response":  js{"description": "A request's answer: any JSON."},
			"schema_id": str("The request's schema_id."),
			"digest":    str("The request's digest."),
			"rev":       pRev,
			"meta":      pMeta,
		}, "id", "as"),
		receipt,
		func(ctx context.Context, b binding, a resolveArgs) (ledger.Receipt, error) {
			return b.api.Resolve(ctx, b.who, ledger.ResolveInput{ID: a.ID, As: a.As, Evidence: a.Evidence, Reason: a.Reason,
				Response: a.Response, SchemaID: a.SchemaID, Digest: a.Digest, Rev: a.Rev, Meta: a.Meta})
		}, nil),

	define("assess",
		"Record your judgment of an obligation (violated, kept, disputed…). Changes no state.",
		writes, "observer",
		object(js{"id": pID, "state": str("One word."), "note": str("Why."), "rev": pRev, "meta": pMeta}, "id", "state"),
		receipt,
		func(ctx context.Context, b binding, a assessArgs) (ledger.Receipt, error) {
			return b.api.Assess(ctx, b.who, ledger.AssessInput{ID: a.ID, State: a.State, Note: a.Note, Rev: a.Rev, Meta: a.Meta})
		}, nil),

	define("list",
		"List obligations in ledger order, with state, until (deadline) and rev: open ones of your seat unless debtor/creditor say whose. 50 a page; pass next as after for more.",
		reads, "",
		object(js{
			"scope":    enum("Default: open.", "open", "overdue", "all"),
			"states":   js{"type": "array", "items": js{"enum": stateNames}, "description": "Only these states."},
			"kind":     enum("Only this kind.", "promise", "request", "agreement"),
			"debtor":   str("Only what this seat owes."),
			"creditor": str("Only what is owed to this seat."),
			"limit":    js{"type": "integer", "minimum": 1, "maximum": MaxListPage, "description": "Page size (default 50)."},
			"after":    integer("Cursor: a page's next.", 0),
		}),
		result(js{"items": tArray, "next": tInt, "total": tInt}),
		func(ctx context.Context, b binding, a listArgs) (ledger.Page, error) {
			f := ledger.Filter{Scope: scopes[a.Scope], States: a.States, Kind: kinds[a.Kind],
				By: a.Debtor, To: a.Creditor, Limit: a.Limit, After: a.After}
			if f.Limit == 0 {
				f.Limit = DefaultListPage
			}
			if f.By == "" && f.To == "" {
				f.Party = b.who.Seat
			}
			return b.api.List(ctx, b.who, f)
		}, nil),

	define("show",
		"One obligation: record, state, rev, digest, schema, resolution and history.",
		reads, "",
		object(js{"id": pID}, "id"),
		result(js{"id": tString, "promise": tString, "by": tString, "to": tString, "until": tString, "state": tString,
			"rev": tInt, "digest": tString, "resolution": js{"type": []string{"object", "null"}}}),
		func(ctx context.Context, b binding, a showArgs) (ledger.Detail, error) {
			return b.api.Get(ctx, b.who, ledger.Query{ID: a.ID})
		}, nil),

	define("inbox",
		"Your seat's counters: action_required (you owe now), awaiting_peer, awaiting_human, overdue, failed (your requests), proposals (awaiting you).",
		reads, "",
		object(js{}),
		result(js{"action_required": tInt, "awaiting_peer": tInt, "awaiting_human": tInt, "overdue": tInt, "failed": tInt, "proposals": tInt}),
		func(ctx context.Context, b binding, _ noArgs) (ledger.Inbox, error) {
			return b.api.Inbox(ctx, b.who, ledger.Query{})
		}, nil),

	define("prime",
		"Your seat's briefing: what it owes (overdue first), requests it must answer, proposals awaiting it or the other party, what it is owed.",
		reads, "",
		object(js{}),
		result(js{"seat": tString, "now": tString, "omitted": tInt, "text": tString}),
		func(ctx context.Context, b binding, _ noArgs) (briefing, error) {
			br, err := b.api.Prime(ctx, b.who, ledger.Query{})
			return briefing{Seat: br.Seat, Now: br.Now, Omitted: br.Omitted, Text: br.Text}, err
		}, func(br briefing) string { return br.Text }),

	define("agreements",
		"Your seat's agreements: current, pending (proposed), overdue, ended.",
		reads, "",
		object(js{}),
		result(js{"current": tArray, "pending": tArray, "overdue": tArray, "ended": tArray}),
		func(ctx context.Context, b binding, _ noArgs) (ledger.AgreementSet, error) {
			return b.api.Agreements(ctx, b.who, ledger.Query{})
		}, nil),
}
