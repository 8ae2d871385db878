package emulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

// Error codes. The interface document names only outOfInventory; the others
// are fixed by the contract.
const (
	codeInvalidRequest = "invalidRequest"
	codeUnauthorized   = "unauthorized"
	codeNotFound       = "notFound"
	codeInvalidPlan    = "invalidPlan"
	codeOutOfInventory = "outOfInventory"
	codeRateLimited    = "rateLimited"
	codeInternal       = "internal"
	codeConflict       = "conflict"
	codeForbidden      = "forbidden"
)

// DocsBaseURL prefixes the docsUrl of every error the emulator returns.
const DocsBaseURL = "https://docs.mobileplan.example/errors/"

func newError(code, message string, details ...ErrorDetail) *ErrorBody {
	return &ErrorBody{Code: code, Message: message, DocsURL: ptr(DocsBaseURL + code), Details: details}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		status, body = http.StatusInternalServerError, []byte(`{"code":"internal","message":"could not encode the response","docsUrl":null}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func writeError(w http.ResponseWriter, status int, body *ErrorBody) {
	writeJSON(w, status, body)
}

// writeChangeError answers a change that was not made: a refusal with its
// own status, or 500 when storage failed (the change was undone) or the
// emulator is shutting down.
func writeChangeError(w http.ResponseWriter, err error) {
	var ce *controlError
	var se *state.StorageError
	switch {
	case errors.As(err, &ce):
		writeError(w, ce.status, ce.body)
	case errors.As(err, &se):
		writeError(w, http.StatusInternalServerError, newError(codeInternal, se.Error()))
	case errors.Is(err, state.ErrClosed):
		writeError(w, http.StatusServiceUnavailable, newError(codeInternal, "the emulator is shutting down; the change was not made"))
	default:
		writeError(w, http.StatusBadRequest, newError(codeInvalidRequest, err.Error()))
	}
}

// controlError is a control operation's failure: an HTTP status and Error body.
type controlError struct {
	status int
	body   *ErrorBody
}

func (e *controlError) Error() string { return e.body.Message }

func notFound(what, id string) *controlError {
	return &controlError{404, newError(codeNotFound, fmt.Sprintf("%s %q does not exist", what, id))}
}

func badRequest(msg string) *controlError {
	return &controlError{400, newError(codeInvalidRequest, msg)}
}
