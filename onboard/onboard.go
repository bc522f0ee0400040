// Package onboard produces what `pinki onboard` prints for a user to paste:
// a neutral AGENTS.md paragraph naming the seat and the pinki commands, and
// session-start hook configurations that run `pinki prime --seat SEAT
// --tolerate-unknown` so that a restarted agent wakes up reading what its
// seat owes (even when the ledger holds a line this version cannot read).
// Write adds them to a project, only where asked, never overwriting a file
// or a hook.
//
// Hosts and their documented mechanisms, as this package was written:
//
//   - Claude Code: a SessionStart hook in .claude/settings.json (or
//     .claude/settings.local.json); the command's stdout is added to the
//     session's context, on startup, resume, /clear and compaction.
//     https://code.claude.com/docs/en/hooks#sessionstart
//   - Codex: a SessionStart hook in .codex/hooks.json, the same
//     {"hooks":{"SessionStart":[{"hooks":[{"type":"command",…}]}]}} shape;
//     plain stdout becomes model context (codex-rs/hooks/src/events/
//     session_start.rs, "plain_stdout_becomes_model_context"). Codex runs a
//     project hook only once the user has reviewed and trusted it.
//     https://developers.openai.com/codex/hooks
//   - Hosts that read AGENTS.md (Codex, Cursor, and others): the paragraph.
//
// Not covered, on purpose: Gemini CLI's SessionStart hook injects context
// only from JSON on stdout (hookSpecificOutput.additionalContext,
// google-gemini/gemini-cli docs/hooks/reference.md), which pinki prime does
// not print; Cursor documents a sessionStart hook in .cursor/hooks.json but
// its output contract is JSON too and is reported as rejected by some
// versions. Both are served by the AGENTS.md paragraph (Gemini CLI after
// setting context.fileName to AGENTS.md).
package onboard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/pinki-ledger/pinki"
)

// Target is a place Write can add a snippet to.
type Target string

// The targets.
const (
	// AgentsMD appends the paragraph to AGENTS.md.
	AgentsMD Target = "agents"
	// Claude adds the SessionStart hook to .claude/settings.json (shared
	// with the team through version control).
	Claude Target = "claude"
	// ClaudeLocal adds it to .claude/settings.local.json (this checkout only).
	ClaudeLocal Target = "claude-local"
	// Codex adds the SessionStart hook to .codex/hooks.json.
	Codex Target = "codex"
)

// Targets lists every target, in the order Snippets returns them.
var Targets = []Target{AgentsMD, Claude, ClaudeLocal, Codex}

// Snippet is one piece of onboarding: what to paste, and where.
type Snippet struct {
	Target Target `json:"target"`
	// Host is who reads it, for people.
	Host string `json:"host"`
	// Path is where it goes, slash-separated, relative to the project.
	Path string `json:"path"`
	// Text is what to paste: a Markdown paragraph, or a JSON document
	// holding the hook to merge into the file's "hooks".
	Text string `json:"text"`
	// Note says what the user must know beyond pasting, or is empty.
	Note string `json:"note,omitempty"`

	// command is the hook's command line, for Write; legacy is the command
	// an earlier pinki onboard wrote for the same seat; brief is the
	// paragraph's briefing command; seat is the seat.
	command, legacy, brief, seat string
}

