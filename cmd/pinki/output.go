package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

// printJSON prints v as pretty JSON (2-space indent, no HTML escaping), the
// way pinki prints its read verbs.
func (a *app) printJSON(v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return pinki.Errorf(pinki.CodeInternal, "could not encode the output as JSON: %v", err)
	}
	_, err := a.stdout.Write(buf.Bytes())
	return err
}

// compactJSON encodes v as one compact line, with its newline.
func compactJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, pinki.Errorf(pinki.CodeInternal, "could not encode the output as JSON: %v", err)
	}
	return buf.Bytes(), nil
}

// colour reports whether human output may use colour: stdout is a terminal,
// NO_COLOR is unset or empty, and TERM is not dumb.
func (a *app) colour() bool {
	if os.Getenv("NO_COLOR") != "" || os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := a.stdout.(*os.File)
	return ok && isTerminal(f.Fd())
}

// ANSI SGR codes.
const (
	sgrRed    = "31"
	sgrGreen  = "32"
	sgrYellow = "33"
	sgrBlue   = "34"
	sgrDim    = "2"
	sgrBold   = "1"
)

// stateColour is the SGR code a state is shown in.
func stateColour(s fold.State) string {
	switch s {
	case fold.Overdue, fold.Failed:
		return sgrRed
	case fold.Detached:
		return sgrYellow
	case fold.Proposed, fold.Conditional:
		return sgrBlue
	case fold.Satisfied:
		return sgrGreen
	}
	return sgrDim // cancelled, released, expired
}

// paint wraps s in the SGR code when on is set.
func paint(on bool, code, s string) string {
	if !on || code == "" || s == "" {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// cell is one table cell: its text and the colour it is shown in.
type cell struct {
	text   string
	colour string
}

// table writes rows as columns separated by two spaces, each padded to its
// widest cell (in screen columns, see columns) except the last, which is
// not padded. Colour never changes the alignment.
func table(rows [][]cell, colour bool) string {
	var b strings.Builder
	for _, l := range tableLines(rows, colour) {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// tableLines is table's lines, one per row, without their newlines.
func tableLines(rows [][]cell, colour bool) []string {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], columns(c.text))
		}
	}
	lines := make([]string, 0, len(rows))
	for _, r := range rows {
		var b strings.Builder
		for i, c := range r {
			if i > 0 {
				b.WriteString("  ")
			}
			b.WriteString(paint(colour, c.colour, c.text))
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-columns(c.text)))
			}
		}
		lines = append(lines, b.String())
	}
	return lines
}

// columns is how many screen columns s takes in a terminal: two for an East
// Asian wide or fullwidth character (CJK ideographs, kana, hangul,
// fullwidth forms), none for a combining mark or a format character, one for
// any other.
func columns(s string) int {
	n := 0
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			n++ // ASCII, the common case, without the table look-ups
		case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		case wide(r):
			n += 2
		default:
			n++
		}
	}
	return n
}

// wide reports whether r takes two columns (East Asian Width W or F).
func wide(r rune) bool {
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return true
	}
	return false
}

// due renders an obligation's deadline relative to now, for people: "due in
// 3h", "overdue 12m", "due 2h ago" (not owed yet), "late" (satisfied after the
// horizon), or "-" once ended.
func due(st fold.State, late bool, untilAt, now int64) string {
	switch st {
	case fold.Overdue:
		return "overdue " + ledger.Span(now-untilAt)
	case fold.Detached, fold.Proposed, fold.Conditional:
		if untilAt >= now {
			return "due in " + ledger.Span(untilAt-now)
		}
		return "due " + ledger.Span(now-untilAt) + " ago"
	case fold.Satisfied:
		if late {
			return "late"
		}
	}
	return "-"
}

// itemRows renders listed obligations as table rows: id, state, due, until,
// by -> to, and the text clipped to 56 characters.
func itemRows(items []ledger.Item, now int64) [][]cell {
	rows := make([][]cell, 0, len(items))
	for _, it := range items {
		c := stateColour(it.State)
		d := due(it.State, it.Late, untilNanos(it), now)
		dc := ""
		if it.State == fold.Overdue {
			dc = sgrRed
		}
		rows = append(rows, []cell{
			{text: it.ID, colour: sgrBold},
			{text: string(it.State), colour: c},
			{text: d, colour: dc},
			{text: it.Until},
			{text: it.By + " -> " + it.To},
			{text: ledger.Clip(it.Promise, 56)},
		})
	}
	return rows
}

// untilNanos is an item's horizon in Unix nanoseconds, parsed from its text
// (what a server sends) with the service's own value as the fallback.
func untilNanos(it ledger.Item) int64 {
	if at, err := pinki.ParseInstant(it.Until); err == nil {
		return at
	}
	return it.UntilAt
}

// quote renders s for a message, in backquotes.
func quote(s string) string { return "`" + s + "`" }
