package a2a

import (
	"encoding/json"
	"net/http"
	"strings"

	sdk "github.com/a2aproject/a2a-go/v2/a2a"
)

// CardOptions describe the ledger's own agent card (`pinki serve`).
type CardOptions struct {
	// BaseURL is the server's public base URL, such as
	// https://ledger.example.org. Required.
	BaseURL string
	// RPCPath is where the JSON-RPC endpoint is mounted. "" means "/a2a".
	RPCPath string
	// Assessments is where the ledger publishes the assessments it holds
	// (the extension's params.assessments). "" means BaseURL + "/v1/export",
	// the HTTP API's export of every obligation with its assessments.
	Assessments string
	// Name and Description name the agent. "" means "pinki" and a sentence
	// saying what it does.
	Name        string
	Description string
	// Version is the agent's version (pinki's). "" means "dev".
	Version string
}

// AgentCard is the ledger's agent card in A2A v1.0 wire form. It is its own
// type rather than a2a-go's so that the extension entry keeps
// "required": false on the wire, as the binding declares it.
type AgentCard struct {
	Name                string               `json:"name"`
	Description         string               `json:"description"`
	SupportedInterfaces []sdk.AgentInterface `json:"supportedInterfaces"`
	Version             string               `json:"version"`
	Capabilities        CardCapabilities     `json:"capabilities"`
	DefaultInputModes   []string             `json:"defaultInputModes"`
	DefaultOutputModes  []string             `json:"defaultOutputModes"`
	Skills              []sdk.AgentSkill     `json:"skills"`
}

// CardCapabilities are the card's capabilities: no streaming, no push
// notifications, and the promise extension.
type CardCapabilities struct {
	Streaming         bool        `json:"streaming"`
	PushNotifications bool        `json:"pushNotifications"`
	Extensions        []Extension `json:"extensions"`
}

// ServerCard returns the ledger's agent card: one JSON-RPC interface
// (protocol 1.0) at BaseURL + RPCPath, and the promise extension (Card's
// entry: required false) with params.assessments naming where the ledger's
// assessments are published.
func ServerCard(o CardOptions) AgentCard {
	base := strings.TrimRight(o.BaseURL, "/")
	path := o.RPCPath
	if path == "" {
		path = "/a2a"
	}
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	assessments := o.Assessments
	if assessments == "" {
		assessments = base + "/v1/export"
	}
	name, desc, version := o.Name, o.Description, o.Version
	if name == "" {
		name = "pinki"
	}
	if desc == "" {
		desc = "A promise ledger: declares and resolves promises carried under the promise extension, and answers GetTask with an obligation's computed state."
	}
	if version == "" {
		version = "dev"
	}
	exts := Card().Capabilities.Extensions
	for i := range exts {
		if exts[i].URI == ExtensionURI {
			exts[i].Params = map[string]any{"assessments": assessments}
		}
	}
	return AgentCard{
		Name: name, Description: desc, Version: version,
		SupportedInterfaces: []sdk.AgentInterface{{URL: base + path,
			ProtocolBinding: sdk.TransportProtocolJSONRPC, ProtocolVersion: sdk.Version}},
		Capabilities:       CardCapabilities{Extensions: exts},
		DefaultInputModes:  []string{"application/json", "text/plain"},
		DefaultOutputModes: []string{"application/json"},
		Skills: []sdk.AgentSkill{{
			ID:          "promise-ledger",
			Name:        "Promise ledger",
			Description: "Send a promise record under message.metadata[\"" + MetadataKey + "\"] to declare it, or with resolve to resolve it; the reply is the obligation as a Task. GetTask returns it.",
			Tags:        []string{"promises", "obligations", "ledger"},
			InputModes:  []string{"application/json"},
			OutputModes: []string{"application/json"},
		}},
	}
}

// CardHandler serves card at GET (and HEAD) /.well-known/agent-card.json
// wherever it is mounted, as application/json with a short cache lifetime;
// other methods get 405.
func CardHandler(card AgentCard) http.Handler {
	body, err := json.MarshalIndent(card, "", "  ")
	if err != nil {
		panic("a2a: encoding the agent card: " + err.Error()) // only plain types: cannot happen
	}
	body = append(body, '\n')
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "public, max-age=300")
		w.Header().Set("Access-Control-Allow-Origin", "*")
		if r.Method == http.MethodHead {
			return
		}
		w.Write(body)
	})
}
