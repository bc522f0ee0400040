package fold_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
)

// TestCompat reads the ledgers in testdata/compat (pinki 0.1 and 0.2 line
// shapes) with pinki.DecodeLine, folds them, and checks the states in the
// matching .want file (SPEC §7: ledgers written by pinki 0.1/0.2 read with
// identical states). Every line it understands must re-encode byte for byte
// (the same key order and escaping as pinki 0.2 writes).
//
// A .want file holds, besides # comments and blank lines:
//
//	unknown N     line N is not understood (the exact set is checked)
//	ignored N     line N is understood but not applied by the fold (exact set)
//	now T         the instant the following lines are computed at
//	ID STATE      the state of ID at that instant; "absent" when no
//	              understood line declares ID
func TestCompat(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "compat", "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no compat ledgers: %v", err)
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".jsonl"), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			l := fold.New()
			var unknown []int64
			for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
				seq := int64(i + 1)
				if len(bytes.TrimSpace(line)) == 0 {
					continue
				}
				e, err := pinki.DecodeLine(line)
				if err != nil {
					unknown = append(unknown, seq)
					continue
				}
				canonical := bytes.TrimSuffix(line, []byte("\r"))
				if got := pinki.AppendLine(nil, &e); !bytes.Equal(got[:len(got)-1], canonical) {
					t.Errorf("line %d re-encodes differently:\n%s\n%s", seq, canonical, got)
				}
				l.Apply(seq, &e)
			}
			var ignored []int64
			for _, ig := range l.Ignored() {
				ignored = append(ignored, ig.Seq)
			}
			want := readWant(t, strings.TrimSuffix(path, ".jsonl")+".want")
			if !reflect.DeepEqual(unknown, want.unknown) {
				t.Errorf("lines not understood: %v, want %v", unknown, want.unknown)
			}
			if !reflect.DeepEqual(ignored, want.ignored) {
				t.Errorf("lines ignored by the fold: %v, want %v", ignored, want.ignored)
			}
			if len(want.checks) == 0 {
				t.Fatal("the .want file checks no state")
			}
			for _, c := range want.checks {
				got := "absent"
				if o := l.Get(c.id); o != nil {
					got = string(l.At(c.now).Status(o).State)
				}
				if got != c.state {
					t.Errorf("%s: %s at %s is %s, want %s", c.pos, c.id, c.at, got, c.state)
				}
			}
		})
	}
}

type compatWant struct {
	unknown, ignored []int64
	checks           []compatCheck
}

type compatCheck struct {
	pos, at, id, state string
	now                int64
}

func readWant(t *testing.T, path string) compatWant {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var w compatWant
	var at string
	var now int64
	for i, line := range strings.Split(string(data), "\n") {
		pos := fmt.Sprintf("%s:%d", filepath.Base(path), i+1)
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			t.Fatalf("%s: want two words: %q", pos, line)
		}
		switch f[0] {
		case "unknown", "ignored":
			n, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", pos, err)
			}
			if f[0] == "unknown" {
				w.unknown = append(w.unknown, n)
			} else {
				w.ignored = append(w.ignored, n)
			}
		case "now":
			if now, err = pinki.ParseInstant(f[1]); err != nil {
				t.Fatalf("%s: %v", pos, err)
			}
			at = f[1]
		default:
			if at == "" {
				t.Fatalf("%s: a state before any `now`", pos)
			}
			if f[1] != "absent" && !fold.State(f[1]).Valid() {
				t.Fatalf("%s: %q is not a state", pos, f[1])
			}
			w.checks = append(w.checks, compatCheck{pos: pos, at: at, id: f[0], state: f[1], now: now})
		}
	}
	sort.Slice(w.unknown, func(i, j int) bool { return w.unknown[i] < w.unknown[j] })
	sort.Slice(w.ignored, func(i, j int) bool { return w.ignored[i] < w.ignored[j] })
	return w
}
