package main

import (
	"bufio"
	"errors"
	"log"
	"net"
	"net/http"
	"strconv"
	"time"
)

// logRequests writes one line per request: method, path, status and
// duration. A connection the emulator drops on purpose (fault injection)
// shows as status "dropped".
func logRequests(next http.Handler, logger *log.Logger) http.Handler {
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
		logger.Printf("%s %s %s %s", r.Method, r.URL.Path, status, time.Since(start).Round(time.Microsecond))
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
