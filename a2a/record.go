package a2a

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

// Inbound is the promise record as a SendMessage carries it, under
// MetadataKey in message.metadata: the extension's record (Record) plus two
// keys a writer may add, lapse and resolve. Without resolve it declares the
// promise; with resolve it resolves the promise id names (declared earlier).
type Inbound struct {
	ID      string          `json:"id"`
	Promise string          `json:"promise"`
	By      string          `json:"by"`
	To      string          `json:"to"`
	On      string          `json:"on"`
	Until   string          `json:"until"`
	Task    string          `json:"task"`
	Lapse   pinki.Lapse     `json:"lapse"`
	Meta    json.RawMessage `json:"meta"`
	Resolve *Resolution     `json:"resolve"`
}

// Resolution is the resolve key of an inbound record: how the promise ends.
// satisfied needs evidence; failed and cancelled need a reason; released
// (the creditor's act) may give one. Meta, when set, is the resolve event's
// meta.
type Resolution struct {
	As       pinki.Outcome   `json:"as"`
	Evidence []string        `json:"evidence"`
	Reason   string          `json:"reason"`
	Meta     json.RawMessage `json:"meta"`
}

// ParseInbound decodes an inbound record strictly: a JSON object with only
// the keys above, each of its JSON type.
//
// Errors: CodeInvalid naming the key (field "record" when the value is not
// an object).
func ParseInbound(v any) (*Inbound, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, pinki.Invalid("record", "the promise record is not JSON: %v", err)
	}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, pinki.Invalid("record", "the promise record under %s must be a JSON object", MetadataKey)
	}
	var in Inbound
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		msg := err.Error()
		field := "record"
		if _, after, ok := strings.Cut(msg, "unknown field "); ok {
			field = strings.Trim(after, `"`)
			return nil, pinki.Invalid(field, "the promise record has an unknown key %q", field).
				WithHint("keys: id, promise, by, to, on, until, task, lapse, meta, resolve {as, evidence, reason, meta}")
		}
		if te, ok := err.(*json.UnmarshalTypeError); ok && te.Field != "" {
			field = te.Field
			return nil, pinki.Invalid(field, "the promise record's %s must be a JSON %s, not %s", field, jsonType(te.Type.Kind().String()), te.Value)
		}
		return nil, pinki.Invalid(field, "the promise record is malformed: %s", msg)
	}
	return &in, nil
}

func jsonType(kind string) string {
	switch kind {
	case "string":
		return "string"
	case "slice":
		return "array"
	case "ptr", "struct", "map":
		return "object"
	}
	return kind
}

// create is the declaration an inbound record asks for.
func (in *Inbound) create() ledger.CreateInput {
	return ledger.CreateInput{Kind: fold.KindPromise, ID: in.ID, Text: in.Promise, By: in.By, To: in.To,
		On: in.On, Until: in.Until, Task: in.Task, Lapse: in.Lapse, Meta: in.Meta}
}

// resolve is the resolution an inbound record asks for.
func (in *Inbound) resolve() ledger.ResolveInput {
	r := in.Resolve
	return ledger.ResolveInput{ID: in.ID, As: r.As, Evidence: r.Evidence, Reason: r.Reason, Meta: r.Meta}
}

// matches checks that the declaration keys the record gives (any of
// promise, by, to, on, until, task) name the obligation d as recorded; until
// may be the declared deadline or the current horizon.
//
// Errors: CodeInvalid naming the first key that differs.
func (in *Inbound) matches(d ledger.Detail) error {
	differs := func(key, got, want string) error {
		return pinki.Invalid(key, "the record's %s %q is not %q, as %s records it: a resolve names the promise as declared", key, got, want, d.ID)
	}
	for _, f := range []struct{ key, got, want string }{
		{"promise", in.Promise, d.Promise}, {"by", in.By, d.By}, {"to", in.To, d.To},
		{"on", in.On, d.On}, {"task", in.Task, d.Task},
	} {
		if strings.TrimSpace(f.got) != "" && strings.TrimSpace(f.got) != f.want {
			return differs(f.key, f.got, f.want)
		}
	}
	if u := strings.TrimSpace(in.Until); u != "" {
		t, err := pinki.ParseTime(u)
		if err != nil {
			return differs("until", u, d.Until)
		}
		if s := pinki.FormatTime(t); s != d.Until && s != d.OriginalUntil {
			return differs("until", u, d.Until)
		}
	}
	if in.Lapse != "" && in.Lapse != d.Lapse && !(in.Lapse == pinki.LapseOverdue && d.Lapse == "") {
		return differs("lapse", string(in.Lapse), string(d.Lapse))
	}
	return nil
}

// declares reports whether the record carries a declaration (its text).
func (in *Inbound) declares() bool { return strings.TrimSpace(in.Promise) != "" }

func (in *Inbound) check() error {
	if in.Resolve == nil && !in.declares() {
		return pinki.Invalid("promise", "the promise record has no promise text and no resolve: nothing to declare or resolve")
	}
	if in.Resolve != nil && strings.TrimSpace(in.ID) == "" {
		return pinki.Invalid("id", "a resolve names the promise it ends: give its id")
	}
	return nil
}
