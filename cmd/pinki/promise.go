package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

const promiseUsage = "pinki promise TEXT --by WHO --to WHO --until ISO"

// promiseForms is how a promise may be given, for messages.
const promiseForms = "give the promise text as an argument (" + promiseUsage + "), or pipe one record as JSON on stdin"

// recordKeys is the stdin record's shape, for messages.
const recordKeys = "expected an object with `promise`, `by`, `to`, `until`, and optionally `id`, `on`, `task`, `meta`, `lapse`: no other keys"

func (a *app) promiseCommand() *cobra.Command {
	c := &creation{kind: fold.KindPromise, verb: "promise", usage: promiseUsage}
	var bind todoBinding
	cmd := &cobra.Command{
		Use:   "promise [TEXT] --by DEBTOR --to CREDITOR --until DEADLINE",
		Short: "Declare a promise (or read one JSON record from stdin)",
		Long: `Declare a promise: the debtor (--by) owes the creditor (--to) what TEXT says,
by --until. Without TEXT, one JSON record is read from stdin, with the keys
promise, by, to, until and optionally id, on, task, meta, lapse.

--bind-todo FILE --item TEXT binds the new promise to that todo item in the
same append (see pinki bind): only a verifier seeing the item completed
then satisfies it.

Prints ID<TAB>STATE.`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var in ledger.CreateInput
			var err error
			if len(args) == 1 {
				in, err = a.input(c, args[0])
			} else {
				in, err = a.stdinRecord(cmd)
			}
			if err != nil {
				return err
			}
			if in.Target, err = bind.target(a); err != nil {
				return err
			}
			return a.create(in, false)
		},
	}
	c.register(cmd, "the debtor: the seat that owes (default with --as: that seat)", "the creditor: the seat owed")
	bind.register(cmd)
	return cmd
}

// stdinRecord reads the one promise record on stdin, strictly: one object,
// known keys only, the required ones present, nothing after it. Flags that
// would say the same thing twice are refused.
//
// Errors: CodeInvalid.
func (a *app) stdinRecord(cmd *cobra.Command) (ledger.CreateInput, error) {
	var in ledger.CreateInput
	for _, name := range []string{"by", "to", "until", "id", "on", "task", "meta", "lapse"} {
		if cmd.Flags().Changed(name) {
			return in, usageError("--%s is not taken with a record on stdin: put `%s` in the record, or give the promise text as an argument", name, name)
		}
	}
	if a.stdinIsTerminal() {
		return in, usageError("no promise given: %s", promiseForms)
	}
	data, err := io.ReadAll(a.stdin)
	if err != nil {
		return in, pinki.Errorf(pinki.CodeUnavailable, "cannot read stdin: %v", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return in, usageError("nothing on stdin: %s", promiseForms)
	}
	var rec struct {
		Promise *string         `json:"promise"`
		By      *string         `json:"by"`
		To      *string         `json:"to"`
		Until   *string         `json:"until"`
		ID      *string         `json:"id"`
		On      *string         `json:"on"`
		Task    *string         `json:"task"`
		Meta    json.RawMessage `json:"meta"`
		Lapse   *string         `json:"lapse"`
	}
	notRecord := func(why string) error {
		return (&pinki.Error{Code: pinki.CodeInvalid, Message: "the record on stdin is not a promise: " + why}).WithHint("%s", recordKeys)
	}
	if trimmed := bytes.TrimSpace(data); trimmed[0] != '{' {
		return in, notRecord("not a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rec); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return in, notRecord("`" + te.Field + "` must be " + kindOf(te.Type.Kind().String()) + ", not " + kindOf(te.Value))
		}
		return in, notRecord(strings.TrimPrefix(err.Error(), "json: "))
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return in, notRecord("more than one JSON value")
	}
	for _, req := range []struct {
		key string
		v   *string
	}{{"promise", rec.Promise}, {"by", rec.By}, {"to", rec.To}, {"until", rec.Until}} {
		if req.v == nil {
			return in, notRecord("missing key `" + req.key + "`")
		}
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	if string(bytes.TrimSpace(rec.Meta)) == "null" {
		rec.Meta = nil
	}
	return ledger.CreateInput{Kind: fold.KindPromise, ID: str(rec.ID), Text: *rec.Promise, By: *rec.By, To: *rec.To,
		On: str(rec.On), Until: *rec.Until, Task: str(rec.Task), Lapse: pinki.Lapse(str(rec.Lapse)), Meta: rec.Meta}, nil
}

// kindOf names a JSON (or Go) kind with its article, for messages.
func kindOf(k string) string {
	switch k {
	case "ptr", "string":
		return "a string"
	case "array", "slice":
		return "an array"
	case "object", "map", "struct":
		return "an object"
	case "bool":
		return "a boolean"
	}
	return "a " + k
}
