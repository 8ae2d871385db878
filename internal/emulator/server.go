package emulator

import (
	"net/http"
	"time"
)

// Timeouts of the emulator's HTTP server. A client that sends its request
// slower than this, or keeps an idle connection open longer, is cut off,
// so slow or idle connections cannot pile up.
const (
	// ReadHeaderTimeout bounds reading the request line and headers.
	ReadHeaderTimeout = 5 * time.Second
	// ReadTimeout bounds reading the whole request, body included.
	ReadTimeout = 10 * time.Second
	// WriteTimeout bounds the time from the end of the request headers to
	// the end of the answer, handling (and injected latency) included.
	WriteTimeout = 90 * time.Second
	// IdleTimeout bounds how long a keep-alive connection waits for the
	// next request.
	IdleTimeout = 15 * time.Second
)

// ServerOptions set the timeouts of the emulator's HTTP server; a zero
// field takes the default above. Tests shorten them so that they need not
// wait as long as a slow client may take.
type ServerOptions struct {
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
}

// NewServer returns the HTTP server the mobileplan-emulator command runs h
// with, timeouts set.
func NewServer(h http.Handler) *http.Server { return ServerOptions{}.NewServer(h) }

// NewServer returns an HTTP server for h with these timeouts.
func (o ServerOptions) NewServer(h http.Handler) *http.Server {
	orDefault := func(d, def time.Duration) time.Duration {
		if d > 0 {
			return d
		}
		return def
	}
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: orDefault(o.ReadHeaderTimeout, ReadHeaderTimeout),
		ReadTimeout:       orDefault(o.ReadTimeout, ReadTimeout),
		WriteTimeout:      orDefault(o.WriteTimeout, WriteTimeout),
		IdleTimeout:       orDefault(o.IdleTimeout, IdleTimeout),
	}
}
