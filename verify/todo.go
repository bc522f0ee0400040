package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/ledger"
)

// TodoKind is the kind of a todo binding target.
const TodoKind = "todo"

// The todo statuses. Any other status string is read, but is neither
// unfinished nor completed.
const (
	TodoPending    = "pending"
	TodoInProgress = "in_progress"
	TodoCompleted  = "completed"
)

func unfinished(status string) bool { return status == TodoPending || status == TodoInProgress }

// TodoTarget is a todo binding target, as BindTodo builds it:
//
//	{"kind":"todo","file":"/abs/todos.json","content":"Water the plants","id":"3",
//	 "index":2,"status":"pending","snapshot":"sha256:…"}
//
// File is absolute; Content is the item's exact text; ID is the item's id when
// the list gives items ids (then the id, with the content, is what identifies
// the item); Index is the item's 0-based position when bound (informational);
// Status is its status then, pending or in_progress; Snapshot is the digest of
// the whole file then.
type TodoTarget struct {
	Kind     string `json:"kind"`
	File     string `json:"file"`
	Content  string `json:"content"`
	ID       string `json:"id,omitempty"`
	Index    int    `json:"index"`
	Status   string `json:"status"`
	Snapshot string `json:"snapshot"`
}

// Ref is the target's reference: todo:FILE#CONTENT.
func (t *TodoTarget) Ref() string { return "todo:" + t.File + "#" + t.Content }

// todoItem is one item of a todo list file.
type todoItem struct {
	Content string
	Status  string
	ID      string // "" when the item has no id
}

// readTodos reads a todo list file: a JSON array of objects, each with a
// string "content" and a string "status", and optionally an "id" (a string or
// a number; null means none). Other fields are allowed and ignored. It
// returns the items and the digest of the file's bytes.
//
// Errors: CodeInvalid when the file is missing or not such a list (field
// "file"); CodeUnavailable when it cannot be read.
func readTodos(path string) ([]todoItem, string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", pinki.Invalid("file", "the todo list %s does not exist", path)
	}
	if err != nil {
		return nil, "", &pinki.Error{Code: pinki.CodeUnavailable, Field: "file",
			Message: fmt.Sprintf("cannot read the todo list %s: %v", path, err)}
	}
	bad := func(format string, args ...any) error {
		return pinki.Invalid("file", "the todo list %s is malformed: %s", path, fmt.Sprintf(format, args...)).
			WithHint("a todo list is a JSON array of objects with a string \"content\" and a string \"status\" (pending, in_progress, completed)")
	}
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, "", bad("%v", err)
	}
	items := make([]todoItem, len(raw))
	for i, obj := range raw {
		if obj == nil {
			return nil, "", bad("item %d is not an object", i)
		}
		var ok bool
		if items[i].Content, ok = jsonString(obj["content"]); !ok {
			return nil, "", bad("item %d has no string \"content\"", i)
		}
		if items[i].Status, ok = jsonString(obj["status"]); !ok {
			return nil, "", bad("item %d has no string \"status\"", i)
		}
		id, ok := todoID(obj["id"])
		if !ok {
			return nil, "", bad("item %d has an \"id\" that is neither a string nor a number", i)
		}
		items[i].ID = id
	}
	return items, digest(data), nil
}

