package main

import (
	"bytes"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

var escapes = regexp.MustCompile("\x1b\\[[0-9;]*m")

func at(s string) int64 {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t.UnixNano()
}

// Colour never moves a column: stripped of its escape codes, a coloured
// table is the plain one.
func TestTableColourKeepsAlignment(t *testing.T) {
	now := at("2026-09-01T13:00:00Z")
	items := []ledger.Item{
		{ID: "p1", State: fold.Overdue, Until: "2026-09-01T12:48:00Z", By: "alice", To: "bob", Promise: "ship it"},
		{ID: "desk/ship-91", State: fold.Detached, Until: "2026-09-01T16:00:00Z", By: "…/reviewer", To: "…/author", Promise: "hand back a reviewed schema"},
		{ID: "p3", State: fold.Satisfied, Late: true, Until: "2026-09-01T10:00:00Z", By: "a", To: "b", Promise: "done\tlate"},
	}
	plain := table(itemRows(items, now), false)
	coloured := table(itemRows(items, now), true)
	if escapes.MatchString(plain) {
		t.Errorf("escape codes without colour:\n%q", plain)
	}
	if !strings.Contains(coloured, "\x1b[31moverdue\x1b[0m") || !strings.Contains(coloured, "\x1b[32msatisfied\x1b[0m") {
		t.Errorf("states are not coloured:\n%q", coloured)
	}
	if got := escapes.ReplaceAllString(coloured, ""); got != plain {
		t.Errorf("colour moved the columns:\n%s\nwant\n%s", got, plain)
	}
	want := "p1            overdue    overdue 12m  2026-09-01T12:48:00Z  alice -> bob            ship it\n" +
		"desk/ship-91  detached   due in 3h    2026-09-01T16:00:00Z  …/reviewer -> …/author  hand back a reviewed schema\n" +
		"p3            satisfied  late         2026-09-01T10:00:00Z  a -> b                  done late\n"
	if plain != want {
		t.Errorf("table:\n%s\nwant\n%s", plain, want)
	}
}

func TestShowColour(t *testing.T) {
	d := ledger.Detail{Item: ledger.Item{ID: "p1", State: fold.Overdue, Until: "2026-09-01T12:48:00Z", By: "a", To: "b", Promise: "x", Rev: 1}}
	now := at("2026-09-01T13:00:00Z")
	plain, coloured := renderDetail(d, now, false), renderDetail(d, now, true)
	if escapes.MatchString(plain) || !escapes.MatchString(coloured) {
		t.Errorf("plain %q, coloured %q", plain, coloured)
	}
	if escapes.ReplaceAllString(coloured, "") != plain {
		t.Errorf("colour changed the text:\n%s\nwant\n%s", coloured, plain)
	}
	if !strings.Contains(plain, "  until        2026-09-01T12:48:00Z (overdue 12m)\n") {
		t.Errorf("show:\n%s", plain)
	}
}

func TestDue(t *testing.T) {
	now := at("2026-09-01T12:00:00Z")
	tests := []struct {
		state fold.State
		late  bool
		until string
		want  string
	}{
		{fold.Detached, false, "2026-09-01T15:00:00Z", "due in 3h"},
		{fold.Detached, false, "2026-09-01T12:00:00Z", "due in 0s"},
		{fold.Proposed, false, "2026-09-03T16:00:00Z", "due in 2d4h"},
		{fold.Conditional, false, "2026-09-01T10:00:00Z", "due 2h ago"},
		{fold.Overdue, false, "2026-09-01T11:48:00Z", "overdue 12m"},
		{fold.Satisfied, true, "2026-09-01T11:00:00Z", "late"},
		{fold.Satisfied, false, "2026-09-01T13:00:00Z", "-"},
		{fold.Expired, false, "2026-09-01T11:00:00Z", "-"},
	}
	for _, tt := range tests {
		if got := due(tt.state, tt.late, at(tt.until), now); got != tt.want {
			t.Errorf("due(%s, late=%v, %s) = %q, want %q", tt.state, tt.late, tt.until, got, tt.want)
		}
	}
}

// Colour needs a terminal on stdout and NO_COLOR unset: a buffer, a file
// and /dev/null are not terminals.
func TestColourNeedsATerminal(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	t.Setenv("TERM", "xterm")
	if (&app{stdout: &bytes.Buffer{}}).colour() {
		t.Error("colour on a buffer")
	}
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	if (&app{stdout: devnull}).colour() {
		t.Error("colour on /dev/null")
	}
	f, err := os.Create(t.TempDir() + "/out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if (&app{stdout: f}).colour() {
		t.Error("colour on a file")
	}
}

// Columns are counted in screen columns: a CJK character takes two, a
// combining mark none, so CJK seat names line up.
func TestTableAlignsWideCharacters(t *testing.T) {
	for s, want := range map[string]int{"alice": 5, "张三": 4, "桌面/李四": 9, "ｱｲ": 2, "ＡＢ": 4, "e\u0301": 1, "…/x": 3} {
		if got := columns(s); got != want {
			t.Errorf("columns(%q) = %d, want %d", s, got, want)
		}
	}
	now := at("2026-09-01T13:00:00Z")
	items := []ledger.Item{
		{ID: "p1", State: fold.Detached, Until: "2026-09-01T16:00:00Z", By: "张三", To: "李四", Promise: "写周报"},
		{ID: "p2", State: fold.Detached, Until: "2026-09-01T16:00:00Z", By: "alice", To: "bob", Promise: "ship it"},
	}
	want := "p1  detached  due in 3h  2026-09-01T16:00:00Z  张三 -> 李四  写周报\n" +
		"p2  detached  due in 3h  2026-09-01T16:00:00Z  alice -> bob  ship it\n"
	if got := table(itemRows(items, now), false); got != want {
		t.Errorf("table:\n%s\nwant\n%s", got, want)
	}
}

// show lays each history out as a table: the columns of its rows line up,
// whatever the length of a phase, a state or a seat.
func TestShowAlignsHistories(t *testing.T) {
	d := ledger.Detail{Item: ledger.Item{ID: "p1", State: fold.Detached, Until: "2026-09-02T12:00:00Z", By: "desk/dev", To: "desk/lead",
		Promise: "fix it", Rev: 3}}
	d.Progress = []ledger.ProgressView{
		{TS: "2026-09-01T12:00:00Z", Phase: "in_progress", By: "desk/dev", Note: "bisecting", Meta: []byte(`{"pr":42}`)},
		{TS: "2026-09-01T12:05:00Z", Phase: "blocked", By: "desk/dev"},
	}
	d.Assessments = []ledger.AssessmentView{
		{TS: "2026-09-01T13:00:00Z", State: "disputed", Observer: "审查员", Note: "not yet"},
		{TS: "2026-09-01T13:01:00Z", State: "kept", Observer: "desk/qa", Note: "fine"},
	}
	got := renderDetail(d, at("2026-09-01T13:00:00Z"), false)
	for _, want := range []string{
		"  progress\n" +
			"    2026-09-01T12:00:00Z  in_progress  desk/dev  bisecting\n" +
			"      meta     {\"pr\":42}\n" +
			"    2026-09-01T12:05:00Z  blocked      desk/dev\n",
		"  assessments\n" +
			"    2026-09-01T13:00:00Z  disputed  审查员   not yet\n" +
			"    2026-09-01T13:01:00Z  kept      desk/qa  fine\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("show:\n%s\nwant it to hold\n%s", got, want)
		}
	}
}