// Snippets returns the onboarding for seat: the AGENTS.md paragraph and the
// session-start hooks, in the order of Targets. pinkiPath is how hooks and
// the paragraph invoke pinki ("" means "pinki", found on PATH).
//
// Errors: CodeInvalid when seat is empty, has control characters or is over
// 512 bytes, or pinkiPath has control characters.
func Snippets(seat, pinkiPath string) ([]Snippet, error) {
	seat = strings.TrimSpace(seat)
	if seat == "" {
		return nil, pinki.Invalid("seat", "no seat given: onboarding names the seat the agent acts as").
			WithHint("pinki onboard --seat SEAT")
	}
	if len(seat) > 512 || strings.IndexFunc(seat, unicode.IsControl) >= 0 {
		return nil, pinki.Invalid("seat", "seat %q is not a seat name: at most 512 bytes, no control characters", seat)
	}
	if pinkiPath == "" {
		pinkiPath = "pinki"
	}
	if strings.IndexFunc(pinkiPath, unicode.IsControl) >= 0 {
		return nil, pinki.Invalid("pinki", "the path to pinki %q holds a control character", pinkiPath)
	}
	pk, s := shellQuote(pinkiPath), shellQuote(seat)
	brief := pk + " prime --seat " + s
	// A hook must not lose the briefing to exit status 3 (a ledger line this
	// version cannot read): the host drops the output of a failing hook.
	command := brief + " --tolerate-unknown"
	compact, err := marshal(hookDoc(command))
	if err != nil {
		return nil, pinki.Errorf(pinki.CodeInternal, "encoding the hook: %v", err)
	}
	var hook bytes.Buffer
	json.Indent(&hook, compact, "", "  ") // compact is valid JSON

	paragraph := fmt.Sprintf(`## Promises (pinki)

This project records promises in a pinki ledger. You act as the seat `+"`%[3]s`"+`:
the promises it made, the requests it must answer and the agreements it is
party to are in the ledger, and outlast any session.

- What the seat owes and is owed: `+"`%[1]s prime --seat %[2]s`"+`
- Record a promise: `+"`%[1]s promise \"TEXT\" --by %[2]s --to SEAT --until +2h`"+` (a duration, or an instant with a zone)
- Resolve it: `+"`%[1]s resolve ID --satisfied --evidence REF`"+`, or `+"`--failed`"+` or `+"`--cancelled`"+` with `+"`--reason TEXT`"+`
- Move its deadline: `+"`%[1]s amend ID --until TIME --reason TEXT`"+`

Keep the seat's promises, and record in the ledger when one is kept, dropped or moved.
`, pk, s, seat)
	hookText := hook.String() + "\n"
	sn := []Snippet{
		{Target: AgentsMD, Host: "any host that reads AGENTS.md (Codex, Cursor, …)", Path: "AGENTS.md", Text: paragraph},
		{Target: Claude, Host: "Claude Code", Path: ".claude/settings.json", Text: hookText,
			Note: "Claude Code adds the briefing to the session's context at startup, resume, /clear and compaction."},
		{Target: ClaudeLocal, Host: "Claude Code (this checkout only)", Path: ".claude/settings.local.json", Text: hookText,
			Note: "Claude Code adds the briefing to the session's context at startup, resume, /clear and compaction."},
		{Target: Codex, Host: "Codex", Path: ".codex/hooks.json", Text: hookText,
			Note: "Codex runs a new project hook only once you have reviewed and trusted it."},
	}
	for i := range sn {
		sn[i].command, sn[i].legacy, sn[i].brief, sn[i].seat = command, brief, brief, seat
	}
	return sn, nil
}

// sectionHeading is the heading of the AGENTS.md paragraph.
const sectionHeading = "## Promises (pinki)"

// sectionSeats returns the seat each pinki section of an AGENTS.md names
// ("You act as the seat `S`"), "" for a section naming none.
func sectionSeats(text []byte) []string {
	var seats []string
	in := false
	for _, line := range strings.Split(string(text), "\n") {
		line = strings.TrimRight(line, " \t\r")
		switch {
		case line == sectionHeading:
			seats, in = append(seats, ""), true
			continue
		case strings.HasPrefix(line, "#"):
			in = false
		}
		if m := actsAs.FindStringSubmatch(line); in && m != nil && seats[len(seats)-1] == "" {
			seats[len(seats)-1] = m[1]
		}
	}
	return seats
}

var actsAs = regexp.MustCompile("You act as the seat `([^`]+)`")

// hookDoc is a settings document holding one SessionStart command hook. With
// no matcher it runs on every kind of session start.
func hookDoc(command string) map[string]any {
	return map[string]any{"hooks": map[string]any{"SessionStart": []any{hookGroup(command)}}}
}

// hookGroup is one matcher group holding one command hook.
func hookGroup(command string) any {
	type hook struct {
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	return struct {
		Hooks []hook `json:"hooks"`
	}{[]hook{{"command", command}}}
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9@%+=:,./_-]+$`)

// shellQuote quotes s for a POSIX shell, leaving it bare when that is safe.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Command is the command line the snippet runs: the hook's, or for the
// AGENTS.md paragraph the briefing command it tells the agent to run.
func (s Snippet) Command() string {
	if s.Target == AgentsMD {
		return s.brief
	}
	return s.command
}
