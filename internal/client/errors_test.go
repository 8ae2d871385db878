package client

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/state"
)

// maxExcerptBytes bounds BodyExcerpt: excerptLen bytes and an ellipsis.
const maxExcerptBytes = excerptLen + len("…")

func TestAPIErrorHTML502Page(t *testing.T) {
	t.Parallel()
	emu := startWithFaults(t, emulator.FaultRule{Method: "GET", Action: "html"})
	c := newTestClient(t, emu.URL, func(cfg *Config) { cfg.MaxRetries = ptr(0) })
	_, err := c.GetPlan(bg, "plan_001")
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("error = %v (%T), want *APIError", err, err)
	}
	if apiErr.StatusCode != 502 || apiErr.Status != "502 Bad Gateway" || apiErr.Code != "" || apiErr.Message != "" {
		t.Errorf("APIError = %s", dump(apiErr))
	}
	if !strings.Contains(apiErr.BodyExcerpt, "502 Bad Gateway") || !strings.Contains(apiErr.BodyExcerpt, "nginx") || len(apiErr.BodyExcerpt) > maxExcerptBytes {
		t.Errorf("BodyExcerpt = %q", apiErr.BodyExcerpt)
	}
	if msg := err.Error(); !strings.Contains(msg, "502") || !strings.Contains(msg, "not a service error") || strings.Contains(msg, "\n") {
		t.Errorf("Error() = %q", msg)
	}
}

func TestAPIErrorEmpty502(t *testing.T) {
	t.Parallel()
	emu := startWithFaults(t, emulator.FaultRule{Method: "GET", Action: "empty"})
	c := newTestClient(t, emu.URL, func(cfg *Config) { cfg.MaxRetries = ptr(1) })
	_, err := c.GetEsim(bg, state.ICCID(1))
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 502 || apiErr.BodyExcerpt != "" || apiErr.Attempts != 2 {
		t.Fatalf("error = %v, APIError %s", err, dump(apiErr))
	}
	if msg := err.Error(); !strings.Contains(msg, "502") || !strings.Contains(msg, "empty body") || !strings.Contains(msg, "[after 2 attempts]") {
		t.Errorf("Error() = %q", msg)
	}
}

func TestAPIErrorLongBodyExcerptBounded(t *testing.T) {
	t.Parallel()
	page := "<html><head><title>502 Bad Gateway</title></head>\n<body>\n" + strings.Repeat("<p>upstream   connect error or disconnect/reset before headers</p>\n", 2000) + "</body></html>"
	srv := startServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(502)
		_, _ = io.WriteString(w, page)
	})
	c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.MaxRetries = ptr(0) })
	_, err := c.GetSubscription(bg, "sub_1")
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 502 {
		t.Fatalf("error = %v", err)
	}
	ex := apiErr.BodyExcerpt
	if len(ex) > maxExcerptBytes || !strings.HasSuffix(ex, "…") || !strings.HasPrefix(ex, "<html><head><title>502 Bad Gateway</title></head> <body> <p>upstream connect") {
		t.Errorf("BodyExcerpt (%d bytes) = %q; want the start, whitespace collapsed, at most %d bytes", len(ex), ex, maxExcerptBytes)
	}
	if n := len(err.Error()); n > 600 {
		t.Errorf("Error() is %d bytes; a proxy page must not flood the diagnostics", n)
	}
}

// richerError is the richer error shape of section 7 of the interface
// document, as a server may send it.
const richerError = `{
  "object": "error",
  "type": "invalid_request_error",
  "code": "parameter_invalid",
  "message": "The request is invalid.",
  "hint": "Check the planId parameter.",
  "details": [
    {"object": "error_detail", "code": "plan_archived", "message": "the plan is archived", "property": "planId", "suggestion": "choose a plan that is not archived"},
    {"object": "error_detail", "code": "too_long", "message": "is too long", "property": "metadata.note"}
  ],
  "documentation": ["https://docs.example/errors/parameter_invalid", "https://docs.example/errors"]
}`

