package main

import (
	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki"
)

// hookOutput is the JSON a host's SessionStart command hook prints to add
// text to the session's context (Claude Code, Codex and Gemini CLI read the
// same shape).
type hookOutput struct {
	HookSpecificOutput struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

func (a *app) primeCommand() *cobra.Command {
	var seat, hook string
	cmd := readVerb(&cobra.Command{
		Use:   "prime --seat SEAT [--hook claude|codex|gemini]",
		Short: "Print a seat's session-start briefing (under 2 KB)",
		Long: `Print a compact briefing for an agent's session start: what the seat owes
(overdue first, then by deadline), requests awaiting its answer, proposals
awaiting its acceptance, and what it is owed. It stays under 2 KB and says
how many items it left out.

--hook HOST prints the briefing wrapped in the JSON a SessionStart command
hook of that host reads ({"hookSpecificOutput":{"hookEventName":
"SessionStart","additionalContext":…}}; claude, codex and gemini read the
same), and exits 0 even when the ledger holds lines this version does not
understand (the warnings still go to stderr), so that the host takes the
briefing.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch hook {
			case "", "claude", "codex", "gemini":
			default:
				return &pinki.Error{Code: pinki.CodeInvalid, Field: "hook",
					Message: "--hook " + quote(hook) + " is not a host: claude, codex or gemini"}
			}
			if hook != "" && a.jsonOut {
				return usageError("--hook and --json cannot go together: --hook prints the host's JSON")
			}
			api, err := a.api()
			if err != nil {
				return err
			}
			b, err := api.Prime(a.ctx, a.identity(), a.seatQuery(seat))
			if err != nil {
				return err
			}
			switch {
			case a.jsonOut:
				return a.printJSON(b)
			case hook != "":
				a.tolerate = true
				var out hookOutput
				out.HookSpecificOutput.HookEventName = "SessionStart"
				out.HookSpecificOutput.AdditionalContext = b.Text
				line, err := compactJSON(out)
				if err != nil {
					return err
				}
				_, err = a.stdout.Write(line)
				return err
			}
			_, err = a.stdout.Write([]byte(b.Text))
			return err
		},
	})
	cmd.Flags().StringVar(&seat, "seat", "", "the seat (default: --as)")
	cmd.Flags().StringVar(&hook, "hook", "", "print the briefing as a SessionStart hook's JSON for this host: claude, codex or gemini")
	return cmd
}