// jsonString reads a JSON string (not null, not any other type).
func jsonString(raw json.RawMessage) (string, bool) {
	var s string
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// todoID reads an item's id: a string or a number (its literal), "" for none.
func todoID(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	if s, ok := jsonString(raw); ok {
		return s, true
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String(), true
	}
	return "", false
}

// BindTodo builds the binding target for the unfinished item whose text is
// exactly item in the todo list at file, for `pinki bind --todo` or a
// creation's Target. It reads the file now: the target records the file's
// absolute path, the item, its status and the digest of the file, which is
// the first observation of the item when the verifier's state file predates
// the binding (see Init).
//
// The item must be the only unfinished item with that text. When the list
// gives items no ids, it must also be the only item with that text at all
// (a completed twin would make every later observation ambiguous); with ids,
// the id tells twins apart.
//
// Errors: CodeInvalid (field "file") when the file is missing or malformed;
// CodeInvalid (field "content") when item is empty, when no unfinished item
// reads exactly item (saying so when a completed one does), or when several
// could be meant: BindTodo never guesses; CodeUnavailable when the file
// cannot be read.
func BindTodo(file, item string) (json.RawMessage, error) {
	if file == "" {
		return nil, pinki.Invalid("file", "name the todo list file to bind to")
	}
	if item == "" {
		return nil, pinki.Invalid("content", "name the todo item to bind to, by its exact text")
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, pinki.Invalid("file", "cannot make %s absolute: %v", file, err)
	}
	items, snap, err := readTodos(abs)
	if err != nil {
		return nil, err
	}
	var open, same []int
	for i, it := range items {
		if it.Content != item {
			continue
		}
		same = append(same, i)
		if unfinished(it.Status) {
			open = append(open, i)
		}
	}
	switch {
	case len(open) == 0 && len(same) > 0:
		return nil, pinki.Invalid("content", "the todo item %q in %s is already %s: only an unfinished item (pending or in_progress) can be bound", item, abs, items[same[0]].Status)
	case len(open) == 0:
		return nil, pinki.Invalid("content", "no todo item in %s reads exactly %q", abs, item).
			WithHint("give the item's exact text, as the list holds it")
	case len(open) > 1:
		return nil, pinki.Invalid("content", "%d unfinished todo items in %s read %q (items %s): pinki does not guess which one is meant", len(open), abs, item, indexes(open)).
			WithHint("reword one of them so that the item is unique")
	}
	it := items[open[0]]
	if it.ID == "" && len(same) > 1 {
		return nil, pinki.Invalid("content", "%d todo items in %s read %q (items %s) and the list gives them no ids: later observations could not tell them apart", len(same), abs, item, indexes(same)).
			WithHint("reword the unfinished item so that its text is unique in the list")
	}
	t := TodoTarget{Kind: TodoKind, File: abs, Content: it.Content, ID: it.ID, Index: open[0], Status: it.Status, Snapshot: snap}
	return json.Marshal(&t)
}

func indexes(ix []int) string {
	var b bytes.Buffer
	for i, n := range ix {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(n))
	}
	return b.String()
}

// parseTodoTarget reads a bound todo target.
func parseTodoTarget(spec json.RawMessage) (*TodoTarget, error) {
	var t TodoTarget
	if err := json.Unmarshal(spec, &t); err != nil {
		return nil, fmt.Errorf("not a todo target: %v", err)
	}
	switch {
	case t.Kind != TodoKind:
		return nil, fmt.Errorf("kind %q is not %q", t.Kind, TodoKind)
	case !filepath.IsAbs(t.File):
		return nil, fmt.Errorf("file %q is not an absolute path", t.File)
	case t.Content == "":
		return nil, errors.New("content is empty")
	case !unfinished(t.Status):
		return nil, fmt.Errorf("status %q at binding is not pending or in_progress", t.Status)
	}
	return &t, nil
}

// Todo is the todo-state delivery adapter. It verifies a state update, not
// the work behind it: a bound item of a todo list file moving from pending
// or in_progress to completed.
//
// An item is delivered only when the same continuous item moves from an
// unfinished status to completed, as seen by successive observations:
//   - in the bound file only (the same item in another file never counts);
//   - the same item: by its id and exact text when the list gives ids, else by
//     its exact text, which must name exactly one item in the list;
//   - seen present in every observation since the binding (the binding's own
//     snapshot is the first observation when the state file predates it).
//
// An observation that finds the item missing from a well-formed list
// (removed), or finds it twice (duplicated), or finds its id reading other
// text, breaks continuity for ever: re-adding the item does not count, and
// the target is reported Broken. A missing or malformed file is a transient
// error, not a removal. A completion seen without an unfinished status seen
// before it since the baseline (a deleted state file) does not count: the
// item must be seen unfinished again first.
type Todo struct{}

// Kind is "todo".
func (Todo) Kind() string { return TodoKind }

// Targets returns the obligation's todo bindings.
func (Todo) Targets(d *ledger.Detail) []Target {
	return Bindings(d, TodoKind, func(spec json.RawMessage) string {
		if t, err := parseTodoTarget(spec); err == nil {
			return t.Ref()
		}
		return "todo:" + digestJSON(spec)
	})
}

