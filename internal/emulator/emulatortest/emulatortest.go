// Package emulatortest starts an emulator for one test and stops it when
// the test ends: on a loopback port (Start, StartTLS), or reached without a
// socket through an in-process transport (StartInProcess), whose requests
// run in the caller's goroutine, as a testing/synctest bubble needs.
package emulatortest

import (
	"crypto/tls"
	"io"
	"log"
	"net/http/httptest"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
)

// Token is the bearer token of emulators started here unless opts sets one.
const Token = "test-token-4f2b9c"

// Server is a running emulator.
type Server struct {
	*emulator.Emulator
	// URL is the base URL, such as http://127.0.0.1:40123.
	URL   string
	Token string
}

// Start serves a new emulator until the test ends.
func Start(tb testing.TB, opts emulator.Options) *Server {
	tb.Helper()
	emu, token := newEmulator(tb, opts)
	srv := httptest.NewServer(emu)
	return served(tb, emu, token, srv)
}

// StartTLS serves a new emulator over TLS with config (its certificate;
// nil: httptest's own) until the test ends. URL is https://127.0.0.1:PORT.
func StartTLS(tb testing.TB, opts emulator.Options, config *tls.Config) *Server {
	tb.Helper()
	emu, token := newEmulator(tb, opts)
	srv := httptest.NewUnstartedServer(emu)
	srv.TLS = config
	// A client refusing the certificate is what TLS tests provoke; the
	// handshake errors would only clutter their output.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	return served(tb, emu, token, srv)
}

// served is emu, running in srv, stopped with it when the test ends.
func served(tb testing.TB, emu *emulator.Emulator, token string, srv *httptest.Server) *Server {
	tb.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		emu.Close()
	})
	return &Server{Emulator: emu, URL: srv.URL, Token: token}
}

// newEmulator makes an emulator of opts, with Token unless opts sets one.
func newEmulator(tb testing.TB, opts emulator.Options) (*emulator.Emulator, string) {
	tb.Helper()
	if opts.Token == "" {
		opts.Token = Token
	}
	emu, err := emulator.New(opts)
	if err != nil {
		tb.Fatalf("emulator: %v", err)
	}
	return emu, opts.Token
}
