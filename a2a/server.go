package a2a

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"slices"
	"strings"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/pinki-ledger/pinki"
	"github.com/pinki-ledger/pinki/ledger"
)

// MaxRequest caps a JSON-RPC request body.
const MaxRequest = 1 << 20

// Identify returns the identity a request acts as, from its credential (a
// bearer token): never from a field of the request body. It returns a
// *pinki.Error with CodeUnauthenticated when there is no valid credential.
type Identify func(r *http.Request) (pinki.Identity, error)

// Server is the ledger as an A2A v1.0 agent over JSON-RPC 2.0 (A2A §9): an
// http.Handler for the agent's JSON-RPC endpoint. It answers:
//
//   - SendMessage: a message that lists ExtensionURI in message.extensions
//     and carries an Inbound record under MetadataKey in message.metadata
//     declares the promise, or with resolve resolves it, as the identity the
//     request authenticates as; the reply is the obligation as a Task (Task,
//     plus an artifact "record" holding the recorded state).
//   - GetTask: the obligation whose id (or whose task field) is params.id,
//     as that Task.
//
// Every other method answers UnsupportedOperationError (-32004). A refused
// request appends nothing and answers a JSON-RPC error whose message is the
// ledger's one-line reason and whose data carries the pinki error code
// (docs/A2A.md, "Errors").
//
// The JSON-RPC framing, method routing and wire types are a2a-go's
// (a2asrv.NewJSONRPCHandler); Server implements its RequestHandler over
// ledger.API and keeps no task store of its own: the ledger is the store.
type Server struct {
	api      ledger.API
	identify Identify
	rpc      http.Handler
}

// NewServer returns the JSON-RPC handler over api. identify authenticates
// each request; nil refuses every request as unauthenticated.
func NewServer(api ledger.API, identify Identify) *Server {
	s := &Server{api: api, identify: identify}
	s.rpc = a2asrv.NewJSONRPCHandler(handler{s})
	return s
}

type callerKey struct{}

type caller struct {
	who pinki.Identity
	err error
}

// ServeHTTP implements http.Handler. It caps the body, authenticates the
// request, and answers in JSON-RPC (errors included: always HTTP 200 for a
// POST, as A2A's JSON-RPC binding does). A request that asks for the
// extension in its A2A-Extensions header gets it named in the response's
// A2A-Extensions header; clients must not rely on that echo.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, MaxRequest)
	c := caller{err: pinki.Errorf(pinki.CodeUnauthenticated, "no credential: this agent takes a bearer token bound to a seat")}
	if s.identify != nil {
		c.who, c.err = s.identify(r)
		if c.err == nil && !c.who.Known() {
			c.err = pinki.Errorf(pinki.CodeUnauthenticated, "the credential names no seat")
		}
	}
	if requested(r.Header.Values(sdk.SvcParamExtensions)) {
		w.Header().Set(sdk.SvcParamExtensions, ExtensionURI)
	}
	s.rpc.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), callerKey{}, c)))
}

// requested reports whether an A2A-Extensions header lists ExtensionURI.
func requested(values []string) bool {
	for _, v := range values {
		for _, uri := range strings.Split(v, ",") {
			if strings.TrimSpace(uri) == ExtensionURI {
				return true
			}
		}
	}
	return false
}

func (s *Server) who(ctx context.Context) (pinki.Identity, error) {
	c, ok := ctx.Value(callerKey{}).(caller)
	if !ok {
		return pinki.Identity{}, rpcError(pinki.Errorf(pinki.CodeUnauthenticated, "no credential"))
	}
	if c.err != nil {
		return pinki.Identity{}, rpcError(c.err)
	}
	return c.who, nil
}

