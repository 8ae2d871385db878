package client

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// Seed corpora are committed under testdata/fuzz/<target>/; run a target
// with, e.g., go test -run='^$' -fuzz=FuzzDecodeAPIError -fuzztime=30s ./internal/client/

func FuzzDecodeAPIError(f *testing.F) {
	f.Add(412, "", []byte(`{"code":"outOfInventory","message":"no eSIM left","docsUrl":null}`))
	f.Add(400, "", []byte(richerError))
	f.Add(429, "7", []byte(`{"code":"rateLimited","message":"slow down","docsUrl":"https://d/rateLimited"}`))
	f.Add(502, "", []byte("<html><body><h1>502 Bad Gateway</h1></body></html>"))
	f.Add(502, "", []byte{})
	f.Fuzz(func(t *testing.T, status int, retryAfter string, body []byte) {
		header := http.Header{}
		if retryAfter != "" {
			header.Set("Retry-After", retryAfter)
		}
		e := decodeAPIError(status, header, body)
		if e == nil {
			t.Fatal("nil APIError")
		}
		if e.StatusCode != status || e.RetryAfter < 0 {
			t.Errorf("StatusCode = %d, RetryAfter = %v", e.StatusCode, e.RetryAfter)
		}
		msg := e.Error()
		if msg == "" || !strings.Contains(msg, strconv.Itoa(status)) {
			t.Errorf("Error() = %q does not name the status %d", msg, status)
		}
		ex := e.BodyExcerpt
		if !utf8.ValidString(ex) || utf8.RuneCountInString(ex) > excerptLen+1 || len(ex) > 3*(excerptLen+1) {
			t.Errorf("BodyExcerpt (%d bytes, %d runes) is not bounded valid text: %q", len(ex), utf8.RuneCountInString(ex), ex)
		}
		if ex != "" && (e.Code != "" || e.Message != "") {
			t.Errorf("both a service error (%q, %q) and an excerpt", e.Code, e.Message)
		}
		for _, d := range e.Details {
			_ = d.String()
		}
		_ = suggestions(e)
		// The wrappers format it as well.
		_ = (&UncertainCreateError{Err: e}).Error()
		_ = (&PageError{Call: Call{Operation: "list"}, Page: 1, Err: e}).Error()
	})
}
