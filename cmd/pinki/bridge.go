package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/bridge"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

const bridgeUsage = "pinki bridge MESSAGE --propose --by DEBTOR --to CREDITOR --until ISO"

// bridgeOutput is what `pinki bridge --json` prints: the act, the commands a
// host may run for it, and the proposal when --propose recorded one.
type bridgeOutput struct {
	bridge.Act
	Commands []string        `json:"commands,omitempty"`
	Recorded *ledger.Receipt `json:"recorded,omitempty"`
}

func (a *app) bridgeCommand() *cobra.Command {
	var seat string
	var propose bool
	c := &creation{kind: fold.KindAgreement, verb: "bridge", usage: bridgeUsage}
	var proposer string
	cmd := &cobra.Command{
		Use:   "bridge [MESSAGE | -] [--seat SEAT] [--propose --by DEBTOR --to CREDITOR --until DEADLINE]",
		Short: "Say whether a chat message is an explicit agreement act (propose, accept, cancel)",
		Long: `Read one chat message (the argument, or stdin with - or no argument) and say
whether it is an explicit agreement act, from a fixed table of phrases in
English and Chinese: "Let's agree: TERMS" / "我们约定：TERMS" proposes;
"I accept this agreement" / "我接受这个约定" accepts; "Cancel this agreement" /
"取消这个约定" cancels. Anything else (ordinary promises, requests to
remember, instructions, paraphrases, questions, negations) is none, with
the reason.

An accept or cancel names "this agreement": the open agreements of --seat
(default --as; none: every open agreement in the ledger) are the
candidates. Exactly one is the target, and the command to run is printed
(with --as SEAT when the seat is known, so that it runs as printed); two or
more are ambiguous, and listed, so that the host asks which one.

The bridge records nothing by itself, and never accepts. With --propose
(and --by, --to, --until) it records a propose act as a proposal, which
implies nobody's acceptance; any other act is only printed.

Exits 0 for any classification; 2 for usage, and for --propose on a
proposal with empty terms.`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			msg, err := a.bridgeMessage(args)
			if err != nil {
				return err
			}
			if propose {
				// Check the flags before reading anything.
				if err := a.require(c); err != nil {
					return err
				}
				if err := a.refuseNowOnServer(); err != nil {
					return err
				}
			}
			if seat == "" {
				seat = a.seat
			}
			api, err := a.api()
			if err != nil {
				return err
			}
			if seat == "" && a.at == onServer {
				// A seat's token: that seat is the one asking.
				who, err := a.whoAmI()
				if err != nil {
					return err
				}
				if who.Role == pinki.RoleSeat {
					seat = who.Seat
				}
			}
			page, err := api.List(a.ctx, a.identity(), ledger.Filter{Scope: ledger.ScopeOpen, Kind: fold.KindAgreement,
				Party: seat, Now: a.queryNow()})
			if err != nil {
				return err
			}
			act := bridge.Read(msg, bridge.CandidatesFrom(page.Items))
			if act.Intent == bridge.Accept && seat != "" {
				// A seat accepts only what awaits its own acceptance.
				act = bridge.Read(msg, bridge.CandidatesFrom(awaiting(page.Items, seat)))
			}
			out := bridgeOutput{Act: act}
			switch {
			case propose && act.Refusal != nil:
				return act.Refusal
			case propose && act.Kind == bridge.Propose:
				in, err := a.input(c, act.Terms)
				if err != nil {
					return err
				}
				in.Proposer = proposer
				r, err := api.Create(a.ctx, a.identity(), in)
				if err != nil {
					return err
				}
				for _, w := range r.Warnings {
					a.warn("%s", w)
				}
				out.Recorded = &r
			default:
				out.Commands = bridgeCommands(act, c, page.Items, seat)
			}
			if a.jsonOut {
				return a.printJSON(out)
			}
			_, err = io.WriteString(a.stdout, renderAct(out))
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&seat, "seat", "", "whose open agreements an accept or cancel may name (default: --as)")
	f.BoolVar(&propose, "propose", false, "record a propose act as a proposal (needs --by, --to, --until)")
	f.StringVar(&c.by, "by", "", "with --propose: the debtor of the proposed agreement")
	f.StringVar(&c.to, "to", "", "with --propose: the creditor")
	f.StringVar(&c.until, "until", "", "with --propose: the deadline (an RFC 3339 instant with a zone, or a duration)")
	f.StringVar(&c.id, "id", "", "with --propose: a caller-supplied id (default: minted)")
	f.StringVar(&proposer, "proposer", "", "with --propose, when --as is not given: which party proposes, by or to")
	return cmd
}

