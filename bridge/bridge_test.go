package bridge_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/bridge"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

var (
	proposal = bridge.Candidate{ID: "pnk_a1b2c3", Rev: 2, Terms: "start with the conclusion", State: fold.Proposed}
	second   = bridge.Candidate{ID: "pnk_d4e5f6", Rev: 1, Terms: "reply in Chinese", State: fold.Proposed}
	agreed   = bridge.Candidate{ID: "pnk_0a0b0c", Rev: 4, Terms: "water the plants", State: fold.Detached}
	late     = bridge.Candidate{ID: "pnk_0d0e0f", Rev: 4, Terms: "file the report", State: fold.Overdue}
	done     = bridge.Candidate{ID: "pnk_111111", Rev: 5, Terms: "old terms", State: fold.Satisfied}
	lapsed   = bridge.Candidate{ID: "pnk_222222", Rev: 1, Terms: "expired terms", State: fold.Expired}
	hosted   = bridge.Candidate{ID: "pnk_333333", Rev: 3, Terms: "no state given"}
)

// TestPhrases is the whole phrase table with its near misses, one open
// proposal in the conversation.
func TestPhrases(t *testing.T) {
	open := []bridge.Candidate{proposal}
	cases := []struct {
		msg    string
		kind   bridge.Kind
		terms  string // propose
		phrase string
		lang   string
	}{
		// propose, English
		{"Let's agree: next time we discuss a plan, start with the conclusion and then explain the reasons.", bridge.Propose,
			"next time we discuss a plan, start with the conclusion and then explain the reasons.", "Let's agree:", "en"},
		{"Let us agree: reply in English", bridge.Propose, "reply in English", "Let us agree:", "en"},
		{"let's agree: lower case", bridge.Propose, "lower case", "Let's agree:", "en"},
		{"LET'S AGREE: UPPER CASE", bridge.Propose, "UPPER CASE", "Let's agree:", "en"},
		{"LET US AGREE: upper us", bridge.Propose, "upper us", "Let us agree:", "en"},
		{"Let’s agree: curly apostrophe", bridge.Propose, "curly apostrophe", "Let's agree:", "en"},
		{"  \n Let's agree:   padded terms  \n", bridge.Propose, "padded terms", "Let's agree:", "en"},
		{"Let's agree:no space", bridge.Propose, "no space", "Let's agree:", "en"},
		{"Let's agree : space before colon", bridge.Propose, "space before colon", "Let's agree:", "en"},
		{"Let us  agree:\tdouble space", bridge.Propose, "double space", "Let us agree:", "en"},
		{"Let's agree：full-width colon", bridge.Propose, "full-width colon", "Let's agree:", "en"},
		{"Let's agree: mark todo \"Organize reading notes\" as completed!", bridge.Propose,
			"mark todo \"Organize reading notes\" as completed!", "Let's agree:", "en"},
		{"Let's agree:\n1. start with the conclusion\n2. then the reasons", bridge.Propose,
			"1. start with the conclusion\n2. then the reasons", "Let's agree:", "en"},
		{"Let's agree: I accept this agreement", bridge.Propose, "I accept this agreement", "Let's agree:", "en"},
		// propose, Chinese
		{"我们约定：下次讨论计划时，先说结论再解释原因。", bridge.Propose, "下次讨论计划时，先说结论再解释原因。", "我们约定：", "zh"},
		{"我们约定:下次先说结论", bridge.Propose, "下次先说结论", "我们约定：", "zh"},
		{"我们约定: 下次先说结论", bridge.Propose, "下次先说结论", "我们约定：", "zh"},
		{"\u3000我们约定：全角空格\u3000", bridge.Propose, "全角空格", "我们约定：", "zh"},
		// accept
		{"I accept this agreement", bridge.Accept, "", "I accept this agreement", "en"},
		{"I accept this agreement.", bridge.Accept, "", "I accept this agreement", "en"},
		{"I accept this agreement!", bridge.Accept, "", "I accept this agreement", "en"},
		{"i accept THIS agreement!!", bridge.Accept, "", "I accept this agreement", "en"},
		{"  I  accept   this agreement .  ", bridge.Accept, "", "I accept this agreement", "en"},
		{"I accept the agreement", bridge.Accept, "", "I accept the agreement", "en"},
		{"I accept the agreement。", bridge.Accept, "", "I accept the agreement", "en"},
		{"我接受这个约定", bridge.Accept, "", "我接受这个约定", "zh"},
		{"我接受这个约定。", bridge.Accept, "", "我接受这个约定", "zh"},
		{"我接受这个约定！", bridge.Accept, "", "我接受这个约定", "zh"},
		{" 我接受这个约定 ", bridge.Accept, "", "我接受这个约定", "zh"},
		// cancel
		{"Cancel this agreement", bridge.Cancel, "", "Cancel this agreement", "en"},
		{"cancel this agreement.", bridge.Cancel, "", "Cancel this agreement", "en"},
		{"Cancel the agreement!", bridge.Cancel, "", "Cancel the agreement", "en"},
		{"cancel the agreement", bridge.Cancel, "", "Cancel the agreement", "en"},
		{"取消这个约定", bridge.Cancel, "", "取消这个约定", "zh"},
		{"取消这个约定。", bridge.Cancel, "", "取消这个约定", "zh"},
		{"取消这个约定！", bridge.Cancel, "", "取消这个约定", "zh"},

		// near misses: none
		{"", bridge.None, "", "", ""},
		{"   ", bridge.None, "", "", ""},
		// ordinary promises and plans
		{"I promise to water the plants tomorrow", bridge.None, "", "", ""},
		{"I'll do it tomorrow.", bridge.None, "", "", ""},
		{"我保证明天浇花", bridge.None, "", "", ""},
		// requests to remember a fact
		{"remember that my name is Ada", bridge.None, "", "", ""},
		{"Remember: I prefer short answers", bridge.None, "", "", ""},
		{"记住我的名字是小明", bridge.None, "", "", ""},
		{"记住：我喜欢简短的回答", bridge.None, "", "", ""},
		// one-off instructions
		{"next time start with the conclusion", bridge.None, "", "", ""},
		{"Next time, do X.", bridge.None, "", "", ""},
		{"下次先说结论", bridge.None, "", "", ""},
		// questions
		{"should we agree to start with the conclusion?", bridge.None, "", "", ""},
		{"Should we agree: start with the conclusion?", bridge.None, "", "", ""},
		{"Let's agree: shall we meet at five?", bridge.None, "", "", ""},
		{"I accept this agreement?", bridge.None, "", "", ""},
		{"Do you accept this agreement?", bridge.None, "", "", ""},
		{"我接受这个约定吗？", bridge.None, "", "", ""},
		{"我们约定：下次先说结论？", bridge.None, "", "", ""},
		{"Cancel this agreement?", bridge.None, "", "", ""},
		// negations
		{"I don't accept this agreement", bridge.None, "", "", ""},
		{"I do not accept this agreement.", bridge.None, "", "", ""},
		{"I never accept the agreement", bridge.None, "", "", ""},
		{"我不接受这个约定", bridge.None, "", "", ""},
		{"我不接受这个约定。", bridge.None, "", "", ""},
		{"Don't cancel this agreement", bridge.None, "", "", ""},
		{"Do not cancel the agreement!", bridge.None, "", "", ""},
		{"不要取消这个约定", bridge.None, "", "", ""},
		{"别取消这个约定", bridge.None, "", "", ""},
		// quoted or embedded
		{`"I accept this agreement"`, bridge.None, "", "", ""},
		{"“I accept this agreement”", bridge.None, "", "", ""},
		{"「我接受这个约定」", bridge.None, "", "", ""},
		{"He said I accept this agreement", bridge.None, "", "", ""},
		{"If you say I accept this agreement, it is recorded.", bridge.None, "", "", ""},
		{"I accept this agreement, but only on weekdays", bridge.None, "", "", ""},
		{"I accept this agreement\nand another thing", bridge.None, "", "", ""},
		{"OK. Let's agree: start with the conclusion", bridge.None, "", "", ""},
		{"> Let's agree: quoted in markdown", bridge.None, "", "", ""},
		{`"Let's agree: quoted"`, bridge.None, "", "", ""},
		{"好的，我们约定：下次先说结论", bridge.None, "", "", ""},
		{"他说取消这个约定", bridge.None, "", "", ""},
		{"Please cancel this agreement", bridge.None, "", "", ""},
		// paraphrase
		{"I agree", bridge.None, "", "", ""},
		{"OK", bridge.None, "", "", ""},
		{"Sounds good, deal!", bridge.None, "", "", ""},
		{"I accept", bridge.None, "", "", ""},
		{"I accept it", bridge.None, "", "", ""},
		{"I accepted this agreement", bridge.None, "", "", ""},
		{"I accept these agreements", bridge.None, "", "", ""},
		{"I accept this agreement…", bridge.None, "", "", ""},
		{"I accept this agmt", bridge.None, "", "", ""},
		{"Cancel", bridge.None, "", "", ""},
		{"cancel it", bridge.None, "", "", ""},
		{"Cancel this agreement now", bridge.None, "", "", ""},
		{"我同意这个约定", bridge.None, "", "", ""},
		{"我接受", bridge.None, "", "", ""},
		{"我接受此约定", bridge.None, "", "", ""},
		{"取消", bridge.None, "", "", ""},
		{"好的", bridge.None, "", "", ""},
		{"We agree: start with the conclusion", bridge.None, "", "", ""},
		{"Let's agree to start with the conclusion", bridge.None, "", "", ""},
		{"Let's agree that we start with the conclusion", bridge.None, "", "", ""},
		{"Lets agree: no apostrophe", bridge.None, "", "", ""},
		{"Let's agreed: past tense", bridge.None, "", "", ""},
		{"我们约定好了", bridge.None, "", "", ""},
		{"我们约定下次先说结论", bridge.None, "", "", ""},
		{"我们说好：下次先说结论", bridge.None, "", "", ""},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		if seen[c.msg] {
			t.Fatalf("case %q twice", c.msg)
		}
		seen[c.msg] = true
		t.Run(c.msg, func(t *testing.T) {
			a := bridge.Read(c.msg, open)
			if a.Kind != c.kind || a.Terms != c.terms || (c.kind != bridge.None && (a.Phrase != c.phrase || a.Lang != c.lang)) {
				t.Fatalf("Read(%q) = %s", c.msg, show(a))
			}
			switch c.kind {
			case bridge.Accept, bridge.Cancel:
				if a.Target == nil || *a.Target != proposal || a.Intent != c.kind {
					t.Fatalf("Read(%q) = %s, want target %s", c.msg, show(a), proposal.ID)
				}
			case bridge.None:
				if a.Reason == "" || a.Target != nil || a.Terms != "" || a.Refusal != nil {
					t.Fatalf("Read(%q) = %s, want none with a reason", c.msg, show(a))
				}
			}
		})
	}
}

