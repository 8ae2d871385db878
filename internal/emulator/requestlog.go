package emulator

import (
	"bufio"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// LogRequests writes one line per request: method, path, status and
// duration, then what tells its sender apart (User-Agent, and the W3C
// trace context's traceparent and tracestate), each when sent. A
// connection the emulator drops on purpose (fault injection) shows as
// status "dropped".
func LogRequests(next http.Handler, logger *log.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		status := "dropped"
		switch {
		case rec.status != 0:
			status = strconv.Itoa(rec.status)
		case !rec.hijacked:
			status = "200" // the handler wrote nothing: net/http answers 200
		}
		line := fmt.Sprintf("%s %s %s %s", r.Method, r.URL.Path, status, time.Since(start).Round(time.Microsecond))
		for _, h := range []string{"User-Agent", "traceparent", "tracestate"} {
			if v := r.Header.Get(h); v != "" {
				line += fmt.Sprintf(" %s=%q", strings.ToLower(h), v)
			}
		}
		logger.Print(line)
	})
}

type statusRecorder struct {
	http.ResponseWriter
	status   int
	hijacked bool
}

func (s *statusRecorder) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Hijack lets fault injection drop the connection through the wrapper.
func (s *statusRecorder) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := s.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("the connection cannot be taken over")
	}
	s.hijacked = true
	return hj.Hijack()
}

// Unwrap gives http.ResponseController the writer underneath.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }
