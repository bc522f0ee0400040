package ledger_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/jsonl"
	"github.com/pinki-ledger/pinki/ledger"
)

// FuzzServiceRoundTrip drives the service with writes whose free-form fields
// come from the fuzzer, and checks the property every surface rests on: what
// the service accepted, a fresh reader of the ledger understands, and folds
// to the same answers. A write the service accepts and the ledger cannot read
// back would be acknowledged and then lost.
func FuzzServiceRoundTrip(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8}, "write the report", "alice", `{"k":"v"}`, `{"type":"object"}`, `{"n":1}`)
	f.Add([]byte{1, 8, 7, 3}, "ß\u2028\x7f", "desk/ops", `{"a":[1,2.5e10,-0,"\u0000"]}`, `{"type":"integer"}`, `4`)
	f.Add([]byte{2, 5, 5, 6, 4}, " ", "https://agents.example.org/a", `{"x":1e400}`, `true`, `"s"`)
	f.Fuzz(func(t *testing.T, ops []byte, text, seat, meta, schema, response string) {
		if len(ops) > 24 {
			ops = ops[:24]
		}
		ctx := context.Background()
		path := filepath.Join(t.TempDir(), "ledger.jsonl")
		now := time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)
		clock := func() time.Time { return now }
		st, err := jsonl.Open(path, jsonl.Options{NoSync: true})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		svc := ledger.New(st, ledger.Options{Clock: clock})
		defer svc.Close()
		who := pinki.Identity{}
		ids := []string{"p1", "r1", "a1"}
		digest := ""
		for i, op := range ops {
			now = now.Add(time.Minute)
			id := ids[int(op>>4)%len(ids)]
			var err error
			switch op % 9 {
			case 0:
				_, err = svc.Create(ctx, who, ledger.CreateInput{Kind: fold.KindPromise, ID: "p1", Text: text, By: seat, To: "bob",
					Until: "+1h", Meta: json.RawMessage(meta)})
			case 1:
				var r ledger.Receipt
				r, err = svc.Create(ctx, who, ledger.CreateInput{Kind: fold.KindRequest, ID: "r1", Text: text, By: "bob", To: seat,
					Until: "+1h", Schema: json.RawMessage(schema), SchemaID: "s.v1"})
				if err == nil {
					digest = r.Digest
				}
			case 2:
				_, err = svc.Create(ctx, who, ledger.CreateInput{Kind: fold.KindAgreement, ID: "a1", Text: text, By: seat, To: "bob",
					Until: "+1d", Meta: json.RawMessage(meta), Target: json.RawMessage(`{"kind":"todo","id":` + quote(text) + `}`)})
			case 3:
				_, err = svc.Amend(ctx, who, ledger.AmendInput{ID: id, Until: "+3h", Reason: text, Meta: json.RawMessage(meta)})
			case 4:
				var d ledger.Detail
				if d, err = svc.Get(ctx, who, ledger.Query{ID: id}); err == nil {
					_, err = svc.Accept(ctx, who, ledger.AcceptInput{ID: id, Rev: d.Rev, By: []string{seat, "bob"}[i%2]})
				}
			case 5:
				_, err = svc.Progress(ctx, who, ledger.ProgressInput{ID: id, Phase: pinki.PhaseInProgress, Note: text})
			case 6:
				_, err = svc.Assess(ctx, who, ledger.AssessInput{ID: id, State: text, Observer: seat, Note: text, Meta: json.RawMessage(meta)})
			case 7:
				_, err = svc.Resolve(ctx, who, ledger.ResolveInput{ID: id, As: pinki.Satisfied, Evidence: []string{text},
					Response: json.RawMessage(response), SchemaID: "s.v1", Digest: digest})
			case 8:
				_, err = svc.Bind(ctx, who, ledger.BindInput{ID: id, Target: json.RawMessage(`{"kind":` + quote(text) + `,"meta":` + meta + `}`)})
			}
			if err != nil && pinki.ErrorCode(err) == pinki.CodeInternal {
				t.Fatalf("op %d (%d): internal error: %v", i, op%9, err)
			}
		}
		// A fresh reader understands every line, and answers alike.
		st2, err := jsonl.Open(path, jsonl.Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer st2.Close()
		fresh := ledger.New(st2, ledger.Options{Clock: clock, OnUnknownLine: func(seq int64, raw []byte, err error) {
			t.Fatalf("line %d, which the service wrote, does not read back: %v\n%s", seq, err, raw)
		}})
		defer fresh.Close()
		want, err := svc.Export(ctx, who, ledger.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := fresh.Export(ctx, who, ledger.Filter{})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(want)
		b, _ := json.Marshal(got)
		if string(a) != string(b) {
			t.Fatalf("a fresh reader folds the ledger differently:\nwriter: %s\nreader: %s", a, b)
		}
	})
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
