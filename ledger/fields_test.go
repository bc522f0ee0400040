package ledger_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

// TestDeadline covers the forms a deadline takes and the ones refused,
// including durations too long to add (they used to wrap into the past).
func TestDeadline(t *testing.T) {
	now := time.Date(2026, 9, 1, 12, 0, 0, 500, time.UTC)
	for _, tc := range []struct {
		in   string
		want string // "" when refused
	}{
		{"+2h", "2026-09-01T14:00:00Z"},
		{"1d12h", "2026-09-03T00:00:00Z"},
		{"2w", "2026-09-15T12:00:00Z"},
		{"2026-09-01T17:00:00-07:00", "2026-09-02T00:00:00Z"},
		{"2026-09-01T17:00Z", "2026-09-01T17:00:00Z"},
		{"9999-12-31T23:59:59Z", "9999-12-31T23:59:59Z"},
		{"15000w", "2314-02-24T12:00:00Z"},
		{"1000000w", ""},              // past what a duration holds
		{"999999d999999d999999d", ""}, // each part fits, the sum does not
		{"1000001s", ""},
		{"2h30", ""},
		{"2x", ""},
		{"2026-09-01T17:00:00", ""},
		{"", ""},
	} {
		got, err := ledger.Deadline("until", tc.in, now)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("Deadline(%q) = %s, want an error", tc.in, got)
		case tc.want == "" && pinki.ErrorCode(err) != pinki.CodeInvalid:
			t.Errorf("Deadline(%q): %v, want an invalid error", tc.in, err)
		case tc.want != "" && err != nil:
			t.Errorf("Deadline(%q): %v", tc.in, err)
		case tc.want != "" && got.Format(time.RFC3339) != tc.want:
			t.Errorf("Deadline(%q) = %s, want %s", tc.in, got.Format(time.RFC3339), tc.want)
		}
	}
}

// TestFieldRefusals: each refusal names its field and carries the code the
// surfaces map (too large: exit 2, HTTP 413; invalid: exit 2, HTTP 400).
func TestFieldRefusals(t *testing.T) {
	ctx := context.Background()
	svc := newService(t)
	base := func() ledger.CreateInput {
		return ledger.CreateInput{Kind: fold.KindPromise, Text: "x", By: "alice", To: "bob", Until: "+1h"}
	}
	request := func(schema string) ledger.CreateInput {
		in := base()
		in.Kind, in.SchemaID, in.Schema = fold.KindRequest, "s.v1", []byte(schema)
		return in
	}
	deep := strings.Repeat(`{"a":`, 201) + "1" + strings.Repeat("}", 201)
	for _, tc := range []struct {
		name  string
		in    ledger.CreateInput
		code  pinki.Code
		field string
		says  string
	}{
		{"text over the cap", func() ledger.CreateInput { in := base(); in.Text = strings.Repeat("x", pinki.MaxText+1); return in }(),
			pinki.CodeTooLarge, "promise", "over the"},
		{"seat over the cap", func() ledger.CreateInput { in := base(); in.To = strings.Repeat("s", 513); return in }(),
			pinki.CodeTooLarge, "to", "over the 512-byte limit"},
		{"meta over the cap", func() ledger.CreateInput {
			in := base()
			in.Meta = []byte(`{"k":"` + strings.Repeat("m", pinki.MaxMeta) + `"}`)
			return in
		}(), pinki.CodeTooLarge, "meta", "over the limit of 8192"},
		{"meta nested too deep", func() ledger.CreateInput { in := base(); in.Meta = []byte(deep); return in }(),
			pinki.CodeInvalid, "meta", "nests 201 levels deep"},
		{"schema nested too deep", request(deep), pinki.CodeInvalid, "schema", "nests 201 levels deep"},
		{"schema an array", request(`[{"type":"string"}]`), pinki.CodeInvalid, "schema", "not an array"},
		{"schema a number", request(`3`), pinki.CodeInvalid, "schema", "not a number"},
		{"schema a boolean", request(`true`), pinki.CodeInvalid, "schema", "not a boolean"},
	} {
		_, err := svc.Create(ctx, pinki.Identity{}, tc.in)
		var pe *pinki.Error
		if !errors.As(err, &pe) || pe.Code != tc.code || pe.Field != tc.field || !strings.Contains(pe.Message, tc.says) {
			t.Errorf("%s: %v (%+v), want %s on field %q saying %q", tc.name, err, pe, tc.code, tc.field, tc.says)
		}
	}
	if _, err := svc.Create(ctx, pinki.Identity{}, request(`{"type":"integer"}`)); err != nil {
		t.Errorf("a schema object: %v", err)
	}
}