func TestEmptyTerms(t *testing.T) {
	for _, msg := range []string{"Let's agree:", "Let's agree:   ", "let us agree: .", "Let's agree：", "我们约定：", "我们约定:", "我们约定：。", "我们约定： ！"} {
		a := bridge.Read(msg, nil)
		if a.Kind != bridge.None || a.Intent != bridge.Propose || a.Refusal == nil ||
			a.Refusal.Code != pinki.CodeInvalid || a.Refusal.Field != "terms" || !strings.Contains(a.Reason, "empty") {
			t.Errorf("Read(%q) = %s, want none with a refusal on terms", msg, show(a))
		}
	}
}

func TestTargets(t *testing.T) {
	cases := []struct {
		name   string
		msg    string
		open   []bridge.Candidate
		kind   bridge.Kind
		target *bridge.Candidate
		cands  []bridge.Candidate
	}{
		{"accept, no agreement", "I accept this agreement", nil, bridge.None, nil, nil},
		{"accept, only ended ones", "I accept this agreement", []bridge.Candidate{done, lapsed}, bridge.None, nil, nil},
		{"accept, the one proposal", "I accept this agreement", []bridge.Candidate{agreed, proposal, done}, bridge.Accept, &proposal, nil},
		{"accept, already agreed ones do not count", "我接受这个约定", []bridge.Candidate{agreed, late}, bridge.None, nil, nil},
		{"accept, two proposals", "I accept the agreement", []bridge.Candidate{proposal, agreed, second}, bridge.Ambiguous, nil, []bridge.Candidate{proposal, second}},
		{"accept, a candidate with no state", "I accept this agreement", []bridge.Candidate{hosted}, bridge.Accept, &hosted, nil},
		{"cancel, no agreement", "Cancel this agreement", nil, bridge.None, nil, nil},
		{"cancel, the one open", "取消这个约定", []bridge.Candidate{done, late}, bridge.Cancel, &late, nil},
		{"cancel, a proposal", "Cancel the agreement", []bridge.Candidate{proposal, lapsed}, bridge.Cancel, &proposal, nil},
		{"cancel, several open", "Cancel this agreement.", []bridge.Candidate{proposal, agreed, done, late}, bridge.Ambiguous, nil,
			[]bridge.Candidate{proposal, agreed, late}},
		{"propose ignores the open ones", "Let's agree: x", []bridge.Candidate{proposal, second}, bridge.Propose, nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := bridge.Read(c.msg, c.open)
			if a.Kind != c.kind {
				t.Fatalf("Read(%q) = %s, want %s", c.msg, show(a), c.kind)
			}
			if (a.Target == nil) != (c.target == nil) || a.Target != nil && *a.Target != *c.target {
				t.Fatalf("Read(%q) = %s, want target %v", c.msg, show(a), c.target)
			}
			if show(a.Candidates) != show(c.cands) {
				t.Fatalf("candidates %s, want %s", show(a.Candidates), show(c.cands))
			}
			if (a.Kind == bridge.None || a.Kind == bridge.Ambiguous) && a.Reason == "" {
				t.Fatalf("Read(%q) = %s, want a reason", c.msg, show(a))
			}
			if a.Kind == bridge.Ambiguous && !strings.Contains(a.Reason, "ask which") {
				t.Fatalf("reason %q", a.Reason)
			}
		})
	}
}

func TestCommand(t *testing.T) {
	if got := bridge.Read("I accept this agreement", []bridge.Candidate{proposal}).Command(); got != "pinki accept pnk_a1b2c3 --rev 2" {
		t.Errorf("accept command %q", got)
	}
	for _, msg := range []string{"Cancel this agreement", "Let's agree: x", "hello"} {
		if got := bridge.Read(msg, []bridge.Candidate{proposal}).Command(); got != "" {
			t.Errorf("%q: command %q, want none", msg, got)
		}
	}
	if got := bridge.Read("I accept this agreement", []bridge.Candidate{proposal, second}).Command(); got != "" {
		t.Errorf("ambiguous: command %q, want none", got)
	}
}

func TestCandidatesFrom(t *testing.T) {
	items := []ledger.Item{
		{ID: "p", Kind: "promise", Promise: "a promise", Rev: 1, State: fold.Detached},
		{ID: "a", Kind: "agreement", Promise: "terms", Rev: 3, State: fold.Proposed},
	}
	got := bridge.CandidatesFrom(items)
	if len(got) != 1 || got[0] != (bridge.Candidate{ID: "a", Rev: 3, Terms: "terms", State: fold.Proposed}) {
		t.Fatalf("candidates %+v", got)
	}
}

func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