func TestAPIErrorRicherShape(t *testing.T) {
	t.Parallel()
	srv := startServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(400)
		_, _ = io.WriteString(w, richerError)
	})
	c := newTestClient(t, srv.URL, nil)
	_, err := c.CreateSubscription(bg, CreateSubscriptionRequest{PlanID: "plan_009"})
	var apiErr *APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("error = %v", err)
	}
	if apiErr.StatusCode != 400 || apiErr.Code != "parameter_invalid" || apiErr.Message != "The request is invalid." ||
		apiErr.Hint != "Check the planId parameter." || apiErr.DocsURL != "https://docs.example/errors/parameter_invalid" || apiErr.BodyExcerpt != "" {
		t.Errorf("APIError = %s", dump(apiErr))
	}
	want := []ErrorDetail{
		{Property: "planId", Code: "plan_archived", Message: "the plan is archived", Suggestion: "choose a plan that is not archived"},
		{Property: "metadata.note", Code: "too_long", Message: "is too long"},
	}
	if !IsBadRequest(err) || IsPreconditionFailed(err) || IsBadRequest(&PageError{Err: errors.New("400")}) {
		t.Errorf("IsBadRequest(%v) = %v, want true for this 400 only", err, IsBadRequest(err))
	}
	if !slices.Equal(apiErr.Details, want) {
		t.Errorf("Details = %s\nwant %s", dump(apiErr.Details), dump(want))
	}
	if s := suggestions(apiErr); !slices.Equal(s, []string{"choose a plan that is not archived"}) {
		t.Errorf("Suggestions = %q", s)
	}
	// The details, hint and docs are shown by internal/diagnostics (TestDetailTexts).
	for _, part := range []string{"400", "parameter_invalid", "The request is invalid."} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("Error() = %q lacks %q", err, part)
		}
	}
}

func TestDecodeAPIErrorShapes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body                   string
		code, message, docs, excerpt string
	}{
		{"declared shape", `{"code":"outOfInventory","message":"no eSIM left","docsUrl":"https://d/x"}`, "outOfInventory", "no eSIM left", "https://d/x", ""},
		{"docsUrl null", `{"code":"internal","message":"m","docsUrl":null}`, "internal", "m", "", ""},
		{"docsUrl wins over documentation", `{"code":"c","message":"m","docsUrl":"https://a","documentation":["https://b"]}`, "c", "m", "https://a", ""},
		{"empty documentation", `{"code":"c","message":"m","documentation":[]}`, "c", "m", "", ""},
		{"message only", `{"message":"upstream timed out"}`, "", "upstream timed out", "", ""},
		{"unknown fields", `{"code":"c","message":"m","docsUrl":null,"requestId":"r1","extra":{"a":[1,2]}}`, "c", "m", "", ""},
		{"other JSON", `{"error":"Bad Gateway"}`, "", "", "", `{"error":"Bad Gateway"}`},
		{"JSON array", `[1,2,3]`, "", "", "", `[1,2,3]`},
		{"plain text", "upstream connect error\r\n\tor disconnect", "", "", "", "upstream connect error or disconnect"},
		{"empty", "", "", "", "", ""},
	} {
		e := decodeAPIError(503, http.Header{"Retry-After": {"4"}}, []byte(tc.body))
		if e.Code != tc.code || e.Message != tc.message || e.DocsURL != tc.docs || e.BodyExcerpt != tc.excerpt ||
			e.StatusCode != 503 || e.Status != "503 Service Unavailable" || e.RetryAfter != 4*time.Second {
			t.Errorf("%s: decodeAPIError = %s", tc.name, dump(e))
		}
		if !strings.Contains(e.Error(), "503") {
			t.Errorf("%s: Error() = %q", tc.name, e.Error())
		}
	}
	if e := decodeAPIError(599, nil, nil); e.Status != "599" || !strings.Contains(e.Error(), "HTTP 599") {
		t.Errorf("unknown status: Status = %q, Error() = %q", e.Status, e.Error())
	}
}

// TestDecodeAPIErrorToleratesUnexpectedTypes: the interface document gives
// the richer shape's "documentation" as a list without saying what its
// entries are. If a server sends objects there, the code and message the
// client can read must not be lost because one optional field has another
// type than expected.
func TestDecodeAPIErrorToleratesUnexpectedTypes(t *testing.T) {
	t.Parallel()
	body := `{"object":"error","code":"parameter_invalid","message":"The request is invalid.",
	  "details":[{"property":"planId","message":"archived","suggestion":"choose another plan"}],
	  "documentation":[{"url":"https://docs.example/errors/parameter_invalid","title":"Invalid parameters"}]}`
	e := decodeAPIError(400, http.Header{}, []byte(body))
	if e.Code != "parameter_invalid" || e.Message != "The request is invalid." || len(e.Details) != 1 {
		t.Errorf("decodeAPIError = %s; a documentation list of objects made the whole error body unreadable", dump(e))
	}
}

