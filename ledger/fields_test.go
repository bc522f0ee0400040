package ledger_test

import (
	"testing"
	"time"

	"github.com/pinki-ledger/pinki"
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
