package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/onboard"
)

func (a *app) onboardCommand() *cobra.Command {
	var seat, write, dir string
	cmd := &cobra.Command{
		Use:   "onboard --seat SEAT [--write agents,claude,claude-local,codex] [--dir DIR]",
		Short: "Print (or add) the AGENTS.md paragraph and session-start hooks for a seat",
		Long: `Print what to paste so that an agent acting as SEAT wakes up reading what
the seat owes: a paragraph for AGENTS.md, and SessionStart hooks running
pinki prime --seat SEAT --tolerate-unknown for Claude Code
(.claude/settings.json, or .claude/settings.local.json for this checkout
only) and Codex (.codex/hooks.json). SEAT defaults to --as; against a
server, to the seat of the token.

--write adds the named ones to the project folder --dir (default: here):
agents appends the paragraph to AGENTS.md, the others add the hook to the
settings file. It never overwrites a file, a key or a hook: what is already
there is left as it is (present; outdated for the plain pinki prime hook an
earlier version wrote, with a warning), an AGENTS.md that already has
another seat's pinki section is refused (exit 4), and so is a file it
cannot safely add to (exit 2), before anything is written. Prints
TARGET<TAB>PATH<TAB>ACTION per target (created, appended, added, present,
outdated).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if strings.TrimSpace(seat) == "" {
				seat = a.seat
			}
			if strings.TrimSpace(seat) == "" && a.at == onServer {
				// A seat's token: that seat is the one onboarded.
				who, err := a.whoAmI()
				if err != nil {
					return err
				}
				if who.Role == pinki.RoleSeat {
					seat = who.Seat
				}
			}
			snippets, err := onboard.Snippets(seat, "")
			if err != nil {
				return err
			}
			if !cmd.Flags().Changed("write") {
				if a.jsonOut {
					return a.printJSON(snippets)
				}
				_, err := a.stdout.Write([]byte(renderSnippets(snippets)))
				return err
			}
			var targets []onboard.Target
			for _, t := range strings.Split(write, ",") {
				if t = strings.TrimSpace(t); t != "" {
					targets = append(targets, onboard.Target(t))
				}
			}
			if len(targets) == 0 {
				return &pinki.Error{Code: pinki.CodeInvalid, Field: "write",
					Message: "--write names no target: give one or more of agents, claude, claude-local, codex"}
			}
			results, err := onboard.Write(dir, snippets, targets...)
			for _, r := range results {
				if r.Action == onboard.Outdated {
					a.warn("%s runs pinki prime without --tolerate-unknown, so a ledger line this version cannot read costs the session its briefing: change its command to %s", r.Path, quote(hookCommand(snippets)))
				}
			}
			if a.jsonOut && err == nil {
				return a.printJSON(results)
			}
			for _, r := range results {
				if err != nil {
					// Nothing on stdout on error: what was written goes to stderr.
					a.note("%s\t%s\t%s", r.Target, r.Path, r.Action)
					continue
				}
				fmt.Fprintf(a.stdout, "%s\t%s\t%s\n", r.Target, r.Path, r.Action)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&seat, "seat", "", "the seat the agent acts as (default: --as, else a server token's seat)")
	f.StringVar(&write, "write", "", "add these to the project instead of printing them: agents, claude, claude-local, codex (comma-separated)")
	f.StringVar(&dir, "dir", ".", "with --write: the project folder")
	return cmd
}

// renderSnippets lays the snippets out for a person to paste: a heading per
// target naming the file and the host, the note, then the text.
func renderSnippets(snippets []onboard.Snippet) string {
	var b strings.Builder
	for i, s := range snippets {
		if i > 0 {
			b.WriteByte('\n')
		}
		verb := "merge into"
		if s.Target == onboard.AgentsMD {
			verb = "append to"
		}
		fmt.Fprintf(&b, "==> %s %s, for %s; --write %s\n", verb, s.Path, s.Host, s.Target)
		if s.Note != "" {
			fmt.Fprintf(&b, "# %s\n", s.Note)
		}
		b.WriteString(s.Text)
		if !strings.HasSuffix(s.Text, "\n") {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// hookCommand is the command the session-start hooks run.
func hookCommand(snippets []onboard.Snippet) string {
	for _, s := range snippets {
		if s.Target != onboard.AgentsMD {
			return s.Command()
		}
	}
	return ""
}