// bridgeMessage is the message: the argument, or stdin for "-" or none.
//
// Errors: CodeInvalid when stdin is a terminal or cannot be read.
func (a *app) bridgeMessage(args []string) (string, error) {
	if len(args) == 1 && args[0] != "-" {
		return args[0], nil
	}
	if len(args) == 0 && a.stdinIsTerminal() {
		return "", usageError("no message given: pinki bridge MESSAGE, or pipe the message on stdin")
	}
	return a.readFile("message", "-")
}

// awaiting keeps the agreements that await seat's acceptance: proposed, and
// not yet accepted by it at the current terms.
func awaiting(items []ledger.Item, seat string) []ledger.Item {
	var out []ledger.Item
	for _, it := range items {
		accepted := false
		for _, by := range it.Accepted {
			accepted = accepted || by == seat
		}
		if it.State == fold.Proposed && !accepted {
			out = append(out, it)
		}
	}
	return out
}

// bridgeCommands are the pinki commands a host may run for act, as they
// can be run literally: the proposal (with the flags given, else
// placeholders), the accept, or the decline (resolve --cancelled by the
// debtor, --released by the creditor: only the one for seat when it is a
// party). When seat is known each names it with --as, so that it runs
// without $PINKI_SEAT.
func bridgeCommands(act bridge.Act, c *creation, items []ledger.Item, seat string) []string {
	or := func(v, placeholder string) string {
		if strings.TrimSpace(v) == "" {
			return placeholder
		}
		return shellWord(v)
	}
	as := ""
	if seat != "" {
		as = " --as " + shellWord(seat)
	}
	switch act.Kind {
	case bridge.Propose:
		return []string{fmt.Sprintf("pinki propose %s --by %s --to %s --until %s%s", shellWord(act.Terms),
			or(c.by, "DEBTOR"), or(c.to, "CREDITOR"), or(c.until, "DEADLINE"), as)}
	case bridge.Accept:
		return []string{fmt.Sprintf("pinki accept %s --rev %d%s", shellWord(act.Target.ID), act.Target.Rev, as)}
	case bridge.Cancel:
		var by, to string
		for _, it := range items {
			if it.ID == act.Target.ID {
				by, to = it.By, it.To
			}
		}
		id, rev := shellWord(act.Target.ID), act.Target.Rev
		cancel := fmt.Sprintf("pinki resolve %s --cancelled --reason REASON --rev %d", id, rev)
		release := fmt.Sprintf("pinki resolve %s --released --rev %d", id, rev)
		switch seat {
		case by:
			return []string{cancel + as}
		case to:
			return []string{release + as}
		}
		return []string{cancel, release}
	}
	return nil
}

// renderAct is the act for people: the act and its phrase, then labelled
// lines (the terms, the target, the candidates, the commands).
func renderAct(o bridgeOutput) string {
	var b strings.Builder
	line := func(label, value string) { fmt.Fprintf(&b, "  %-10s%s\n", label, value) }
	phrase := ""
	if o.Phrase != "" {
		phrase = fmt.Sprintf("  %q (%s)", o.Phrase, o.Lang)
	}
	switch o.Kind {
	case bridge.Propose:
		fmt.Fprintf(&b, "propose%s\n", phrase)
		line("terms", o.Terms)
		if o.Recorded != nil {
			line("recorded", o.Recorded.ID+"  "+string(o.Recorded.State))
		}
	case bridge.Accept, bridge.Cancel:
		fmt.Fprintf(&b, "%s %s rev %d%s\n", o.Kind, o.Target.ID, o.Target.Rev, phrase)
		line("terms", o.Target.Terms)
		if o.Target.State != "" {
			line("state", string(o.Target.State))
		}
	case bridge.Ambiguous:
		fmt.Fprintf(&b, "ambiguous %s%s\n", o.Intent, phrase)
		line("reason", o.Reason)
		var rows [][]cell
		for _, c := range o.Candidates {
			rows = append(rows, []cell{{text: c.ID}, {text: fmt.Sprintf("rev %d", c.Rev)}, {text: string(c.State)}, {text: ledger.Clip(c.Terms, 56)}})
		}
		for _, l := range strings.SplitAfter(table(rows, false), "\n") {
			if l != "" {
				b.WriteString("  - " + l)
			}
		}
	default:
		fmt.Fprintf(&b, "none%s\n", phrase)
		line("reason", o.Reason)
	}
	for _, c := range o.Commands {
		line("run", c)
	}
	return b.String()
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("@%+=:,./_-", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
