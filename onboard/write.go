package onboard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pinki-ledger/pinki"
)

// Action is what Write did to one file.
type Action string

// The actions.
const (
	// Created: the file did not exist and now holds the snippet.
	Created Action = "created"
	// Appended: the paragraph was appended to an existing AGENTS.md; its
	// earlier bytes are unchanged.
	Appended Action = "appended"
	// Added: the hook was added to an existing settings file, every other
	// key, value and hook kept, in order.
	Added Action = "added"
	// Present: the file already has it; nothing was written.
	Present Action = "present"
	// Outdated: the settings file has the hook an earlier pinki onboard
	// wrote for the seat (pinki prime --seat SEAT, which exits 3 when the
	// ledger holds a line this version cannot read, and the host then drops
	// the briefing); nothing was written: replace its command by hand.
	Outdated Action = "outdated"
)

// Result is what Write did for one target.
type Result struct {
	Target Target `json:"target"`
	Path   string `json:"path"`
	Action Action `json:"action"`
}

// Write adds the snippets for targets to the project folder dir: the
// paragraph is appended to AGENTS.md unless it already has the seat's pinki
// section or mentions the seat's prime command, and the hook is added to a
// settings file's SessionStart hooks unless a hook with the same command is
// there (Present), or the one an earlier version wrote (Outdated). It never
// overwrites a file, a key or a hook. It checks every target before writing
// any, so a refusal leaves every file as it was.
//
// Errors: CodeInvalid for a target with no snippet, and for an existing file
// it cannot safely add to (not valid JSON, duplicate keys, "hooks" or
// "SessionStart" of an unexpected type), naming the file; CodeConflict when
// AGENTS.md already has a pinki section for another seat (an agent acts as
// one seat: a second section would contradict the first), and when a file
// changed between the check and the write; CodeUnavailable for I/O
// failures. Results for the targets written before a failure are returned
// with it.
func Write(dir string, snippets []Snippet, targets ...Target) ([]Result, error) {
	var plans []plan
	for i, t := range targets {
		if slices.Contains(targets[:i], t) {
			continue
		}
		sn, ok := find(snippets, t)
		if !ok {
			return nil, pinki.Invalid("target", "no snippet for target %q: targets are %s", t, targetList())
		}
		p, err := prepare(dir, sn)
		if err != nil {
			return nil, err
		}
		plans = append(plans, p)
	}
	var results []Result
	for _, p := range plans {
		if err := p.apply(); err != nil {
			return results, err
		}
		results = append(results, Result{Target: p.target, Path: p.path, Action: p.action})
	}
	return results, nil
}

func find(snippets []Snippet, t Target) (Snippet, bool) {
	for _, s := range snippets {
		if s.Target == t {
			return s, true
		}
	}
	return Snippet{}, false
}

func targetList() string {
	var names []string
	for _, t := range Targets {
		names = append(names, string(t))
	}
	return strings.Join(names, ", ")
}

// plan is one file's change, decided against what the file held (old, nil
// when absent).
type plan struct {
	target Target
	path   string
	action Action
	old    []byte
	data   []byte // the whole new file (Created, Added) or the bytes to append
}

func prepare(dir string, sn Snippet) (plan, error) {
	p := plan{target: sn.Target, path: filepath.Join(dir, filepath.FromSlash(sn.Path))}
	old, err := os.ReadFile(p.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		p.action, p.data = Created, []byte(sn.Text)
		return p, nil
	case err != nil:
		return p, pinki.Errorf(pinki.CodeUnavailable, "reading %s: %v", p.path, err)
	}
	p.old = old
	if sn.Target == AgentsMD {
		seats := sectionSeats(old)
		if slices.Contains(seats, sn.seat) || mentions(old, sn.brief) {
			p.action = Present
			return p, nil
		}
		if len(seats) > 0 {
			whose := "names no seat"
			if seats[0] != "" {
				whose = fmt.Sprintf("is for seat %q", seats[0])
			}
			return p, (&pinki.Error{Code: pinki.CodeConflict, Field: sn.Path,
				Message: fmt.Sprintf("%s already has a %q section, which %s: an agent acts as one seat, so a second section for %q would contradict it; nothing was written",
					p.path, sectionHeading, whose, sn.seat)}).
				WithHint("edit that section by hand, or onboard this seat in its own checkout (--dir)")
		}
		sep := "\n"
		if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
			sep = "\n\n"
		}
		p.action, p.data = Appended, []byte(sep+sn.Text)
		return p, nil
	}
	merged, action, err := addHook(old, sn.command, sn.legacy)
	if err != nil {
		return p, (&pinki.Error{Code: pinki.CodeInvalid, Field: sn.Path,
			Message: fmt.Sprintf("%s: %v; nothing was written", p.path, err)}).
			WithHint("fix the file, or add the hook by hand (pinki onboard prints it)")
	}
	p.action, p.data = action, merged
	return p, nil
}

// mentions reports whether text holds command as a whole command line: not
// followed by more of a seat name (desk/a is not desk/ab).
func mentions(text []byte, command string) bool {
	for rest := text; ; {
		i := bytes.Index(rest, []byte(command))
		if i < 0 {
			return false
		}
		rest = rest[i+len(command):]
		if len(rest) == 0 || strings.ContainsRune(" \t\r\n`'\")", rune(rest[0])) {
			return true
		}
	}
}

