package emulator

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// The package's test kit, in its one copy: the tests inside the package and
// those of emulator_test both use it.

// Serve runs one request straight through h, as a client at remoteAddr
// sends it to 127.0.0.1:8089: with the Authorization header authz (none if
// empty), and with a JSON body on POST and PUT, which control operations
// require even without one.
func Serve(h http.Handler, method, target, remoteAddr, authz, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	req.RemoteAddr = remoteAddr
	req.Host = "127.0.0.1:8089" // as a local client sends it; control operations refuse other hosts
	if method == http.MethodPost || method == http.MethodPut {
		req.Header.Set("Content-Type", "application/json")
	}
	if authz != "" {
		req.Header.Set("Authorization", authz)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// WriteFile writes content to path or fails the test.
func WriteFile(tb testing.TB, path, content string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		tb.Fatal(err)
	}
}
