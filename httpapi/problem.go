package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/pinki-ledger/pinki"
)

// ProblemContentType is the media type of every error answer (RFC 9457).
const ProblemContentType = "application/problem+json"

// problemTypeBase prefixes a problem's type URI; the code follows.
const problemTypeBase = "urn:pinki:problem:"

// Problem is an RFC 9457 problem details object with pinki's extensions:
// Code is the stable error class (pinki.Code, the same the CLI maps to exit
// statuses), Field the input at fault, Hint a suggested fix, Details one line
// per item when there are several (schema violations).
type Problem struct {
	Type    string   `json:"type"`
	Title   string   `json:"title"`
	Status  int      `json:"status"`
	Detail  string   `json:"detail"`
	Code    string   `json:"code"`
	Field   string   `json:"field,omitempty"`
	Hint    string   `json:"hint,omitempty"`
	Details []string `json:"details,omitempty"`
}

// Status is the HTTP status for a code. This is the one place the mapping
// lives: invalid 400, unauthenticated 401, forbidden 403, not_found 404,
// conflict 409, too_large 413, unavailable 503, anything else 500.
func Status(c pinki.Code) int {
	switch c {
	case pinki.CodeInvalid:
		return http.StatusBadRequest
	case pinki.CodeUnauthenticated:
		return http.StatusUnauthorized
	case pinki.CodeForbidden:
		return http.StatusForbidden
	case pinki.CodeNotFound:
		return http.StatusNotFound
	case pinki.CodeConflict:
		return http.StatusConflict
	case pinki.CodeTooLarge:
		return http.StatusRequestEntityTooLarge
	case pinki.CodeUnavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

// ProblemOf converts an error to a problem: a *pinki.Error keeps its code,
// message, field, hint and details; anything else becomes unavailable.
func ProblemOf(err error) Problem {
	pe := pinki.AsError(err)
	st := Status(pe.Code)
	return Problem{Type: problemTypeBase + string(pe.Code), Title: http.StatusText(st), Status: st,
		Detail: pe.Message, Code: string(pe.Code), Field: pe.Field, Hint: pe.Hint, Details: pe.Details}
}

// Error converts a problem back to the *pinki.Error it came from.
func (p Problem) Error() *pinki.Error {
	code := pinki.Code(p.Code)
	if code == "" {
		code = codeOfStatus(p.Status)
	}
	msg := p.Detail
	if msg == "" {
		msg = p.Title
	}
	return &pinki.Error{Code: code, Message: msg, Field: p.Field, Hint: p.Hint, Details: p.Details}
}

// codeOfStatus guesses a code for an answer that carries none (a proxy's).
func codeOfStatus(st int) pinki.Code {
	switch st {
	case http.StatusBadRequest, http.StatusUnprocessableEntity, http.StatusMethodNotAllowed:
		return pinki.CodeInvalid
	case http.StatusUnauthorized:
		return pinki.CodeUnauthenticated
	case http.StatusForbidden:
		return pinki.CodeForbidden
	case http.StatusNotFound:
		return pinki.CodeNotFound
	case http.StatusConflict, http.StatusPreconditionFailed:
		return pinki.CodeConflict
	case http.StatusRequestEntityTooLarge:
		return pinki.CodeTooLarge
	case http.StatusInternalServerError:
		return pinki.CodeInternal
	}
	return pinki.CodeUnavailable
}

// WriteProblem writes err as problem+json (see ProblemOf and Status) and
// returns the status it wrote. A 401 carries the Bearer challenge. Other HTTP
// surfaces (MCP over streamable HTTP) use it to answer in the same shape.
func WriteProblem(w http.ResponseWriter, err error) int {
	return sendProblem(w, ProblemOf(err))
}

// sendProblem writes p and returns its status.
func sendProblem(w http.ResponseWriter, p Problem) int {
	h := w.Header()
	h.Set("Content-Type", ProblemContentType)
	h.Set("Cache-Control", "no-store")
	if p.Status == http.StatusUnauthorized {
		h.Set("WWW-Authenticate", `Bearer realm="pinki", error="invalid_token"`)
	}
	w.WriteHeader(p.Status)
	b, _ := json.Marshal(p)
	w.Write(append(b, '\n'))
	return p.Status
}