func TestDecodeErrorNonJSON200(t *testing.T) {
	t.Parallel()
	emu := startWithFaults(t, emulator.FaultRule{Method: "GET", Action: "malformed"})
	c := newTestClient(t, emu.URL, nil)
	_, err := c.GetPlan(bg, "plan_001")
	var decErr *DecodeError
	if !errors.As(err, &decErr) {
		t.Fatalf("error = %v (%T), want *DecodeError", err, err)
	}
	if decErr.StatusCode != 200 || decErr.Method != "GET" || decErr.Path != "/v1/plans/plan_001" || !strings.Contains(decErr.BodyExcerpt, "sub_trunc") {
		t.Errorf("DecodeError = %+v", decErr)
	}
	if !strings.Contains(err.Error(), "HTTP 200") {
		t.Errorf("Error() = %q", err)
	}
	if n := emu.RequestCounts()["GET /v1/plans/{id}"]; n != 1 {
		t.Errorf("requests = %d; an unreadable 200 is not retried", n)
	}

	srv := startServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<html><body>Welcome to the captive portal</body></html>")
	})
	c = newTestClient(t, srv.URL, nil)
	_, err = Collect(c.Esims(bg), nil, 0)
	if !errors.As(err, &decErr) || !strings.Contains(decErr.BodyExcerpt, "captive portal") {
		t.Errorf("list with an HTML 200: error = %v", err)
	}
}

// TestCreateAnswerWithoutIDIsAnError: a 200 to a create whose body has no
// subscription id cannot be used (Terraform would record an empty id and
// lose the subscription that may exist), so it must not pass as success.
func TestCreateAnswerWithoutIDIsAnError(t *testing.T) {
	t.Parallel()
	for _, body := range []string{`{}`, `null`, `{"subscription":{"id":"sub_1"}}`} {
		srv := startServer(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, body)
		})
		c := newTestClient(t, srv.URL, nil)
		sub, err := c.CreateSubscription(bg, CreateSubscriptionRequest{PlanID: "plan_001"})
		var uncertain *UncertainCreateError
		if err == nil || !errors.As(err, &uncertain) {
			t.Errorf("200 %s: CreateSubscription = %s, %v; want an UncertainCreateError", body, dump(sub), err)
		}
	}
}

// endlessServer answers status with a body that never ends (up to 256 MiB).
func endlessServer(t *testing.T, status int) *httptest.Server {
	chunk := []byte(strings.Repeat(`{"items":[`, 6554)) // ~64 KiB
	return startServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		for range 4096 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
}

func TestOversizedBodyRefused(t *testing.T) {
	t.Parallel()
	srv := endlessServer(t, 200)
	ct := &countingTransport{next: http.DefaultTransport}
	c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.Transport = ct })
	_, err := Collect(c.Subscriptions(bg), nil, 0)
	var decErr *DecodeError
	if !errors.As(err, &decErr) || !strings.Contains(decErr.Error(), "larger than") {
		t.Fatalf("error = %v, want a DecodeError saying the answer is too large", err)
	}
	if n := ct.read.Load(); n > maxBodyBytes+1 {
		t.Errorf("read %d body bytes; at most %d may be read", n, maxBodyBytes+1)
	}
	if len(decErr.BodyExcerpt) > maxExcerptBytes {
		t.Errorf("BodyExcerpt is %d bytes", len(decErr.BodyExcerpt))
	}
}

func TestOversizedErrorBodyBounded(t *testing.T) {
	t.Parallel()
	srv := endlessServer(t, 500)
	ct := &countingTransport{next: http.DefaultTransport}
	c := newTestClient(t, srv.URL, func(cfg *Config) { cfg.Transport = ct; cfg.MaxRetries = ptr(2) })
	_, err := c.GetPlan(bg, "plan_001")
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 500 || apiErr.Attempts != 3 {
		t.Fatalf("error = %v", err)
	}
	if n := ct.read.Load(); n > maxBodyBytes+1+2*64<<10 {
		t.Errorf("read %d body bytes over 3 attempts; want at most one bounded read", n)
	}
	if len(apiErr.BodyExcerpt) > maxExcerptBytes {
		t.Errorf("BodyExcerpt is %d bytes", len(apiErr.BodyExcerpt))
	}
}

