package a2a

import (
	"encoding/json"
	"strings"
	"testing"

	a2ago "github.com/a2aproject/a2a-go/v2/a2a"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/fold"
	"github.com/pinki-ledger/pinki/ledger"
)

func TestCard(t *testing.T) {
	got, err := json.Marshal(Card())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"capabilities":{"extensions":[{"uri":"https://github.com/azigler/pinki/ext/promise/v0",` +
		`"description":"Promises made by this card's subject: deadline, evidence on satisfaction, reason on abandonment.",` +
		`"required":false,"params":{}}]}}`
	if string(got) != want {
		t.Errorf("card:\n got %s\nwant %s", got, want)
	}
	// The reference implementation reads it as an AgentCapabilities.
	var caps struct {
		Capabilities a2ago.AgentCapabilities `json:"capabilities"`
	}
	if err := json.Unmarshal(got, &caps); err != nil {
		t.Fatal(err)
	}
	if ext := caps.Capabilities.Extensions; len(ext) != 1 || ext[0].URI != ExtensionURI || ext[0].Required {
		t.Errorf("a2a-go reads the card as %+v", ext)
	}
}

// detail builds an obligation as the service shows it.
func detail(state fold.State, mod func(d *ledger.Detail)) ledger.Detail {
	d := ledger.Detail{Item: ledger.Item{ID: "desk/ship-91", Promise: "hand back a reviewed schema",
		By: "…/reviewer", To: "…/author", Until: "2026-09-01T18:00:00Z", State: state, Kind: "promise"},
		OriginalUntil: "2026-09-01T17:00:00Z"}
	if mod != nil {
		mod(&d)
	}
	return d
}

func resolved(as pinki.Outcome, reason string, evidence ...string) func(d *ledger.Detail) {
	return func(d *ledger.Detail) {
		d.Resolution = &ledger.ResolutionView{As: as, TS: "2026-09-02T09:40:00Z", By: d.By, Reason: reason, Evidence: evidence}
	}
}

// decode reads the task back with the reference implementation's types, so
// that the wire names are the ones a v1.0 peer expects.
func decode(t *testing.T, task TaskObject) (a2ago.Task, string) {
	t.Helper()
	b, err := json.Marshal(task)
	if err != nil {
		t.Fatal(err)
	}
	var got a2ago.Task
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("a2a-go cannot read %s: %v", b, err)
	}
	return got, string(b)
}

func TestTaskStates(t *testing.T) {
	tests := []struct {
		name    string
		d       ledger.Detail
		state   a2ago.TaskState
		message string // the status message's text, "" for none
	}{
		{"proposed", detail(fold.Proposed, func(d *ledger.Detail) { d.Kind = "agreement"; d.Accepted = []string{"…/author"} }),
			a2ago.TaskStateInputRequired, "proposed terms await acceptance by …/reviewer"},
		{"conditional", detail(fold.Conditional, func(d *ledger.Detail) { d.On = "pnk_0c2b77" }),
			a2ago.TaskStateSubmitted, "waits on pnk_0c2b77: owed once it is satisfied"},
		{"detached", detail(fold.Detached, nil), a2ago.TaskStateWorking, ""},
		{"overdue maps to nothing of its own", detail(fold.Overdue, nil), a2ago.TaskStateWorking, ""},
		{"failed", detail(fold.Failed, resolved(pinki.Failed, "the disk filled up")), a2ago.TaskStateFailed, "the disk filled up"},
		{"cancelled", detail(fold.Cancelled, resolved(pinki.Cancelled, "no longer needed")), a2ago.TaskStateRejected, "no longer needed"},
		{"released", detail(fold.Released, resolved(pinki.Released, "")), a2ago.TaskStateCanceled, "released by the creditor …/author"},
		{"released with a reason", detail(fold.Released, resolved(pinki.Released, "covered")), a2ago.TaskStateCanceled, "released by the creditor …/author: covered"},
		{"expired: lapse", detail(fold.Expired, func(d *ledger.Detail) { d.Lapse = pinki.LapseExpire }),
			a2ago.TaskStateFailed, "expired: unresolved at its horizon 2026-09-01T18:00:00Z (lapse: expire)"},
		{"expired: proposal window", detail(fold.Expired, func(d *ledger.Detail) { d.Kind = "agreement" }),
			a2ago.TaskStateFailed, "expired: the proposal's window closed at 2026-09-01T18:00:00Z before both parties accepted"},
		{"expired: antecedent", detail(fold.Expired, func(d *ledger.Detail) { d.On = "pnk_0c2b77" }),
			a2ago.TaskStateFailed, "expired: its antecedent pnk_0c2b77 ended unsatisfied"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, raw := decode(t, Task(tt.d))
			if got.Status.State != tt.state {
				t.Errorf("state %q, want %q in %s", got.Status.State, tt.state, raw)
			}
			if got.ID != "desk/ship-91" || got.ContextID != "desk/ship-91" {
				t.Errorf("id %q, contextId %q", got.ID, got.ContextID)
			}
			m := got.Status.Message
			switch {
			case tt.message == "" && m != nil:
				t.Errorf("unexpected status message %s", raw)
			case tt.message != "" && m == nil:
				t.Errorf("no status message, want %q", tt.message)
			case tt.message != "":
				if m.Role != a2ago.MessageRoleAgent || m.ID == "" || len(m.Parts) != 1 || m.Parts[0].Text() != tt.message {
					t.Errorf("status message %s, want role agent, a messageId and the text %q", raw, tt.message)
				}
			}
			if len(got.Artifacts) != 0 {
				t.Errorf("artifacts on a task that is not completed: %s", raw)
			}
		})
	}
}

func TestTaskCompleted(t *testing.T) {
	d := detail(fold.Satisfied, func(d *ledger.Detail) {
		resolved(pinki.Satisfied, "", "https://example.org/reviews/91", "commit:4f3a91")(d)
		d.Task = "task-9f2"
		d.On = "pnk_0c2b77"
		d.Meta = json.RawMessage(`{"seat":"desk"}`)
	})
	got, raw := decode(t, Task(d))
	if got.Status.State != a2ago.TaskStateCompleted {
		t.Fatalf("state %q", got.Status.State)
	}
	if got.ID != "task-9f2" || got.ContextID != "desk/ship-91" {
		t.Errorf("id %q, contextId %q: the task field is the Task id", got.ID, got.ContextID)
	}
	if len(got.Artifacts) != 2 || got.Artifacts[0].Parts[0].Text() != "https://example.org/reviews/91" ||
		got.Artifacts[1].Parts[0].Text() != "commit:4f3a91" || got.Artifacts[0].ID == got.Artifacts[1].ID {
		t.Errorf("want one artifact per evidence reference, with distinct ids: %s", raw)
	}
	if got.Status.Timestamp == nil || got.Status.Timestamp.Format("2006-01-02T15:04:05Z") != "2026-09-02T09:40:00Z" {
		t.Errorf("status timestamp %v", got.Status.Timestamp)
	}
	rec, ok := got.Metadata[MetadataKey].(map[string]any)
	if !ok {
		t.Fatalf("no record under %s: %s", MetadataKey, raw)
	}
	b, _ := json.Marshal(Task(d).Metadata[MetadataKey])
	want := `{"id":"desk/ship-91","promise":"hand back a reviewed schema","by":"…/reviewer","to":"…/author","on":"pnk_0c2b77","until":"2026-09-01T18:00:00Z","task":"task-9f2","meta":{"seat":"desk"}}`
	if string(b) != want {
		t.Errorf("record\n got %s\nwant %s (pinki's key order, until the horizon)", b, want)
	}
	if rec["until"] != "2026-09-01T18:00:00Z" {
		t.Errorf("until %v, want the horizon", rec["until"])
	}
}

func TestTaskResponse(t *testing.T) {
	d := detail(fold.Satisfied, func(d *ledger.Detail) {
		d.Kind = "request"
		d.Resolution = &ledger.ResolutionView{As: pinki.Satisfied, TS: "2026-09-02T09:40:00Z", By: d.By,
			Response: json.RawMessage(`{"quantity":3}`), Digest: "sha256:00"}
	})
	got, raw := decode(t, Task(d))
	if len(got.Artifacts) != 1 {
		t.Fatalf("want the response as the one artifact: %s", raw)
	}
	data, ok := got.Artifacts[0].Parts[0].Data().(map[string]any)
	if !ok || data["quantity"] != float64(3) {
		t.Errorf("response data part %s", raw)
	}
	if !strings.Contains(raw, `"data":{"quantity":3}`) {
		t.Errorf("want a data part: %s", raw)
	}
}
