package emulator

import (
	"bytes"
	"log"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func TestLogRequests_oneLinePerRequest(t *testing.T) {
	var buf bytes.Buffer
	logger := log.New(&buf, "", 0)
	h := LogRequests(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/missing":
			http.NotFound(w, r)
		case "/created":
			w.WriteHeader(http.StatusCreated)
			w.WriteHeader(http.StatusInternalServerError) // ignored by net/http, and by the log
		case "/body":
			_, _ = w.Write([]byte("ok"))
		}
	}), logger)
	for _, req := range []struct{ method, path string }{{"GET", "/missing"}, {"POST", "/created"}, {"GET", "/body"}, {"DELETE", "/empty"}} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(req.method, req.path+"?token=x", nil))
	}
	want := regexp.MustCompile(`^GET /missing 404 \S+s\nPOST /created 201 \S+s\nGET /body 200 \S+s\nDELETE /empty 200 \S+s\n$`)
	if !want.Match(buf.Bytes()) {
		t.Errorf("log:\n%s\nwant one line per request matching %s", buf.String(), want)
	}
}

// Fault injection drops connections by hijacking them; the wrapper must
// let it, or the fault turns into an ordinary answer.
func TestLogRequests_hijackPassesThrough(t *testing.T) {
	var buf bytes.Buffer
	logged := make(chan struct{})
	h := LogRequests(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hj, ok := w.(http.Hijacker)
		if !ok {
			t.Error("the wrapper hides http.Hijacker")
			return
		}
		conn, _, err := hj.Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		conn.Close()
	}), log.New(&buf, "", 0))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		close(logged) // the server does not wait for hijacked connections' handlers
	}))
	defer srv.Close()
	if _, err := http.Get(srv.URL + "/v1/plans"); err == nil {
		t.Error("the connection was not dropped")
	}
	<-logged
	if !regexp.MustCompile(`^GET /v1/plans dropped \S+ user-agent="Go-http-client/1.1"\n$`).MatchString(buf.String()) {
		t.Errorf("log %q, want the dropped request", buf.String())
	}
}

// What tells senders apart on a shared token is in the log when sent.
func TestLogRequests_namesTheSender(t *testing.T) {
	var buf bytes.Buffer
	h := LogRequests(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}), log.New(&buf, "", 0))
	req := httptest.NewRequest("GET", "/v1/plans", nil)
	req.Header.Set("User-Agent", "terraform-provider-mobileplan/1.0 pipeline-a")
	req.Header.Set("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	req.Header.Set("tracestate", "ci=github")
	h.ServeHTTP(httptest.NewRecorder(), req)
	want := `GET /v1/plans 200 ` // then the duration
	tail := ` user-agent="terraform-provider-mobileplan/1.0 pipeline-a" traceparent="00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01" tracestate="ci=github"` + "\n"
	if got := buf.String(); !strings.HasPrefix(got, want) || !strings.HasSuffix(got, tail) {
		t.Errorf("log %q, want %q … %q", got, want, tail)
	}
}
