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

// NewServer returns the HTTP server the mobileplan-emulator command runs h
// with, timeouts set.
func NewServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
	}
}