// SendMessage declares or resolves the promise a message carries.
func (s *Server) SendMessage(ctx context.Context, req *sdk.SendMessageRequest) (sdk.SendMessageResult, error) {
	who, err := s.who(ctx)
	if err != nil {
		return nil, err
	}
	if req == nil || req.Message == nil {
		return nil, rpcError(pinki.Invalid("message", "params.message is required"))
	}
	m := req.Message
	raw, ok := m.Metadata[MetadataKey]
	if !ok {
		return nil, rpcError(pinki.Invalid("message.metadata", "the message carries no promise record under message.metadata[%q]: this agent records promises, and nothing else", MetadataKey).
			WithHint("send the record {id?, promise, by, to, until, on?, task?, meta?} under that key, and list %s in message.extensions", ExtensionURI))
	}
	if !slices.Contains(m.Extensions, ExtensionURI) {
		return nil, rpcError(pinki.Invalid("message.extensions", "the message carries a promise record but does not list the extension %s in message.extensions", ExtensionURI))
	}
	in, err := ParseInbound(raw)
	if err == nil {
		err = in.check()
	}
	if err != nil {
		return nil, rpcError(err)
	}
	id := in.ID
	if in.Resolve == nil {
		rc, err := s.api.Create(ctx, who, in.create())
		if err != nil {
			return nil, rpcError(err)
		}
		id = rc.ID
	} else {
		// A resolve ends a promise declared before; the record's other keys,
		// when given, must name that promise as recorded. One message
		// appends at most one event.
		d, err := s.api.Get(ctx, who, ledger.Query{ID: in.ID})
		if err == nil {
			err = in.matches(d)
		}
		if err != nil {
			return nil, rpcError(err)
		}
		if _, err := s.api.Resolve(ctx, who, in.resolve()); err != nil {
			return nil, rpcError(err)
		}
	}
	d, err := s.api.Get(ctx, who, ledger.Query{ID: id})
	if err != nil {
		return nil, rpcError(err)
	}
	return ServedTask(d)
}

// GetTask returns an obligation as a Task: the one whose id is params.id,
// else the first (in ledger order) whose task field is params.id.
func (s *Server) GetTask(ctx context.Context, req *sdk.GetTaskRequest) (*sdk.Task, error) {
	who, err := s.who(ctx)
	if err != nil {
		return nil, err
	}
	id := strings.TrimSpace(string(req.ID))
	if id == "" {
		return nil, rpcError(pinki.Invalid("id", "params.id is required: the promise id"))
	}
	d, err := s.api.Get(ctx, who, ledger.Query{ID: id})
	if pinki.ErrorCode(err) == pinki.CodeNotFound {
		d, err = s.byTask(ctx, who, id, err)
	}
	if err != nil {
		return nil, rpcError(err)
	}
	return ServedTask(d)
}

// byTask finds the first obligation who may read whose task field is task
// (one filtered listing, ledger.Filter.Task); notFound is the error to
// return when there is none.
//
// Errors: notFound; the errors of List and Get.
func (s *Server) byTask(ctx context.Context, who pinki.Identity, task string, notFound error) (ledger.Detail, error) {
	page, err := s.api.List(ctx, who, ledger.Filter{Scope: ledger.ScopeAll, Task: task, Limit: 1})
	if err != nil {
		return ledger.Detail{}, err
	}
	if len(page.Items) == 0 || page.Items[0].Task != task {
		return ledger.Detail{}, notFound
	}
	return s.api.Get(ctx, who, ledger.Query{ID: page.Items[0].ID})
}

// RecordArtifactID is the id suffix of the artifact that carries the
// recorded state in a served Task: <obligation id>/record.
const RecordArtifactID = "record"

// ServedTask is the Task the server answers with: Task(d) (the mapped state,
// the record in metadata under MetadataKey), plus one artifact named
// "record", id <obligation id>/record, whose one data part is the recorded
// state: the obligation as `pinki show --json` prints it.
//
// Errors: CodeInternal when the projection cannot be encoded (a bug).
func ServedTask(d ledger.Detail) (*sdk.Task, error) {
	obj := Task(d)
	state, err := json.Marshal(d)
	if err != nil {
		return nil, rpcError(&pinki.Error{Code: pinki.CodeInternal, Message: "encoding the record: " + err.Error()})
	}
	obj.Artifacts = append(obj.Artifacts, Artifact{ArtifactID: d.ID + "/" + RecordArtifactID, Name: RecordArtifactID,
		Parts: []Part{{Data: state, MediaType: "application/json"}}})
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, rpcError(&pinki.Error{Code: pinki.CodeInternal, Message: "encoding the task: " + err.Error()})
	}
	var t sdk.Task
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, rpcError(&pinki.Error{Code: pinki.CodeInternal, Message: "decoding the task: " + err.Error()})
	}
	// Keep the record's and the state's key order on the wire (pinki's, not
	// a map's): raw JSON values marshal as they are.
	if rec, err := json.Marshal(obj.Metadata[MetadataKey]); err == nil {
		t.Metadata[MetadataKey] = json.RawMessage(rec)
	}
	last := t.Artifacts[len(t.Artifacts)-1]
	last.Parts[0].Content = sdk.Data{Value: json.RawMessage(state)}
	return &t, nil
}

