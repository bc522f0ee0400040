package a2a_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/pinki-ledger/pinki/a2a"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

// docPath is the binding's documentation, whose examples and tables these
// tests check.
var docPath = filepath.Join("..", "docs", "A2A.md")

// docBlock is a fenced block of docs/A2A.md that follows a marker line
// "<!-- example: NAME KIND -->" (KIND request or reply) or
// "<!-- file: PATH -->".
type docBlock struct {
	marker     string
	start, end int // line indexes of the block's content
	text       string
}

func docBlocks(t *testing.T, lines []string) []docBlock {
	t.Helper()
	var out []docBlock
	for i := 0; i < len(lines); i++ {
		m := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(m, "<!-- example: ") && !strings.HasPrefix(m, "<!-- file: ") {
			continue
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
			t.Fatalf("%s:%d: %s is not followed by a fenced block", docPath, i+1, m)
		}
		j := i + 2
		for j < len(lines) && !strings.HasPrefix(lines[j], "```") {
			j++
		}
		out = append(out, docBlock{marker: strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(m, "<!-- example: "), "<!-- file: "), " -->"),
			start: i + 2, end: j, text: strings.Join(lines[i+2:j], "\n")})
		i = j
	}
	return out
}

// TestDocExamples sends every example request of docs/A2A.md, in order, to
// a fresh ledger agent (as the reviewer seat) and compares each reply with
// the example reply that follows it; "file" blocks must equal the file they
// name. PINKI_REWRITE=1 rewrites the replies and files in the document.
func TestDocExamples(t *testing.T) {
	data, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	la := startLedgerAgent(t)
	var pending *rpcResponse
	var pendingName string
	rewrites := map[int][2]int{} // start -> [end, index into replacement]
	var replacement []string
	for _, b := range docBlocks(t, lines) {
		name, kind, _ := strings.Cut(b.marker, " ")
		switch {
		case kind == "request":
			var req struct {
				Method string         `json:"method"`
				Params map[string]any `json:"params"`
			}
			if err := json.Unmarshal([]byte(b.text), &req); err != nil {
				t.Fatalf("example %s: request is not JSON: %v", name, err)
			}
			res, _ := la.rpc(t, reviewer, req.Method, req.Params)
			pending, pendingName = &res, name
		case kind == "reply":
			if pending == nil || pendingName != name {
				t.Fatalf("example %s: reply without its request", name)
			}
			got := replyJSON(t, *pending)
			pending = nil
			if rewriting() {
				rewrites[b.start] = [2]int{b.end, len(replacement)}
				replacement = append(replacement, got)
				continue
			}
			if normalizeReply(t, b.text) != normalizeReply(t, got) {
				t.Errorf("example %s: the reply differs from docs/A2A.md (PINKI_REWRITE=1 rewrites it):\n--- got\n%s\n--- doc\n%s", name, got, b.text)
			}
		case kind == "":
			want, err := os.ReadFile(filepath.Join("..", name))
			if err != nil {
				t.Fatalf("file block %s: %v", name, err)
			}
			if rewriting() {
				rewrites[b.start] = [2]int{b.end, len(replacement)}
				replacement = append(replacement, strings.TrimSuffix(string(want), "\n"))
				continue
			}
			if strings.TrimSuffix(string(want), "\n") != b.text {
				t.Errorf("the block of docs/A2A.md showing %s differs from it (PINKI_REWRITE=1 rewrites it)", name)
			}
		default:
			t.Fatalf("unknown marker %q", b.marker)
		}
	}
	if rewriting() && len(rewrites) > 0 {
		var out []string
		for i := 0; i < len(lines); {
			if r, ok := rewrites[i]; ok {
				out = append(out, replacement[r[1]])
				i = r[0] // the closing fence, kept below
			}
			out = append(out, lines[i])
			i++
		}
		if err := os.WriteFile(docPath, []byte(strings.Join(out, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// replyJSON renders a JSON-RPC response as the document shows it.
func replyJSON(t *testing.T, r rpcResponse) string {
	t.Helper()
	body, key := []byte(r.Result), "result"
	if r.Error != nil {
		for _, d := range r.Error.Data {
			if md, ok := d["metadata"].(map[string]any); ok {
				md["timestamp"] = "2026-09-01T12:00:00Z" // the only part that varies
			}
		}
		var err error
		if body, err = json.Marshal(r.Error); err != nil {
			t.Fatal(err)
		}
		key = "error"
	}
	// Keep the server's key order: re-indent the body in place.
	var buf bytes.Buffer
	if err := json.Indent(&buf, body, "  ", "  "); err != nil {
		t.Fatal(err)
	}
	return "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"" + key + "\": " + buf.String() + "\n}"
}

var timestamp = regexp.MustCompile(`"timestamp":\s*"[^"]*"`)

func normalizeReply(t *testing.T, s string) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(timestamp.ReplaceAllString(s, `"timestamp":""`))); err != nil {
		t.Fatalf("reply is not JSON: %v\n%s", err, s)
	}
	return buf.String()
}

// docTable returns the rows of the table after "<!-- table: NAME -->": each
// row's cells, trimmed, without the header and separator.
func docTable(t *testing.T, name string) [][]string {
	t.Helper()
	data, err := os.ReadFile(docPath)
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(data), "<!-- table: "+name+" -->\n")
	if !ok {
		t.Fatalf("docs/A2A.md has no table %s", name)
	}
	var rows [][]string
	for i, line := range strings.Split(after, "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		if i < 2 {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		rows = append(rows, cells)
	}
	if len(rows) == 0 {
		t.Fatalf("table %s is empty", name)
	}
	return rows
}

var code = regexp.MustCompile("`([^`]*)`")

func codes(cell string) []string {
	var out []string
	for _, m := range code.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestDocStateTable checks the document's obligation → Task table against
// Task.
func TestDocStateTable(t *testing.T) {
	seen := 0
	for _, row := range docTable(t, "task-states") {
		want := codes(row[1])
		for _, st := range codes(row[0]) {
			d := ledger.Detail{Item: ledger.Item{ID: "p1", State: fold.State(st), By: reviewer, To: author, On: "p0"}}
			if st == "satisfied" {
				d.Resolution = &ledger.ResolutionView{As: "satisfied", Evidence: []string{"https://example.org/r"}}
			}
			if got := a2a.Task(d).Status.State; len(want) == 0 || got != want[0] {
				t.Errorf("%s: Task gives %s, the document says %v", st, got, want)
			}
			seen++
		}
	}
	if seen != len(fold.States) {
		t.Errorf("the table maps %d states, there are %d", seen, len(fold.States))
	}
}

// TestDocWatchTable checks the document's task → watcher table against
// Classify.
func TestDocWatchTable(t *testing.T) {
	art := []*sdk.Artifact{{ID: "a1", Parts: sdk.ContentParts{sdk.NewTextPart("x")}}}
	for _, row := range docTable(t, "watch") {
		c := codes(row[0])
		if !strings.HasPrefix(c[0], "TASK_STATE_") { // the task the agent does not know
			if a := codes(row[1]); len(a) == 0 || a[0] != a2a.AssessUnknown {
				t.Errorf("%s: the document says %s, the watcher writes %s", row[0], row[1], a2a.AssessUnknown)
			}
			continue
		}
		task := &sdk.Task{ID: "t1", Status: sdk.TaskStatus{State: sdk.TaskState(c[0])}}
		if strings.Contains(row[0], "with an artifact") {
			task.Artifacts = art
		}
		f := a2a.Classify(task, a2a.AgentRef{Endpoint: "https://agent.example/rpc"})
		action := codes(row[1])
		switch {
		case strings.HasPrefix(row[1], "resolve"):
			if f.Verdict != a2a.Delivered || f.Evidence[0] != "a2a:https://agent.example/rpc/tasks/t1/artifacts/a1" {
				t.Errorf("%s: %+v, the document says %s", row[0], f, row[1])
			}
		case strings.HasPrefix(row[1], "assess"):
			if f.Verdict != a2a.Assessed || f.State != action[0] {
				t.Errorf("%s: %+v, the document says %s", row[0], f, row[1])
			}
		default:
			if f.Verdict != a2a.Pending {
				t.Errorf("%s: %+v, the document says %s", row[0], f, row[1])
			}
		}
	}
}
