package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"

	"github.com/pinki-ledger/pinki"
)

// Limits on talking to other agents.
const (
	// DefaultTimeout bounds each request to another agent (a card fetch, a
	// GetTask).
	DefaultTimeout = 5 * time.Second
	// DefaultMaxCard caps the size of an agent card.
	DefaultMaxCard = 256 << 10
)

// Agents finds and calls other agents: it maps a seat to its agent through a
// Directory, fetches the agent's card (with a timeout and a size cap), and
// opens an a2a-go client on the card's interfaces. Cards and clients are kept
// for the life of the Agents value, so one watch pass fetches each card once;
// a failed fetch is not kept, so the next pass tries again. It is safe for
// concurrent use.
type Agents struct {
	// Directory maps seats to cards. Nil means only https:// seats resolve.
	Directory *Directory
	// HTTP is the client for cards and calls. Nil means one with
	// DefaultTimeout.
	HTTP *http.Client
	// MaxCard caps a card's size in bytes. 0 means DefaultMaxCard.
	MaxCard int64

	mu      sync.Mutex
	clients map[string]*agentConn // by card URL
}

type agentConn struct {
	card     *sdk.AgentCard
	endpoint string
	client   *a2aclient.Client
}

func (a *Agents) httpClient() *http.Client {
	if a.HTTP != nil {
		return a.HTTP
	}
	return &http.Client{Timeout: DefaultTimeout}
}

// CardFor returns the card URL of seat's agent.
//
// Errors: CodeNotFound when the seat is not an https:// URL and has no
// mapping, with a hint naming `pinki seat set`.
func (a *Agents) CardFor(seat string) (string, error) {
	d := a.Directory
	if d == nil {
		d = &Directory{seats: map[string]SeatAgent{}}
	}
	if card, ok := d.Lookup(seat); ok {
		return card, nil
	}
	return "", (&pinki.Error{Code: pinki.CodeNotFound, Field: "seat",
		Message: fmt.Sprintf("no agent is known for seat %q: it is not an https:// URL and has no mapping", seat)}).
		WithHint("`pinki seat set %s --card URL` records where its agent card is", seat)
}

