package pinki

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestAppendStringEscaping pins the escaping pinki 0.2 (serde_json) writes:
// quote, backslash and control characters escaped (\b \f \n \r \t short,
// the rest \u00XX in lower-case hex), everything else as is: no HTML
// escaping of < > &, "/" unescaped, DEL, non-ASCII and U+2028/U+2029 raw.
func TestAppendStringEscaping(t *testing.T) {
	for in, want := range map[string]string{
		``:                    `""`,
		`plain`:               `"plain"`,
		`"`:                   `"\""`,
		`\`:                   `"\\"`,
		"\n\r\t\b\f":          `"\n\r\t\b\f"`,
		"\x00":                `"\u0000"`,
		"\x01\x0b\x0e\x1f":    `"\u0001\u000b\u000e\u001f"`,
		"\x7f":                "\"\x7f\"",
		`<b>&amp;</b>`:        `"<b>&amp;</b>"`,
		`https://x.org/a?b=c`: `"https://x.org/a?b=c"`,
		"\u2028\u2029":        "\"\u2028\u2029\"",
		"é…約束😀":               `"é…約束😀"`,
		"a\"b\\c\nd":          `"a\"b\\c\nd"`,
	} {
		if got := string(AppendString(nil, in)); got != want {
			t.Errorf("AppendString(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestAppendStringEveryRune encodes a string holding every Unicode scalar
// value and checks that encoding/json reads it back unchanged.
func TestAppendStringEveryRune(t *testing.T) {
	var b strings.Builder
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if utf8.ValidRune(r) {
			b.WriteRune(r)
		}
	}
	s := b.String()
	enc := AppendString(nil, s)
	if !json.Valid(enc) {
		t.Fatal("not valid JSON")
	}
	var back string
	if err := json.Unmarshal(enc, &back); err != nil || back != s {
		t.Fatalf("does not read back: %v", err)
	}
}

// TestAppendLineShapes pins each type's key order (ts, type, body, meta
// last; pinki 0.2's order for promise, amend, resolve and assess) and that
// absent optional fields are omitted.
func TestAppendLineShapes(t *testing.T) {
	for _, c := range []struct {
		e    Event
		want string
	}{
		{Event{TS: "2026-08-28T20:14:03Z", Type: TypePromise, ID: "pnk_4f3a91", Text: "hand back a reviewed schema",
			By: "…/reviewer", To: "…/author", On: "pnk_0c2b77", Until: "2026-09-01T17:00:00Z"},
			`{"ts":"2026-08-28T20:14:03Z","type":"promise","id":"pnk_4f3a91","promise":"hand back a reviewed schema","by":"…/reviewer","to":"…/author","on":"pnk_0c2b77","until":"2026-09-01T17:00:00Z"}`},
		{Event{TS: "2026-08-28T20:14:03Z", Type: TypePromise, ID: "p", Text: "t", By: "a", To: "b",
			Until: "2026-09-01T17:00:00Z", Task: "task-1", Meta: `{"a":1}`},
			`{"ts":"2026-08-28T20:14:03Z","type":"promise","id":"p","promise":"t","by":"a","to":"b","until":"2026-09-01T17:00:00Z","task":"task-1","meta":{"a":1}}`},
		{Event{TS: "2026-09-01T09:00:00Z", Type: TypeRequest, ID: "q", Text: "t", By: "a", To: "b", Until: "2026-09-01T17:00:00Z",
			Lapse: LapseExpire, SchemaID: "s.v1", Schema: `{"type":"object"}`},
			`{"ts":"2026-09-01T09:00:00Z","type":"request","id":"q","promise":"t","by":"a","to":"b","until":"2026-09-01T17:00:00Z","lapse":"expire","schema_id":"s.v1","schema":{"type":"object"}}`},
		{Event{TS: "2026-09-01T09:00:00Z", Type: TypePropose, ID: "d", Text: "t", By: "a", To: "b", Until: "2026-09-01T17:00:00Z", Proposer: "by"},
			`{"ts":"2026-09-01T09:00:00Z","type":"propose","id":"d","promise":"t","by":"a","to":"b","until":"2026-09-01T17:00:00Z","proposer":"by"}`},
		{Event{TS: "2026-09-01T17:05:00Z", Type: TypeAmend, Subject: "pnk_4f3a91", By: "…/reviewer", Until: "2026-09-01T17:15:00Z",
			Reason: "nudge 1", Meta: `{"by":"offboard","ref":"dotfiles-6"}`},
			`{"ts":"2026-09-01T17:05:00Z","type":"amend","promise":"pnk_4f3a91","by":"…/reviewer","until":"2026-09-01T17:15:00Z","reason":"nudge 1","meta":{"by":"offboard","ref":"dotfiles-6"}}`},
		{Event{TS: "2026-09-01T09:00:00Z", Type: TypeAccept, Subject: "d", By: "b", Rev: 2},
			`{"ts":"2026-09-01T09:00:00Z","type":"accept","promise":"d","by":"b","rev":2}`},
		{Event{TS: "2026-09-01T09:00:00Z", Type: TypeProgress, Subject: "q", By: "a", Phase: PhaseBlocked, Note: "ci down"},
			`{"ts":"2026-09-01T09:00:00Z","type":"progress","promise":"q","by":"a","phase":"blocked","note":"ci down"}`},
		{Event{TS: "2026-09-01T09:00:00Z", Type: TypeResolve, Subject: "pnk_4f3a91", As: Satisfied, By: "…/reviewer",
			Evidence: []string{"https://example.org/reviews/91"}},
			`{"ts":"2026-09-01T09:00:00Z","type":"resolve","promise":"pnk_4f3a91","as":"satisfied","by":"…/reviewer","evidence":["https://example.org/reviews/91"]}`},
		{Event{TS: "2026-09-01T09:00:00Z", Type: TypeResolve, Subject: "p", As: Cancelled, By: "a", Reason: "upstream schema was withdrawn"},
			`{"ts":"2026-09-01T09:00:00Z","type":"resolve","promise":"p","as":"cancelled","by":"a","reason":"upstream schema was withdrawn"}`},
		{Event{TS: "2026-09-01T09:00:00Z", Type: TypeResolve, Subject: "p", As: Released, By: "b"},
			`{"ts":"2026-09-01T09:00:00Z","type":"resolve","promise":"p","as":"released","by":"b"}`},
		{Event{TS: "2026-09-01T09:00:00Z", Type: TypeResolve, Subject: "p", As: Satisfied, By: "a", Evidence: []string{}},
			`{"ts":"2026-09-01T09:00:00Z","type":"resolve","promise":"p","as":"satisfied","by":"a","evidence":[]}`},
		{Event{TS: "2026-09-01T09:00:00Z", Type: TypeResolve, Subject: "q", As: Satisfied, By: "a", Response: `{"n":42}`,
			SchemaID: "s.v1", Digest: "sha256:00"},
			`{"ts":"2026-09-01T09:00:00Z","type":"resolve","promise":"q","as":"satisfied","by":"a","response":{"n":42},"schema_id":"s.v1","digest":"sha256:00"}`},
		{Event{TS: "2026-09-02T09:00:00Z", Type: TypeAssess, Subject: "pnk_88de10", State: "violated", Observer: "…/author",
			Note: "nothing shipped, no reason given"},
			`{"ts":"2026-09-02T09:00:00Z","type":"assess","promise":"pnk_88de10","state":"violated","observer":"…/author","note":"nothing shipped, no reason given"}`},
		{Event{TS: "2026-09-01T09:00:00Z", Type: TypeBind, Subject: "d", By: "a", Target: `{"kind":"todo","item":"42"}`},
			`{"ts":"2026-09-01T09:00:00Z","type":"bind","promise":"d","by":"a","target":{"kind":"todo","item":"42"}}`},
	} {
		got := AppendLine(nil, &c.e)
		if string(got) != c.want+"\n" {
			t.Errorf("%s:\n got %s want %s", c.e.Type, got, c.want)
		}
		if !json.Valid(got) {
			t.Errorf("%s: not valid JSON: %s", c.e.Type, got)
		}
		back, err := DecodeLine(got)
		if err != nil {
			t.Errorf("%s: does not decode: %v", c.e.Type, err)
			continue
		}
		if again := AppendLine(nil, &back); string(again) != string(got) {
			t.Errorf("%s: decode and encode again changes the line:\n%s%s", c.e.Type, got, again)
		}
	}
}

func TestAppendLineAppends(t *testing.T) {
	e := Event{TS: "2026-09-01T09:00:00Z", Type: TypeAccept, Subject: "d", By: "b", Rev: 2}
	got := AppendLine([]byte("prefix\n"), &e)
	if want := "prefix\n" + `{"ts":"2026-09-01T09:00:00Z","type":"accept","promise":"d","by":"b","rev":2}` + "\n"; string(got) != want {
		t.Fatalf("%s", got)
	}
}

// TestDigest checks the content digest (SPEC §1): sha256 of the RFC 8785
// canonical JSON of the creation event without ts and meta, computed here
// independently with encoding/json (sorted keys; no HTML escaping matters
// for this ASCII event).
func TestDigest(t *testing.T) {
	e := Event{TS: "2026-09-01T09:00:00Z", Type: TypeRequest, ID: "q1", Text: "stock of sku 42?", By: "warehouse",
		To: "shop", Until: "2026-09-01T17:00:00Z", SchemaID: "stock.v1", Schema: `{"type":"object","required":["n"]}`,
		Meta: `{"trace":"abc"}`}
	canon, err := json.Marshal(map[string]any{"type": "request", "id": "q1", "promise": "stock of sku 42?", "by": "warehouse",
		"to": "shop", "until": "2026-09-01T17:00:00Z", "schema_id": "stock.v1",
		"schema": map[string]any{"type": "object", "required": []string{"n"}}})
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(canon)
	want := "sha256:" + hex.EncodeToString(sum[:])
	if got := Digest(&e); got != want {
		t.Fatalf("Digest = %s, want %s (of %s)", got, want, canon)
	}
	f := e
	f.TS, f.Meta = "2027-01-01T00:00:00Z", `{"other":1}`
	if Digest(&f) != want {
		t.Fatal("ts or meta changes the digest")
	}
	f.Text = "stock of sku 43?"
	if Digest(&f) == want {
		t.Fatal("the text does not change the digest")
	}
}
