package emulatortest

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
)

// InProcess is an emulator reached without a socket: Transport hands each
// request to its handler in the caller's goroutine. Inside a testing/synctest
// bubble, the client's waits, the emulator's clock and its rate limit then
// all run on the bubble's fake clock, so a test counts requests exactly.
type InProcess struct {
	*emulator.Emulator
	Token string
}

// StartInProcess makes a new emulator until the test ends; call it inside
// the synctest bubble that will use it.
func StartInProcess(tb testing.TB, opts emulator.Options) *InProcess {
	tb.Helper()
	emu, token := newEmulator(tb, opts)
	tb.Cleanup(emu.Close)
	return &InProcess{Emulator: emu, Token: token}
}

// URL is the base URL a client of an InProcess emulator is given: any
// loopback address, since no connection is made.
const URL = "http://127.0.0.1:8089"

// Transport is the http.RoundTripper that reaches e.
func (e *InProcess) Transport() http.RoundTripper { return handlerTransport{e.Emulator} }

// HandlerTransport is an http.RoundTripper whose requests h answers in
// process: a client of it may run in a synctest bubble, where a socket
// would stop the bubble's clock.
func HandlerTransport(h http.Handler) http.RoundTripper { return handlerTransport{h} }

type handlerTransport struct{ handler http.Handler }

func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := httptest.NewRecorder()
	t.handler.ServeHTTP(rec, req)
	return rec.Result(), nil
}
