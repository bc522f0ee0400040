package httpapi

import (
	_ "embed"
	"net/http"

	"github.com/pinki-ledger/pinki"
)

// OpenAPI is the OpenAPI 3.1 document of the API, as GET /v1/openapi.json
// serves it. A test checks that it names exactly the routes the server
// registers, that its body schemas name exactly the fields the handlers
// decode, and that its examples decode.
//
//go:embed openapi.json
var OpenAPI []byte

func (s *Server) openAPI(w http.ResponseWriter, r *http.Request, _ pinki.Identity) error {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(OpenAPI)
	return err
}
