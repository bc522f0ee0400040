package pinki

import (
	"errors"
	"fmt"
)

// Code is a stable error class. Surfaces map each code exactly once: the CLI to
// an exit status (SPEC §4), the HTTP API to a status and problem "code", the
// MCP server to a tool error carrying the code.
type Code string

// The error codes. Their spelling is part of the public contract.
const (
	// CodeInvalid: refused input or usage. Exit 2, HTTP 400/422.
	CodeInvalid Code = "invalid"
	// CodeNotFound: an id the ledger does not hold. Exit 2, HTTP 404.
	CodeNotFound Code = "not_found"
	// CodeForbidden: writing as a seat you are not, or acting outside your
	// authority. Exit 2, HTTP 403.
	CodeForbidden Code = "forbidden"
	// CodeUnauthenticated: no credential, or one that is not valid. Exit 2,
	// HTTP 401.
	CodeUnauthenticated Code = "unauthenticated"
	// CodeConflict: stale rev, already resolved differently, concurrent change.
	// Exit 4, HTTP 409.
	CodeConflict Code = "conflict"
	// CodeTooLarge: a body or field over its size cap. Exit 2, HTTP 413.
	CodeTooLarge Code = "too_large"
	// CodeUnavailable: operational failure: I/O, lock timeout, server
	// unreachable, database down. Exit 1, HTTP 503.
	CodeUnavailable Code = "unavailable"
	// CodeInternal: a bug. Exit 1, HTTP 500.
	CodeInternal Code = "internal"
	// CodePartial: a read succeeded but the ledger holds lines this version
	// does not understand. Exit 3.
	CodePartial Code = "partial"
)

// ExitStatus is the CLI exit status for a code (SPEC §4).
func (c Code) ExitStatus() int {
	switch c {
	case CodeInvalid, CodeNotFound, CodeForbidden, CodeUnauthenticated, CodeTooLarge:
		return 2
	case CodeConflict:
		return 4
	case CodePartial:
		return 3
	default:
		return 1
	}
}

// Error is the one error type every layer returns for a refusal or failure that a
// user can act on. Message is one lower-case line naming the field and the rule;
// Field names the input at fault when there is one; Hint suggests a fix; Details
// carries one line per item when there are several (schema violations).
type Error struct {
	Code    Code     `json:"code"`
	Message string   `json:"message"`
	Field   string   `json:"field,omitempty"`
	Hint    string   `json:"hint,omitempty"`
	Details []string `json:"details,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// Errorf returns an *Error with the code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns a CodeInvalid error about field.
func Invalid(field, format string, args ...any) *Error {
	return &Error{Code: CodeInvalid, Field: field, Message: fmt.Sprintf(format, args...)}
}

// WithHint returns a copy of e with its hint set (e itself is unchanged, so
// that shared errors such as ErrReplaced stay as they are).
func (e *Error) WithHint(format string, args ...any) *Error {
	c := *e
	c.Hint = fmt.Sprintf(format, args...)
	return &c
}

// ErrorCode returns the code of err: the code of the first *Error in its chain,
// CodeUnavailable for any other non-nil error, "" for nil.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Code
	}
	return CodeUnavailable
}

// AsError returns err as an *Error, wrapping a foreign error as CodeUnavailable.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var pe *Error
	if errors.As(err, &pe) {
		return pe
	}
	return &Error{Code: CodeUnavailable, Message: err.Error()}
}