// rpcError maps a ledger error onto the A2A error a2a-go turns into a
// JSON-RPC error (docs/A2A.md, "Errors"): the message is the ledger's, and
// the data carries the pinki error (google.protobuf.Struct: code, field,
// hint, details) and an ErrorInfo whose metadata names the pinki code.
func rpcError(err error) error {
	pe := pinki.AsError(err)
	var kind error
	switch pe.Code {
	case pinki.CodeInvalid, pinki.CodeTooLarge:
		kind = sdk.ErrInvalidParams
	case pinki.CodeNotFound:
		kind = sdk.ErrTaskNotFound
	case pinki.CodeForbidden:
		kind = sdk.ErrUnauthorized
	case pinki.CodeUnauthenticated:
		kind = sdk.ErrUnauthenticated
	case pinki.CodeConflict:
		kind = sdk.ErrUnsupportedOperation
	default:
		kind = sdk.ErrInternalError
	}
	details := map[string]any{"code": string(pe.Code)}
	if pe.Field != "" {
		details["field"] = pe.Field
	}
	if pe.Hint != "" {
		details["hint"] = pe.Hint
	}
	if len(pe.Details) > 0 {
		details["details"] = pe.Details
	}
	return sdk.NewError(kind, pe.Message).WithDetails(details).
		WithErrorInfoMeta(map[string]string{"pinki_code": string(pe.Code)})
}

// unsupported is the answer to every method the ledger does not serve.
func unsupported(method, hint string) error {
	return sdk.NewError(sdk.ErrUnsupportedOperation, fmt.Sprintf("%s is not supported by the pinki ledger agent%s", method, hint))
}

// handler adapts Server to a2asrv.RequestHandler.
type handler struct{ s *Server }

var _ a2asrv.RequestHandler = handler{}

func (h handler) GetTask(ctx context.Context, req *sdk.GetTaskRequest) (*sdk.Task, error) {
	return h.s.GetTask(ctx, req)
}

func (h handler) SendMessage(ctx context.Context, req *sdk.SendMessageRequest) (sdk.SendMessageResult, error) {
	return h.s.SendMessage(ctx, req)
}

func (h handler) ListTasks(context.Context, *sdk.ListTasksRequest) (*sdk.ListTasksResponse, error) {
	return nil, unsupported("ListTasks", ": list obligations with the ledger's own API")
}

func (h handler) CancelTask(context.Context, *sdk.CancelTaskRequest) (*sdk.Task, error) {
	return nil, unsupported("CancelTask", ": send the record with resolve {\"as\":\"cancelled\",\"reason\":…} (the debtor) or {\"as\":\"released\"} (the creditor)")
}

func (h handler) SubscribeToTask(context.Context, *sdk.SubscribeToTaskRequest) iter.Seq2[sdk.Event, error] {
	return func(yield func(sdk.Event, error) bool) {
		yield(nil, unsupported("SubscribeToTask", " (the card declares no streaming)"))
	}
}

func (h handler) SendStreamingMessage(context.Context, *sdk.SendMessageRequest) iter.Seq2[sdk.Event, error] {
	return func(yield func(sdk.Event, error) bool) {
		yield(nil, unsupported("SendStreamingMessage", " (the card declares no streaming): use SendMessage"))
	}
}

func (h handler) GetTaskPushConfig(context.Context, *sdk.GetTaskPushConfigRequest) (*sdk.PushConfig, error) {
	return nil, sdk.ErrPushNotificationNotSupported
}

func (h handler) ListTaskPushConfigs(context.Context, *sdk.ListTaskPushConfigRequest) (*sdk.ListTaskPushConfigResponse, error) {
	return nil, sdk.ErrPushNotificationNotSupported
}

func (h handler) CreateTaskPushConfig(context.Context, *sdk.PushConfig) (*sdk.PushConfig, error) {
	return nil, sdk.ErrPushNotificationNotSupported
}

func (h handler) DeleteTaskPushConfig(context.Context, *sdk.DeleteTaskPushConfigRequest) error {
	return sdk.ErrPushNotificationNotSupported
}

func (h handler) GetExtendedAgentCard(context.Context, *sdk.GetExtendedAgentCardRequest) (*sdk.AgentCard, error) {
	return nil, sdk.ErrUnsupportedOperation
}