// FetchCard fetches and decodes the agent card at cardURL, within the
// client's timeout and the size cap.
//
// Errors: CodeUnavailable when the agent does not answer, answers with a
// status other than 200, or ctx ends; CodeTooLarge for a card over the cap;
// CodeInvalid for a body that is not an agent card (not JSON, no name, no
// supportedInterfaces). Every message names the URL.
func (a *Agents) FetchCard(ctx context.Context, cardURL string) (*sdk.AgentCard, error) {
	limit := a.MaxCard
	if limit <= 0 {
		limit = DefaultMaxCard
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, cardURL, nil)
	if err != nil {
		return nil, pinki.Invalid("card", "card URL %q: %v", cardURL, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := a.httpClient().Do(req)
	if err != nil {
		return nil, &pinki.Error{Code: pinki.CodeUnavailable, Field: "card",
			Message: fmt.Sprintf("agent card %s is unreachable: %v", cardURL, err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, &pinki.Error{Code: pinki.CodeUnavailable, Field: "card",
			Message: fmt.Sprintf("agent card %s answered %s", cardURL, resp.Status)}
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, &pinki.Error{Code: pinki.CodeUnavailable, Field: "card",
			Message: fmt.Sprintf("agent card %s could not be read: %v", cardURL, err)}
	}
	if int64(len(body)) > limit {
		return nil, &pinki.Error{Code: pinki.CodeTooLarge, Field: "card",
			Message: fmt.Sprintf("agent card %s is over the %d-byte limit", cardURL, limit)}
	}
	return ParseCard(cardURL, body)
}

// ParseCard decodes an A2A v1.0 agent card. source names it in errors.
//
// Errors: CodeInvalid when body is not a JSON object with a name and at
// least one supportedInterfaces entry with a url and a protocolBinding.
func ParseCard(source string, body []byte) (*sdk.AgentCard, error) {
	var card sdk.AgentCard
	if err := json.Unmarshal(body, &card); err != nil {
		return nil, pinki.Invalid("card", "agent card %s is malformed: %v", source, err)
	}
	if strings.TrimSpace(card.Name) == "" {
		return nil, pinki.Invalid("card", "agent card %s is malformed: it has no name", source)
	}
	if len(card.SupportedInterfaces) == 0 {
		return nil, pinki.Invalid("card", "agent card %s declares no supportedInterfaces (an A2A v0.3 card?): there is nowhere to call it", source)
	}
	for i, iface := range card.SupportedInterfaces {
		if iface == nil || iface.URL == "" || iface.ProtocolBinding == "" {
			return nil, pinki.Invalid("card", "agent card %s is malformed: supportedInterfaces[%d] needs a url and a protocolBinding", source, i)
		}
	}
	return &card, nil
}

// conn returns a client for seat's agent, fetching its card the first time.
func (a *Agents) conn(ctx context.Context, seat string) (*agentConn, string, error) {
	cardURL, err := a.CardFor(seat)
	if err != nil {
		return nil, "", err
	}
	a.mu.Lock()
	c := a.clients[cardURL]
	a.mu.Unlock()
	if c != nil {
		return c, cardURL, nil
	}
	card, err := a.FetchCard(ctx, cardURL)
	if err != nil {
		return nil, cardURL, err
	}
	hc := a.httpClient()
	client, err := a2aclient.NewFromCard(ctx, card,
		a2aclient.WithJSONRPCTransport(hc), a2aclient.WithRESTTransport(hc))
	if err != nil {
		return nil, cardURL, pinki.Invalid("card", "agent card %s offers no interface pinki can call (JSONRPC or HTTP+JSON, protocol 1.x): %v", cardURL, err)
	}
	endpoint := card.SupportedInterfaces[0].URL
	for _, iface := range card.SupportedInterfaces {
		if iface.ProtocolBinding == sdk.TransportProtocolJSONRPC {
			endpoint = iface.URL
			break
		}
	}
	c = &agentConn{card: card, endpoint: endpoint, client: client}
	a.mu.Lock()
	if a.clients == nil {
		a.clients = map[string]*agentConn{}
	}
	if prev := a.clients[cardURL]; prev != nil {
		c = prev
	} else {
		a.clients[cardURL] = c
	}
	a.mu.Unlock()
	return c, cardURL, nil
}

// GetTask asks seat's agent for the task with id taskID, sending the
// A2A-Extensions header naming the promise extension (an agent that does not
// echo it is fine).
//
// Errors: the seat and card errors of CardFor and FetchCard; CodeNotFound
// (field "task") when the agent says it does not know the task;
// CodeUnavailable when the call fails; CodeInvalid when the agent answers
// with a different task.
func (a *Agents) GetTask(ctx context.Context, seat, taskID string) (*sdk.Task, *AgentRef, error) {
	c, cardURL, err := a.conn(ctx, seat)
	if err != nil {
		return nil, &AgentRef{Seat: seat, Card: cardURL}, err
	}
	ref := &AgentRef{Seat: seat, Card: cardURL, Endpoint: c.endpoint}
	ctx = a2aclient.AttachServiceParams(ctx, a2aclient.ServiceParams{
		strings.ToLower(sdk.SvcParamExtensions): {ExtensionURI}})
	if hc := a.httpClient(); hc.Timeout == 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultTimeout)
		defer cancel()
	}
	task, err := c.client.GetTask(ctx, &sdk.GetTaskRequest{ID: sdk.TaskID(taskID)})
	switch {
	case errors.Is(err, sdk.ErrTaskNotFound):
		return nil, ref, &pinki.Error{Code: pinki.CodeNotFound, Field: "task",
			Message: fmt.Sprintf("the agent at %s does not know task %q", c.endpoint, taskID)}
	case err != nil:
		return nil, ref, &pinki.Error{Code: pinki.CodeUnavailable, Field: "task",
			Message: fmt.Sprintf("GetTask %q on %s failed: %s", taskID, c.endpoint, oneLine(err.Error()))}
	case task == nil || string(task.ID) != taskID:
		got := ""
		if task != nil {
			got = string(task.ID)
		}
		return nil, ref, pinki.Invalid("task", "GetTask %q on %s answered with task %q", taskID, c.endpoint, got)
	}
	return task, ref, nil
}

// AgentRef names the agent a call went to.
type AgentRef struct {
	Seat     string `json:"seat"`
	Card     string `json:"card,omitempty"`
	Endpoint string `json:"endpoint,omitempty"`
}

// oneLine flattens s to one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
