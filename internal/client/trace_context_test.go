package client

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

func TestParseTraceParent(t *testing.T) {
	const trace, span = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	for value, want := range map[string]string{
		"00-" + trace + "-" + span + "-01":                   "",
		" 00-" + trace + "-" + span + "-00 ":                 "",
		"00-" + strings.Repeat("0", 32) + "-" + span + "-01": "the trace id",
		"00-" + trace + "-0000000000000000-01":               "the parent id",
		"01-" + trace + "-" + span + "-01":                   "not version 00",
		"ff-" + trace + "-" + span + "-01":                   "not version 00",
		"00-" + strings.ToUpper(trace) + "-" + span + "-01":  "the trace id",
		"00-" + trace[:31] + "-" + span + "-01":              "the trace id",
		"00-" + trace + "-" + span + "-1":                    "the flags",
		"00-" + trace + "-" + span + "-01-extra":             "four fields",
		"garbage":                                            "four fields",
	} {
		p, err := ParseTraceParent(value)
		switch {
		case want == "" && (err != nil || p.TraceID != trace):
			t.Errorf("%q: %+v, %v; want trace %s", value, p, err, trace)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("%q: error %v, want one naming %q", value, err, want)
		}
	}
}

// Every request of a client in a trace carries it, with a span of its own.
func TestTraceContextOnEveryRequest(t *testing.T) {
	var got []http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Clone())
		_, _ = w.Write([]byte(`{"items":[],"nextPage":null}`))
	}))
	defer srv.Close()
	parent, err := ParseTraceParent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(Config{BaseURL: srv.URL, Token: "t", TraceParent: &parent, TraceState: "ci=a"})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		for _, err := range c.Plans(t.Context()) {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	header := regexp.MustCompile(`^00-4bf92f3577b34da6a3ce929d0e0e4736-([0-9a-f]{16})-01$`)
	spans := map[string]bool{}
	for _, h := range got {
		m := header.FindStringSubmatch(h.Get("traceparent"))
		if m == nil || h.Get("tracestate") != "ci=a" {
			t.Errorf("traceparent %q, tracestate %q", h.Get("traceparent"), h.Get("tracestate"))
			continue
		}
		if spans[m[1]] || m[1] == "00f067aa0ba902b7" {
			t.Errorf("span %s repeats", m[1])
		}
		spans[m[1]] = true
	}
	if len(got) != 3 {
		t.Errorf("%d requests, want 3", len(got))
	}
}
