package storetest

import (
	"fmt"
	"time"

	"github.com/pinki-ledger/pinki"
)

// epoch is the instant the suite's events are stamped from.
var epoch = time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)

// decoded returns e as the decoder would hand it back (parsed ts and until),
// and panics when e does not encode to a line the decoder understands: the
// suite appends only events a store must round-trip.
func decoded(e pinki.Event) pinki.Event {
	if e.TS == "" {
		e.TS = pinki.FormatTime(epoch)
	}
	d, err := pinki.DecodeLine([]byte(Line(&e)))
	if err != nil {
		panic(fmt.Sprintf("storetest: event %s %s does not decode: %v", e.Type, e.Key(), err))
	}
	return d
}

// at returns the instant sec seconds after the epoch, as the ledger writes it.
func at(sec int) string { return pinki.FormatTime(epoch.Add(time.Duration(sec) * time.Second)) }

// Promise is a promise creation of id by alice to bob, due a day after the
// suite's epoch.
func Promise(id string) pinki.Event {
	return decoded(pinki.Event{Type: pinki.TypePromise, ID: id, Text: "deliver " + id,
		By: "alice", To: "bob", Until: at(86400)})
}

// Amend moves id's horizon (by alice); n varies the deadline.
func Amend(id string, n int) pinki.Event {
	return decoded(pinki.Event{Type: pinki.TypeAmend, Subject: id, By: "alice",
		Until: at(2*86400 + n), Reason: fmt.Sprintf("nudge %d", n)})
}

// Resolve closes id as satisfied (by alice) with evidence ref.
func Resolve(id, ref string) pinki.Event {
	return decoded(pinki.Event{Type: pinki.TypeResolve, Subject: id, As: pinki.Satisfied,
		By: "alice", Evidence: []string{ref}})
}

// everyKind returns one event of every type with every optional field the
// encoder writes, including text that needs escaping and non-ASCII text.
func everyKind() []pinki.Event {
	return []pinki.Event{
		decoded(pinki.Event{TS: at(1), Type: pinki.TypePromise, ID: "rt/1",
			Text: "ship «résumé» <b>&amp;</b> \"quoted\" \\ tab\t newline\n U+2028\u2028 emoji 🚀",
			By:   "https://agents.example/a?x=1&y=2", To: "desk/b", On: "rt/0",
			Until: at(86400), Lapse: pinki.LapseExpire, Task: "task-9",
			Meta: `{"k":[1,2.5,"x\u00e9"],"nested":{"a":true,"n":null}}`}),
		decoded(pinki.Event{TS: at(2), Type: pinki.TypeRequest, ID: "rt.req", Text: "how many?",
			By: "inventory", To: "buyer", Until: at(3600), SchemaID: "inventory.count.v1",
			Schema: `{"type":"object","required":["n"],"properties":{"n":{"type":"integer"}}}`}),
		decoded(pinki.Event{TS: at(3), Type: pinki.TypePropose, ID: "rt:agree", Text: "terms",
			By: "alice", To: "bob", Until: at(7200), Proposer: "to"}),
		decoded(pinki.Event{TS: at(4), Type: pinki.TypeAmend, Subject: "rt/1", By: "https://agents.example/a?x=1&y=2",
			Until: "2026-09-03T00:00:00.5Z", Reason: "scope grew"}),
		decoded(pinki.Event{TS: at(5), Type: pinki.TypeAccept, Subject: "rt:agree", By: "bob", Rev: 1,
			Meta: `{"via":"mcp"}`}),
		decoded(pinki.Event{TS: at(6), Type: pinki.TypeProgress, Subject: "rt.req", By: "inventory",
			Phase: pinki.PhaseInProgress, Note: "counting"}),
		decoded(pinki.Event{TS: at(7), Type: pinki.TypeBind, Subject: "rt/1", By: "desk/b",
			Target: `{"kind":"todo","list":"a","item":"7"}`}),
		decoded(pinki.Event{TS: at(8), Type: pinki.TypeResolve, Subject: "rt.req", As: pinki.Satisfied,
			By: "inventory", Evidence: []string{"https://example.org/count/1", "commit:abc123"},
			Response: `{"n":42}`, SchemaID: "inventory.count.v1",
			Digest: "sha256:0000000000000000000000000000000000000000000000000000000000000000"}),
		decoded(pinki.Event{TS: at(9), Type: pinki.TypeResolve, Subject: "rt:agree", As: pinki.Cancelled,
			By: "alice", Reason: "withdrawn"}),
		decoded(pinki.Event{TS: at(10), Type: pinki.TypeAssess, Subject: "rt/1", State: "violated",
			Observer: "auditor", Note: "late again"}),
		decoded(pinki.Event{TS: at(11), Type: pinki.TypeResolve, Subject: "rt/1", As: pinki.Released,
			By: "desk/b"}),
	}
}
