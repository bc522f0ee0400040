// Package bridge is the phrase bridge for chat hosts: it reads one message
// and says whether it is an explicit agreement act (Read). It handles a
// narrow, fixed set of explicit phrases in English and Chinese, and nothing
// else: ordinary promises, requests to remember a fact and one-off
// instructions are never upgraded into agreements.
//
// The bridge proposes; it never records anything by itself. Read only
// returns the classification. A host (the CLI's `pinki bridge`) turns a
// propose act into `pinki propose` with the terms, which implies nobody's
// acceptance, and reports an accept or cancel with the command it may run
// (Act.Command: `pinki accept ID --rev N`). An agent's own "okay" in prose
// is not its acceptance; a user's accept phrase is the user's only.
//
// # The phrase table
//
//	act      language  phrase                    where
//	-------  --------  ------------------------  ------------------------------------
//	propose  en        Let's agree: TERMS        at the start; TERMS, the rest of the
//	propose  en        Let us agree: TERMS       message, must not be empty (else a
//	propose  zh        我们约定：TERMS           refusal)
//	accept   en        I accept this agreement   the whole message
//	accept   en        I accept the agreement    the whole message
//	accept   zh        我接受这个约定            the whole message
//	cancel   en        Cancel this agreement     the whole message
//	cancel   en        Cancel the agreement      the whole message
//	cancel   zh        取消这个约定              the whole message
//
// Tolerated, and nothing more:
//
//   - white space around the message, and runs of white space between the
//     English words;
//   - upper or lower case in English (LET'S AGREE:, i accept the agreement);
//   - the typographic apostrophe (Let’s agree:);
//   - either colon after the propose phrase, ASCII ":" or full-width "：", with
//     or without white space before it, in both languages;
//   - final punctuation after an accept or cancel phrase: . 。 ! ！ (a run of
//     them). Proposed terms keep their punctuation as written.
//
// Everything else is none, with a reason:
//
//   - paraphrase: "I agree", "OK", "Please cancel this agreement", "We agree:
//     …", "我同意这个约定", "Let's agree to meet at five" (no colon);
//   - ordinary promises and plans: "I promise to …", "I'll do it tomorrow";
//   - requests to remember a fact: "remember that my name is …", "记住…";
//   - one-off instructions: "next time do X" without the propose phrase;
//   - questions: any message ending in ? or ？ ("Should we agree: …?",
//     "我接受这个约定吗？");
//   - negations: "I don't accept this agreement", "我不接受这个约定",
//     "不要取消这个约定";
//   - a phrase quoted or embedded in other text: `"I accept this agreement"`,
//     "He said I accept this agreement", "OK. Let's agree: …", or followed by
//     more words ("I accept this agreement, but …");
//   - a propose phrase with empty terms ("Let's agree:", "我们约定：。"): none,
//     with Act.Refusal a CodeInvalid error on "terms".
//
// # Targets
//
// An accept or cancel names "this agreement": the host passes the agreements
// open in the conversation (Candidate: id, rev, terms, state). An accept
// considers those awaiting acceptance (state proposed); a cancel, every open
// one (proposed, conditional, detached, overdue); a candidate with no state
// counts for both, on the host's word. Exactly one → that target, with its
// rev; none → none, with the reason; two or more → ambiguous, with the
// candidates listed, so that the host asks which one. The bridge never
// guesses.
package bridge
