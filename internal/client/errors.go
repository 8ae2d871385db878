package client

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// CodeOutOfInventory is the error code the provider relies on, the one the
// interface document names; the contract's others (invalidPlan, notFound)
// decide nothing beyond what their status code does.
const CodeOutOfInventory = "outOfInventory"

// ErrorDetail is one entry of the richer error shape's details list.
type ErrorDetail struct {
	Property   string `json:"property,omitempty"`
	Code       string `json:"code,omitempty"`
	Message    string `json:"message,omitempty"`
	Suggestion string `json:"suggestion,omitempty"`
}

// Call names the request an error is about: what was being done, and the
// HTTP method and path that did it.
type Call struct {
	Operation string // e.g. "create subscription"
	Method    string
	Path      string
}

// String is the call as every error text starts: `create subscription (POST /v1/subscriptions)`.
func (c Call) String() string { return fmt.Sprintf("%s (%s %s)", c.Operation, c.Method, c.Path) }

// APIError is any answer of the service other than success.
type APIError struct {
	Call
	StatusCode int
	Status     string // e.g. "412 Precondition Failed"

	// From the Error body (2.4), when the body is one.
	Code    string
	Message string
	DocsURL string
	Details []ErrorDetail
	Hint    string

	// RetryAfter is the service's Retry-After, zero when absent.
	RetryAfter time.Duration
	// BodyExcerpt holds the start of a body that is not a service Error
	// (an HTML page from a proxy, an empty 502).
	BodyExcerpt string
	Attempts    int
}

// Error is one line of facts: the operation, the status, and the service's
// code and message. Details, hint and docs stay in their fields, for
// internal/diagnostics to show.
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: HTTP %s", e.Call, e.Status)
	if e.Code != "" {
		fmt.Fprintf(&b, ", code %s", e.Code)
	}
	switch {
	case e.Message != "":
		fmt.Fprintf(&b, ": %s", e.Message)
	case e.Code != "":
	case e.BodyExcerpt == "":
		b.WriteString(", with an empty body")
	default:
		fmt.Fprintf(&b, ", with a body that is not a service error: %q", e.BodyExcerpt)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " [after %d attempts]", e.Attempts)
	}
	return b.String()
}

func (d ErrorDetail) String() string {
	var parts []string
	if d.Property != "" {
		parts = append(parts, d.Property+":")
	}
	if d.Message != "" {
		parts = append(parts, d.Message)
	}
	if d.Suggestion != "" {
		parts = append(parts, "(suggestion: "+d.Suggestion+")")
	}
	return strings.Join(parts, " ")
}

// IsNotFound reports whether err is a 404 from the service.
func IsNotFound(err error) bool { return statusIs(err, http.StatusNotFound) }

// IsPreconditionFailed reports whether err is a 412 from the service: the
// plan cannot be subscribed to, or the inventory has no suitable eSIM.
func IsPreconditionFailed(err error) bool { return statusIs(err, http.StatusPreconditionFailed) }

// IsBadRequest reports whether err is a 400: the service found the request
// invalid, and its message says which field.
func IsBadRequest(err error) bool { return statusIs(err, http.StatusBadRequest) }

func statusIs(err error, status int) bool {
	var apiErr *APIError
	return errors.As(err, &apiErr) && apiErr.StatusCode == status
}

// NoSuchPathError is a 404 that is not the service's answer about an
// object: the path itself is unknown where base_url points, so base_url
// is wrong (a path prefix too many, a typo), and no plan or subscription
// is missing.
type NoSuchPathError struct {
	Call
	URL         string // the whole URL requested
	BodyExcerpt string
}

func (e *NoSuchPathError) Error() string {
	return fmt.Sprintf("%s: the service at %s has no such path (HTTP 404): the base URL does not lead to the service", e.Call, e.URL)
}

// UncertainCreateError means a create request may have taken effect at the
// service although no answer says so: the connection dropped or timed out
// after the request was sent, a gateway answered 5xx, or the answer could
// not be read. Retrying could create a second subscription and burn a second
// eSIM, so the client never does.
type UncertainCreateError struct {
	Err error
}

func (e *UncertainCreateError) Error() string {
	return fmt.Sprintf("%v; the service may have created the subscription even so, and the request was not retried", e.Err)
}

func (e *UncertainCreateError) Unwrap() error { return e.Err }

// RequestError is a request that got no answer from the service at all, even
// after retries, or that was never sent (NotSent).
type RequestError struct {
	Call
	Attempts int
	Err      error
	// Timeout is the per-attempt limit, set when the last attempt ran out of it.
	Timeout time.Duration
	// NotSent is set when the last attempt was never sent because this
	// side gave up first: the client was stopped, the caller cancelled, or
	// the wait for the rate limit would have passed the deadline.
	NotSent bool
}

func (e *RequestError) Error() string {
	if e.NotSent {
		return fmt.Sprintf("%s: not sent: %v", e.Call, e.Err)
	}
	s := fmt.Sprintf("%s: no answer from the service", e.Call)
	if e.Attempts > 1 {
		s += fmt.Sprintf(" after %d attempts", e.Attempts)
	}
	if e.Timeout > 0 {
		s += fmt.Sprintf(", the last timed out after %s", e.Timeout)
	}
	return s + ": " + e.Err.Error()
}

func (e *RequestError) Unwrap() error { return e.Err }

