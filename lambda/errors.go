package lambda

import (
	"errors"
	"fmt"
)

// Error codes sent to the client in `error` frames (SPEC §5).
const (
	EBadRequest  = "bad_request"
	EUnknownType = "unknown_type"
	ETooLarge    = "too_large"
	ERateLimited = "rate_limited"
	EInternal    = "internal"
)

// internalMessage is what the client is told about any internal error; the
// details go to the log only.
const internalMessage = "Internal error."

// Error is an error with a code and a message meant for the client. Errors
// that are not *Error are internal: the client sees [EInternal] and
// "Internal error.", and the details are logged.
type Error struct {
	Code    string // one of the E* constants
	Message string // safe to show to the client
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("groundwire %s: %s", e.Code, e.Message)
}

// Errorf returns an *Error with the code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first *Error in err's chain, "" for a
// nil error and [EInternal] for any other error.
func ErrorCode(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Code
	default:
		return EInternal
	}
}

// ErrorMessage returns the client-safe message of the first *Error in err's
// chain, "" for a nil error and "Internal error." for any other error.
func ErrorMessage(err error) string {
	var e *Error
	switch {
	case err == nil:
		return ""
	case errors.As(err, &e):
		return e.Message
	default:
		return internalMessage
	}
}
