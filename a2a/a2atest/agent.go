// Package a2atest is a test A2A agent built with a2a-go's server, for the
// tests of the A2A binding and its verifier adapter: each task it makes ends
// the way the message that started it says.
package a2atest

import (
	"context"
	"iter"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2asrv"
)

// Agent is a test A2A agent built with a2a-go's server: its executor ends
// each task the way the message's text says ("deliver", "empty", "fail",
// "reject", "cancel"; anything else waits in TASK_STATE_INPUT_REQUIRED), and
// it records the A2A-Extensions header of every call after the last Start.
type Agent struct {
	srv *httptest.Server

	mu         sync.Mutex
	extensions []string // A2A-Extensions of each GetTask
	cardHits   int
}

// HTTPClient is a client that trusts the agent's TLS certificate.
func (ag *Agent) HTTPClient() *http.Client { return ag.srv.Client() }

// Endpoint is the agent's JSON-RPC endpoint (its card's interface).
func (ag *Agent) Endpoint() string { return ag.srv.URL + "/rpc" }

type outcomeExecutor struct{}

func (outcomeExecutor) Execute(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[sdk.Event, error] {
	return func(yield func(sdk.Event, error) bool) {
		text := ""
		for _, p := range ec.Message.Parts {
			text += p.Text()
		}
		if !yield(sdk.NewSubmittedTask(ec, ec.Message), nil) {
			return
		}
		status := func(state sdk.TaskState, msg string) bool {
			var m *sdk.Message
			if msg != "" {
				m = sdk.NewMessageForTask(sdk.MessageRoleAgent, ec, sdk.NewTextPart(msg))
			}
			return yield(sdk.NewStatusUpdateEvent(ec, state, m), nil)
		}
		switch text {
		case "deliver":
			if !yield(sdk.NewArtifactEvent(ec, sdk.NewTextPart("the reviewed schema")), nil) {
				return
			}
			ev := sdk.NewArtifactEvent(ec, sdk.NewFileURLPart("https://example.org/reviews/91", "text/html"))
			ev.Artifact.ID = "review-91"
			if !yield(ev, nil) {
				return
			}
			status(sdk.TaskStateCompleted, "")
		case "empty":
			status(sdk.TaskStateCompleted, "done")
		case "fail":
			status(sdk.TaskStateFailed, "the schema\ndid not validate")
		case "reject":
			status(sdk.TaskStateRejected, "not my desk")
		case "cancel":
			status(sdk.TaskStateCanceled, "")
		default:
			status(sdk.TaskStateInputRequired, "which schema?")
		}
	}
}

func (outcomeExecutor) Cancel(ctx context.Context, ec *a2asrv.ExecutorContext) iter.Seq2[sdk.Event, error] {
	return func(yield func(sdk.Event, error) bool) {
		yield(sdk.NewStatusUpdateEvent(ec, sdk.TaskStateCanceled, nil), nil)
	}
}

// New serves the agent over TLS (so that its https:// URL is a
// seat that is its own agent's base): the card at the well-known path, the
// JSON-RPC endpoint at /rpc.
func New(t testing.TB) *Agent {
	t.Helper()
	ag := &Agent{}
	rpc := a2asrv.NewJSONRPCHandler(a2asrv.NewHandler(outcomeExecutor{}))
	mux := http.NewServeMux()
	var card http.Handler
	mux.HandleFunc("/.well-known/agent-card.json", func(w http.ResponseWriter, r *http.Request) {
		ag.mu.Lock()
		ag.cardHits++
		ag.mu.Unlock()
		card.ServeHTTP(w, r)
	})
	mux.HandleFunc("/rpc", func(w http.ResponseWriter, r *http.Request) {
		ag.mu.Lock()
		ag.extensions = append(ag.extensions, r.Header.Get("A2A-Extensions"))
		ag.mu.Unlock()
		rpc.ServeHTTP(w, r)
	})
	ag.srv = httptest.NewTLSServer(mux)
	t.Cleanup(ag.srv.Close)
	card = a2asrv.NewStaticAgentCardHandler(&sdk.AgentCard{
		Name: "test agent", Description: "ends tasks as told", Version: "1",
		SupportedInterfaces: []*sdk.AgentInterface{sdk.NewAgentInterface(ag.srv.URL+"/rpc", sdk.TransportProtocolJSONRPC)},
		DefaultInputModes:   []string{"text/plain"}, DefaultOutputModes: []string{"text/plain"},
		Skills: []sdk.AgentSkill{{ID: "work", Name: "work", Description: "works", Tags: []string{"test"}}},
	})
	return ag
}

// URL is the agent's base URL: the seat whose agent it is.
func (ag *Agent) URL() string { return ag.srv.URL }

// Start sends text to the agent and returns the id of the task it made.
func (ag *Agent) Start(t testing.TB, text string) string {
	t.Helper()
	ctx := context.Background()
	client, err := a2aclient.NewFromEndpoints(ctx,
		[]*sdk.AgentInterface{sdk.NewAgentInterface(ag.srv.URL+"/rpc", sdk.TransportProtocolJSONRPC)},
		a2aclient.WithJSONRPCTransport(ag.srv.Client()))
	if err != nil {
		t.Fatal(err)
	}
	res, err := client.SendMessage(ctx, &sdk.SendMessageRequest{Message: sdk.NewMessage(sdk.MessageRoleUser, sdk.NewTextPart(text))})
	if err != nil {
		t.Fatalf("send %q: %v", text, err)
	}
	task, ok := res.(*sdk.Task)
	if !ok {
		t.Fatalf("send %q: got %T, want a task", text, res)
	}
	ag.mu.Lock()
	ag.extensions = nil // only the watcher's calls count
	ag.mu.Unlock()
	return string(task.ID)
}

// SeenExtensions returns the A2A-Extensions headers of the calls so far.
func (ag *Agent) SeenExtensions() []string {
	ag.mu.Lock()
	defer ag.mu.Unlock()
	return append([]string(nil), ag.extensions...)
}

// CardFetches counts the requests for its card.
func (ag *Agent) CardFetches() int {
	ag.mu.Lock()
	defer ag.mu.Unlock()
	return ag.cardHits
}
