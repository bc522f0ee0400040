package bridge

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

// Kind is the class of an act.
type Kind string

// The acts a message can be. Read returns exactly one.
const (
	// None: the message is no explicit agreement act (the reason says why).
	None Kind = "none"
	// Propose: the message proposes the terms in Act.Terms.
	Propose Kind = "propose"
	// Accept: the message accepts the one agreement in Act.Target.
	Accept Kind = "accept"
	// Cancel: the message cancels the one agreement in Act.Target.
	Cancel Kind = "cancel"
	// Ambiguous: the message accepts or cancels (Act.Intent), but two or
	// more agreements in Act.Candidates could be meant: ask, never guess.
	Ambiguous Kind = "ambiguous"
)

// Candidate is an agreement the host has open in the conversation: what an
// accept or cancel may target.
type Candidate struct {
	ID    string `json:"id"`
	Rev   int    `json:"rev"`
	Terms string `json:"terms"`
	// State is the agreement's computed state. "" means the host vouches
	// that it is open and awaiting acceptance.
	State fold.State `json:"state"`
}

// CandidatesFrom returns the agreements among items (a listing) as
// candidates.
func CandidatesFrom(items []ledger.Item) []Candidate {
	var out []Candidate
	for _, it := range items {
		if it.Kind == fold.KindAgreement.String() {
			out = append(out, Candidate{ID: it.ID, Rev: it.Rev, Terms: it.Promise, State: it.State})
		}
	}
	return out
}

// Act is the classification of one message.
type Act struct {
	Kind Kind `json:"act"`
	// Intent is the act the phrase named, also when it came to none
	// (nothing to target, empty terms) or ambiguous.
	Intent Kind `json:"intent,omitempty"`
	// Phrase is the phrase of the table that matched, as the table spells
	// it; Lang is its language, "en" or "zh".
	Phrase string `json:"phrase,omitempty"`
	Lang   string `json:"lang,omitempty"`
	// Terms are the proposed terms, exactly as written after the colon
	// (trimmed of surrounding whitespace).
	Terms string `json:"terms,omitempty"`
	// Target is the one agreement an accept or cancel names.
	Target *Candidate `json:"target,omitempty"`
	// Candidates are the agreements an ambiguous act could mean.
	Candidates []Candidate `json:"candidates,omitempty"`
	// Reason says, for people, why the act is none or ambiguous.
	Reason string `json:"reason,omitempty"`
	// Refusal is set when the message used a phrase but cannot be acted on
	// as it stands: a proposal with empty terms (CodeInvalid, field "terms").
	Refusal *pinki.Error `json:"refusal,omitempty"`
}

// Command is the pinki command a host may run for an accept:
// `pinki accept ID --rev N`. It is "" for every other act: a propose becomes
// `pinki propose` with the terms, and a cancel `pinki resolve ID --cancelled`
// (the debtor declines) or `--released` (the creditor), which only the host
// can tell.
func (a Act) Command() string {
	if a.Kind != Accept || a.Target == nil {
		return ""
	}
	return fmt.Sprintf("pinki accept %s --rev %d", a.Target.ID, a.Target.Rev)
}

// The phrases. proposeEN and proposeZH match at the very start of a message
// and take the rest as the terms; the accept and cancel phrases must be the
// whole message.
var (
	proposeEN = regexp.MustCompile(`^(?i:let(['’]s|\s+us)\s+agree)\s*[:：]`)
	proposeZH = regexp.MustCompile(`^我们约定\s*[:：]`)
)

type phrase struct {
	kind   Kind
	lang   string
	text   string // as the table spells it
	folded string // as matched: lower case, single spaces
}

var whole = []phrase{
	{Accept, "en", "I accept this agreement", ""},
	{Accept, "en", "I accept the agreement", ""},
	{Accept, "zh", "我接受这个约定", ""},
	{Cancel, "en", "Cancel this agreement", ""},
	{Cancel, "en", "Cancel the agreement", ""},
	{Cancel, "zh", "取消这个约定", ""},
}

func init() {
	for i := range whole {
		whole[i].folded = fold1(whole[i].text)
	}
}

// fold1 folds a message for matching a whole phrase: lower case, runs of
// white space as one space.
func fold1(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// Read classifies one message as exactly one explicit act, using only the
// narrow phrase table of the package documentation. open are the agreements
// the host has open in the conversation; an accept or cancel targets one of
// them. Read never records anything: it returns the classification, and the
// host decides what to run.
//
// Read never fails. A message that is no explicit act is None, with the
// reason; a proposal with empty terms is None with Refusal set
// (CodeInvalid); an accept or cancel with no eligible agreement is None, and
// with two or more is Ambiguous with the candidates listed.
func Read(message string, open []Candidate) Act {
	msg := strings.TrimSpace(message)
	switch {
	case msg == "":
		return Act{Kind: None, Reason: "the message is empty"}
	case strings.HasSuffix(msg, "?") || strings.HasSuffix(msg, "？"):
		return Act{Kind: None, Reason: "a question proposes, accepts or cancels nothing"}
	}
	if act, ok := readPropose(msg); ok {
		return act
	}
	bare := fold1(strings.TrimRightFunc(msg, func(r rune) bool {
		return r == '.' || r == '。' || r == '!' || r == '！' || unicode.IsSpace(r)
	}))
	for _, p := range whole {
		if bare == p.folded {
			return target(Act{Intent: p.kind, Phrase: p.text, Lang: p.lang}, open)
		}
	}
	return Act{Kind: None, Reason: "no explicit agreement phrase: ordinary promises, requests to remember, instructions and paraphrases are not agreements"}
}

func readPropose(msg string) (Act, bool) {
	act := Act{Intent: Propose}
	var loc []int
	if loc = proposeEN.FindStringSubmatchIndex(msg); loc != nil {
		act.Phrase, act.Lang = "Let's agree:", "en"
		if strings.HasSuffix(strings.ToLower(msg[loc[2]:loc[3]]), "us") {
			act.Phrase = "Let us agree:"
		}
	} else if loc = proposeZH.FindStringIndex(msg); loc != nil {
		act.Phrase, act.Lang = "我们约定：", "zh"
	} else {
		return Act{}, false
	}
	terms := strings.TrimSpace(msg[loc[1]:])
	if strings.TrimFunc(terms, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsPunct(r) }) == "" {
		act.Kind = None
		act.Refusal = pinki.Invalid("terms", "%q proposes nothing: the terms after it are empty", act.Phrase).
			WithHint("say the terms after the colon, such as %q", act.Phrase+" next time, start with the conclusion")
		act.Reason = act.Refusal.Message
		return act, true
	}
	act.Kind, act.Terms = Propose, terms
	return act, true
}

// target picks the agreement an accept or cancel names among open: an
// accept, those awaiting acceptance (proposed); a cancel, the open ones.
func target(act Act, open []Candidate) Act {
	var eligible []Candidate
	for _, c := range open {
		if c.State == "" || c.State == fold.Proposed || act.Intent == Cancel && c.State.Open() {
			eligible = append(eligible, c)
		}
	}
	what := "awaiting acceptance"
	if act.Intent == Cancel {
		what = "open"
	}
	switch len(eligible) {
	case 0:
		act.Kind = None
		act.Reason = fmt.Sprintf("no agreement is %s here, so %q names nothing", what, act.Phrase)
	case 1:
		act.Kind = act.Intent
		act.Target = &eligible[0]
	default:
		act.Kind = Ambiguous
		act.Candidates = eligible
		act.Reason = fmt.Sprintf("%d agreements are %s here, and %q could mean any of them: ask which one", len(eligible), what, act.Phrase)
	}
	return act
}
