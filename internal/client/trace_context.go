package client

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
)

// W3C Trace Context (https://www.w3.org/TR/trace-context/): a caller that
// is itself part of a trace (a CI job whose pipeline started one) passes
// its traceparent, and every request then carries the same trace id with
// a span id of its own, so that the service's logs, or a proxy's, tie
// each request to the job that sent it.

// TraceParent is a parsed traceparent of version 00.
type TraceParent struct {
	TraceID string // 32 lowercase hex digits, not all zero
	Flags   string // 2 lowercase hex digits
}

// ParseTraceParent reads a traceparent header value of version 00:
// 00-<32 hex>-<16 hex>-<2 hex>, lowercase, ids not all zero.
func ParseTraceParent(value string) (TraceParent, error) {
	parts := strings.Split(strings.TrimSpace(value), "-")
	switch {
	case len(parts) != 4:
		return TraceParent{}, errors.New("not four fields separated by '-'")
	case parts[0] != "00":
		return TraceParent{}, errors.New("not version 00")
	case !lowerHex(parts[1], 32) || allZero(parts[1]):
		return TraceParent{}, errors.New("the trace id is not 32 lowercase hex digits, not all zero")
	case !lowerHex(parts[2], 16) || allZero(parts[2]):
		return TraceParent{}, errors.New("the parent id is not 16 lowercase hex digits, not all zero")
	case !lowerHex(parts[3], 2):
		return TraceParent{}, errors.New("the flags are not 2 lowercase hex digits")
	}
	return TraceParent{TraceID: parts[1], Flags: parts[3]}, nil
}

// CheckTraceState reads a tracestate header value: at most 512 printable
// ASCII characters, as the specification bounds what a vendor may pass on.
func CheckTraceState(value string) error {
	if len(value) > 512 {
		return errors.New("longer than 512 characters")
	}
	for _, r := range value {
		if r < 0x20 || r > 0x7e {
			return errors.New("not printable ASCII")
		}
	}
	return nil
}

func lowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, r := range s {
		if (r < '0' || r > '9') && (r < 'a' || r > 'f') {
			return false
		}
	}
	return true
}

func allZero(s string) bool { return strings.Trim(s, "0") == "" }

// traceContext sets traceparent, with a span id of its own for each
// request, and tracestate when there is one.
type traceContext struct {
	parent TraceParent
	state  string
	next   http.RoundTripper
}

func (t traceContext) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("traceparent", "00-"+t.parent.TraceID+"-"+newSpanID()+"-"+t.parent.Flags)
	if t.state != "" {
		req.Header.Set("tracestate", t.state)
	}
	return t.next.RoundTrip(req)
}

// newSpanID is 16 random lowercase hex digits, not all zero.
func newSpanID() string {
	b := make([]byte, 8)
	for {
		_, _ = rand.Read(b)
		if id := hex.EncodeToString(b); !allZero(id) {
			return id
		}
	}
}