// todoMemory is what the todo adapter remembers of a target between
// observations.
type todoMemory struct {
	// Status is the item's status at the last observation; "" until a
	// baseline is known.
	Status string `json:"status,omitempty"`
	// Before is the file digest at the last observation of the item
	// unfinished.
	Before    string         `json:"before,omitempty"`
	Broken    string         `json:"broken,omitempty"`
	Delivered *todoDelivered `json:"delivered,omitempty"`
}

type todoDelivered struct {
	From   string `json:"from"`
	Before string `json:"before"`
	After  string `json:"after"`
}

// Observe reads the bound file once. See Todo for the rules.
//
// Errors: CodeInvalid (field "file") when the file is missing or malformed,
// CodeUnavailable when it cannot be read: transient, the memory is kept.
func (Todo) Observe(ctx context.Context, t Target, p Prior) (Observation, error) {
	spec, err := parseTodoTarget(t.Spec)
	if err != nil {
		return Observation{Verdict: Break("the binding is malformed: " + err.Error())}, nil
	}
	var m todoMemory
	if p.Memory != nil {
		if json.Unmarshal(p.Memory, &m) != nil {
			m = todoMemory{} // unreadable memory: re-baseline, as when it is lost
		}
	} else if p.Continuous {
		m.Status, m.Before = spec.Status, spec.Snapshot
	}
	obs := func(v Verdict) (Observation, error) {
		mem, err := json.Marshal(&m)
		return Observation{Verdict: v, Memory: mem}, err
	}
	if d := m.Delivered; d != nil {
		return obs(todoDelivery(spec, d))
	}
	if m.Broken != "" {
		return obs(Break(m.Broken))
	}
	items, snap, err := readTodos(spec.File)
	if err != nil {
		return Observation{}, err
	}
	var at []int
	for i, it := range items {
		if spec.ID != "" && it.ID == spec.ID || spec.ID == "" && it.Content == spec.Content {
			at = append(at, i)
		}
	}
	name := fmt.Sprintf("%q", spec.Content)
	if spec.ID != "" {
		name = fmt.Sprintf("%q (id %s)", spec.Content, spec.ID)
	}
	switch {
	case len(at) == 0:
		m.Broken = fmt.Sprintf("the item %s was removed from the list (snapshot %s): continuity is lost", name, snap)
		return obs(Break(m.Broken))
	case len(at) > 1:
		m.Broken = fmt.Sprintf("the item %s appears %d times in the list (snapshot %s): continuity is lost", name, len(at), snap)
		return obs(Break(m.Broken))
	case items[at[0]].Content != spec.Content:
		m.Broken = fmt.Sprintf("the item id %s now reads %q (snapshot %s): continuity is lost", spec.ID, items[at[0]].Content, snap)
		return obs(Break(m.Broken))
	}
	status := items[at[0]].Status
	switch {
	case unfinished(status):
		m.Status, m.Before = status, snap
		return obs(Wait(status))
	case status == TodoCompleted && unfinished(m.Status):
		m.Delivered = &todoDelivered{From: m.Status, Before: m.Before, After: snap}
		m.Status = status
		return obs(todoDelivery(spec, m.Delivered))
	case status == TodoCompleted:
		was := m.Status
		m.Status = status
		if was == TodoCompleted {
			return obs(Wait("completed, but not since it was last seen unfinished"))
		}
		return obs(Wait("completed, but the verifier has not seen it unfinished since it began watching it (a first pass over an older binding, or a lost state file): a completion counts only after the item is seen unfinished"))
	default:
		m.Status = status
		return obs(Wait(fmt.Sprintf("status %q is neither unfinished nor completed", status)))
	}
}

// todoDelivery is the verdict for a delivered item: the transition, and the
// item's reference with the file's snapshots before and after.
func todoDelivery(t *TodoTarget, d *todoDelivered) Verdict {
	return Deliver(d.From+" -> "+TodoCompleted, t.Ref(), "todo:"+t.File+"@"+d.Before, "todo:"+t.File+"@"+d.After)
}