// DecodeError is a success answer whose body is not what the operation returns.
type DecodeError struct {
	Call
	StatusCode  int
	Err         error
	BodyExcerpt string
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("%s: HTTP %d, but the answer could not be read: %v; it began %q", e.Call, e.StatusCode, e.Err, e.BodyExcerpt)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// errorBody is the Error shape (2.4) together with the richer shape's
// fields that the contract asks clients to read.
type errorBody struct {
	Code    string        `json:"code"`
	Message string        `json:"message"`
	DocsURL *string       `json:"docsUrl"`
	Details []ErrorDetail `json:"details"`
	Hint    string        `json:"hint"`
	// The richer shape points to documentation in a list instead of
	// docsUrl; its entries' shape is not documented, so each is kept raw.
	Documentation []json.RawMessage `json:"documentation"`
}

const excerptLen = 200

// decodeAPIError builds an APIError from a non-success answer. It never
// fails: a body that is not an Error is kept as a short excerpt.
func decodeAPIError(status int, header http.Header, body []byte) *APIError {
	e := &APIError{
		StatusCode: status,
		Status:     fmt.Sprintf("%d %s", status, http.StatusText(status)),
		RetryAfter: parseRetryAfter(header.Get("Retry-After"), time.Now()),
	}
	if http.StatusText(status) == "" {
		e.Status = strconv.Itoa(status)
	}
	var eb errorBody
	if err := json.Unmarshal(body, &eb); err == nil && (eb.Code != "" || eb.Message != "") {
		e.Code, e.Message, e.Details, e.Hint = eb.Code, eb.Message, eb.Details, eb.Hint
		switch {
		case eb.DocsURL != nil:
			e.DocsURL = *eb.DocsURL
		default:
			e.DocsURL = firstDocURL(eb.Documentation)
		}
		return e
	}
	e.BodyExcerpt = excerpt(body)
	return e
}

// firstDocURL takes the first documentation entry that is a string, or an
// object with a url or href.
func firstDocURL(entries []json.RawMessage) string {
	for _, raw := range entries {
		var s string
		if json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
		var obj struct {
			URL  string `json:"url"`
			Href string `json:"href"`
		}
		if json.Unmarshal(raw, &obj) == nil {
			if obj.URL != "" {
				return obj.URL
			}
			if obj.Href != "" {
				return obj.Href
			}
		}
	}
	return ""
}

// excerpt returns the start of body as printable text of a bounded length.
func excerpt(body []byte) string {
	s := strings.Join(strings.Fields(strings.ToValidUTF8(string(body), "\uFFFD")), " ")
	if len(s) > excerptLen {
		cut := excerptLen
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// parseRetryAfter reads Retry-After as seconds or as an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 {
			return 0
		}
		return time.Duration(min(secs, int64(24*time.Hour/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// RedirectError is a redirect to another origin than the configured base
// URL's. It is not followed: the API token is for that one origin, and
// following would also let https fall back to http.
type RedirectError struct {
	Call
	Status int    // the redirect's HTTP status
	Target string // scheme://host:port of the Location, never its path or query
	Origin string // scheme://host:port of the base URL
}

func (e *RedirectError) Error() string {
	s := fmt.Sprintf("the service answered HTTP %d, a redirect to %s", e.Status, e.Target)
	if e.Operation != "" {
		s = fmt.Sprintf("%s: %s", e.Call, s)
	}
	return s + ", another origin than the base URL's " + e.Origin
}

// redactedSecret stands where the service repeated the API token.
const redactedSecret = "REDACTED"

// hideSecret replaces secret wherever an answer repeated it: a service or a
// proxy that echoes the request's Authorization header must not make the
// token part of an error, whose text people read and Terraform logs. raw is
// cleaned before it is decoded or excerpted (an excerpt may cut a token in
// two); the decoded fields are cleaned again for a token that JSON escaping
// had disguised in raw.
func hideSecret(raw []byte, secret string) []byte {
	if secret == "" {
		return raw
	}
	return bytes.ReplaceAll(raw, []byte(secret), []byte(redactedSecret))
}

func (e *APIError) hideSecret(secret string) {
	if secret == "" {
		return
	}
	fields := []*string{&e.Code, &e.Message, &e.DocsURL, &e.Hint, &e.BodyExcerpt}
	for i := range e.Details {
		d := &e.Details[i]
		fields = append(fields, &d.Property, &d.Code, &d.Message, &d.Suggestion)
	}
	for _, f := range fields {
		*f = strings.ReplaceAll(*f, secret, redactedSecret)
	}
}

// CreatedNothing reports whether a create that failed with err is known
// to have made nothing at the service: it was never sent, or the service
// answered it with a 4xx (a 429 included), which acts on nothing. Any
// other failure (no answer, a 5xx, an answer that could not be read) may
// hide a subscription made.
func CreatedNothing(err error) bool {
	var (
		apiErr  *APIError
		reqErr  *RequestError
		pathErr *NoSuchPathError
		waitErr *RateLimitWaitError
		unsure  *UncertainCreateError
	)
	switch {
	case errors.As(err, &unsure):
		return false
	case errors.As(err, &apiErr):
		return apiErr.StatusCode >= 400 && apiErr.StatusCode < 500
	case errors.As(err, &reqErr):
		return reqErr.NotSent
	case errors.As(err, &pathErr), errors.As(err, &waitErr), errors.Is(err, ErrStopped), IsSendRecordError(err):
		return true
	}
	return false
}