func TestExcerpt(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 150) // 300 bytes of 2-byte runes
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"  a \n\t b  ", "a b"},
		{strings.Repeat("x", excerptLen), strings.Repeat("x", excerptLen)},
		{strings.Repeat("x", excerptLen+1), strings.Repeat("x", excerptLen) + "…"},
		{long, strings.Repeat("é", excerptLen/2) + "…"},
		{"x" + long, "x" + strings.Repeat("é", excerptLen/2-1) + "…"}, // a rune cut in half is dropped
		{"a\xffb", "a\uFFFDb"},
	} {
		got := excerpt([]byte(tc.in))
		if got != tc.want {
			t.Errorf("excerpt(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("excerpt(%q) = %q is not valid UTF-8", tc.in, got)
		}
	}
}

// TestExcerptKeepsTextAfterInvalidUTF8: a long proxy page in Latin-1 (an
// "é" is the single byte 0xE9) must still show its text. excerpt trims
// bytes from the end until the whole string is valid UTF-8, so one invalid
// byte near the start erases everything after it.
func TestExcerptKeepsTextAfterInvalidUTF8(t *testing.T) {
	t.Parallel()
	page := "Erreur 502: passerelle d\xe9faillante. " + strings.Repeat("Le serveur amont ne r\xe9pond pas. ", 20)
	got := excerpt([]byte(page))
	if !strings.Contains(got, "passerelle d\uFFFDfaillante. Le serveur amont") || !utf8.ValidString(got) {
		t.Errorf("excerpt = %q; want the text with the invalid bytes replaced, not cut at the first one", got)
	}
}

func TestErrorsUnwrap(t *testing.T) {
	t.Parallel()
	base := errors.New("base")
	for _, err := range []error{
		&RequestError{Call: Call{Operation: "op", Method: "GET", Path: "/p"}, Attempts: 1, Err: base},
		&DecodeError{Call: Call{Operation: "op"}, Err: base},
		&PageError{Call: Call{Operation: "op"}, Page: 2, Err: base},
		&UncertainCreateError{Err: &RequestError{Err: base}},
	} {
		if !errors.Is(err, base) || err.Error() == "" {
			t.Errorf("%T does not unwrap to its cause", err)
		}
	}
	notFound := &UncertainCreateError{Err: &APIError{StatusCode: 404}}
	if !IsNotFound(&PageError{Err: notFound}) || IsPreconditionFailed(notFound) || IsNotFound(base) || IsNotFound(nil) {
		t.Error("status helpers do not see through the wrappers")
	}
}

// Only a create never sent, or refused with a 4xx, is known to have made
// nothing; every other failure may hide a subscription made.
func TestCreatedNothing(t *testing.T) {
	call := Call{Operation: "create subscription", Method: "POST", Path: "/v1/subscriptions"}
	for name, c := range map[string]struct {
		err  error
		want bool
	}{
		"412 outOfInventory":    {&APIError{Call: call, StatusCode: 412, Status: "412 Precondition Failed"}, true},
		"429 past the deadline": {&APIError{Call: call, StatusCode: 429, Status: "429 Too Many Requests"}, true},
		"400":                   {&APIError{Call: call, StatusCode: 400, Status: "400 Bad Request"}, true},
		"500":                   {&APIError{Call: call, StatusCode: 500, Status: "500 Internal Server Error"}, false},
		"no answer":             {&RequestError{Call: call, Err: errors.New("connection reset")}, false},
		"not sent":              {&RequestError{Call: call, Err: ErrStopped, NotSent: true}, true},
		"stopped":               {ErrStopped, true},
		"no such path":          {&NoSuchPathError{Call: call}, true},
		"uncertain":             {&UncertainCreateError{Err: &APIError{Call: call, StatusCode: 502, Status: "502 Bad Gateway"}}, false},
		"unreadable answer":     {&DecodeError{Call: call}, false},
	} {
		if got := CreatedNothing(c.err); got != c.want {
			t.Errorf("%s: CreatedNothing = %v, want %v", name, got, c.want)
		}
	}
}