func (p plan) apply() error {
	switch p.action {
	case Present, Outdated:
		return nil
	case Created:
		if err := os.MkdirAll(filepath.Dir(p.path), 0o755); err != nil {
			return pinki.Errorf(pinki.CodeUnavailable, "creating %s: %v", filepath.Dir(p.path), err)
		}
		f, err := os.OpenFile(p.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			return changed(p.path)
		}
		if err != nil {
			return pinki.Errorf(pinki.CodeUnavailable, "creating %s: %v", p.path, err)
		}
		return finish(f, p.data)
	}
	if now, err := os.ReadFile(p.path); err != nil || !bytes.Equal(now, p.old) {
		return changed(p.path)
	}
	if p.action == Appended {
		f, err := os.OpenFile(p.path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return pinki.Errorf(pinki.CodeUnavailable, "opening %s: %v", p.path, err)
		}
		return finish(f, p.data)
	}
	// Added: write the merged file beside it and rename it into place, so
	// that a crash leaves the old file or the new one, never half of one.
	info, err := os.Stat(p.path)
	if err != nil {
		return pinki.Errorf(pinki.CodeUnavailable, "reading %s: %v", p.path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p.path), "."+filepath.Base(p.path)+".pinki-*")
	if err != nil {
		return pinki.Errorf(pinki.CodeUnavailable, "writing beside %s: %v", p.path, err)
	}
	if err := finish(tmp, p.data); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), info.Mode().Perm()); err != nil {
		os.Remove(tmp.Name())
		return pinki.Errorf(pinki.CodeUnavailable, "writing %s: %v", p.path, err)
	}
	if err := os.Rename(tmp.Name(), p.path); err != nil {
		os.Remove(tmp.Name())
		return pinki.Errorf(pinki.CodeUnavailable, "writing %s: %v", p.path, err)
	}
	return nil
}

func finish(f *os.File, data []byte) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return pinki.Errorf(pinki.CodeUnavailable, "writing %s: %v", f.Name(), err)
	}
	return nil
}

func changed(path string) error {
	return (&pinki.Error{Code: pinki.CodeConflict, Field: "path",
		Message: fmt.Sprintf("%s changed while onboarding wrote to it; nothing more was written", path)}).
		WithHint("run pinki onboard --write again")
}

// addHook adds a SessionStart command hook running command to a settings
// document (Added, and the merged document), unless one with that command
// exists (Present) or one with the legacy command (Outdated). Every other
// key and value is kept as written, in order; the result is indented with
// two spaces.
func addHook(doc []byte, command, legacy string) (merged []byte, action Action, err error) {
	root, err := decodeObject(doc)
	if err != nil {
		return nil, "", err
	}
	hooks := object{}
	if raw, ok := root.get("hooks"); ok {
		if hooks, err = decodeObject(raw); err != nil {
			return nil, "", fmt.Errorf("\"hooks\": %w", err)
		}
	}
	var groups []json.RawMessage
	if raw, ok := hooks.get("SessionStart"); ok {
		if err := json.Unmarshal(raw, &groups); err != nil || groups == nil {
			return nil, "", fmt.Errorf("\"hooks\".\"SessionStart\" is not an array")
		}
	}
	action = Added
	for _, g := range groups {
		var group struct {
			Hooks []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
			} `json:"hooks"`
		}
		if json.Unmarshal(g, &group) != nil {
			continue // someone else's shape: keep it, it is not ours
		}
		for _, h := range group.Hooks {
			switch c := strings.TrimSpace(h.Command); {
			case h.Type != "command":
			case c == command:
				return nil, Present, nil
			case c == legacy:
				action = Outdated
			}
		}
	}
	if action == Outdated {
		return nil, Outdated, nil
	}
	ours, err := marshal(hookGroup(command))
	if err != nil {
		return nil, "", err
	}
	list, err := marshal(append(groups, ours))
	if err != nil {
		return nil, "", err
	}
	hooks.set("SessionStart", list)
	root.set("hooks", hooks.encode())
	var out bytes.Buffer
	if err := json.Indent(&out, root.encode(), "", "  "); err != nil {
		return nil, "", err
	}
	out.WriteByte('\n')
	return out.Bytes(), Added, nil
}

// object is a JSON object that keeps its members' order and raw values.
type object []member

type member struct {
	key   string
	value json.RawMessage
}

// decodeObject decodes a JSON object, refusing anything else and duplicate
// keys (which a reader would resolve one way or another).
func decodeObject(doc []byte) (object, error) {
	d := json.NewDecoder(bytes.NewReader(doc))
	d.UseNumber()
	tok, err := d.Token()
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	if delim, ok := tok.(json.Delim); !ok || delim != '{' {
		return nil, fmt.Errorf("not a JSON object")
	}
	var o object
	seen := map[string]bool{}
	for d.More() {
		tok, err := d.Token()
		if err != nil {
			return nil, fmt.Errorf("not valid JSON: %v", err)
		}
		key := tok.(string)
		if seen[key] {
			return nil, fmt.Errorf("the key %q appears twice", key)
		}
		seen[key] = true
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, fmt.Errorf("not valid JSON: %v", err)
		}
		o = append(o, member{key, v})
	}
	if _, err := d.Token(); err != nil {
		return nil, fmt.Errorf("not valid JSON: %v", err)
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, fmt.Errorf("not valid JSON: text after the object")
	}
	return o, nil
}

func (o object) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}

// set replaces key's value in place, or appends it.
func (o *object) set(key string, v json.RawMessage) {
	for i, m := range *o {
		if m.key == key {
			(*o)[i].value = v
			return
		}
	}
	*o = append(*o, member{key, v})
}

func (o object) encode() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// marshal encodes v as compact JSON without escaping <, > and &, which
// settings files written by people do not escape either.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
