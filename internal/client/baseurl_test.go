package client

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestParseBaseURL(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"https://api.example.com":           "https://api.example.com",
		"https://api.example.com/prefix/":   "https://api.example.com/prefix",
		"http://127.0.0.1:8089":             "http://127.0.0.1:8089",
		"http://127.8.9.10:8089":            "http://127.8.9.10:8089",
		"http://localhost:8089":             "http://localhost:8089",
		"http://[::1]:8089/":                "http://[::1]:8089",
		"HTTPS://API.example.com:8443/base": "https://API.example.com:8443/base",
	} {
		u, err := ParseBaseURL(raw)
		if err != nil {
			t.Errorf("ParseBaseURL(%q): %v", raw, err)
			continue
		}
		if u.String() != want {
			t.Errorf("ParseBaseURL(%q) = %q, want %q", raw, u, want)
		}
	}
}

func TestParseBaseURLRefusals(t *testing.T) {
	t.Parallel()
	for raw, reason := range map[string]string{
		"api.example.com":                  "not an absolute http(s) URL",
		"ftp://api.example.com":            "not an absolute http(s) URL",
		"https://":                         "not an absolute http(s) URL",
		"https://api.example.com:badport":  "not a URL",
		"http://api.example.com":           "plain http to a host that is not loopback",
		"http://10.0.0.1:8089":             "plain http to a host that is not loopback",
		"http://localhost.example.com":     "plain http to a host that is not loopback",
		"https://api.example.com/base?x=1": "has a query or fragment",
		"https://api.example.com/#top":     "has a query or fragment",
		"https://user@api.example.com":     "carries credentials",
	} {
		_, err := ParseBaseURL(raw)
		if err == nil || !strings.Contains(err.Error(), reason) {
			t.Errorf("ParseBaseURL(%q) = %v, want an error saying %q", raw, err, reason)
		}
	}
}

// A password written into the base URL never reaches an error text,
// whatever else is wrong with the URL, parseable or not.
func TestParseBaseURLNeverEchoesCredentials(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		"https://user:pa55word@api.example.com",
		"https://user:pa55word@api.example.com:badport",
		"https://user:pa55word@api.example.com/%zz",
		"https://user:pa55 word@api.example.com",
		"https://user:pa55word@[::1",
		"user:pa55word@api.example.com",
		"ftp://user:pa55word@api.example.com",
		"http://user:pa55word@10.0.0.1",
		"https://user:pa55word@api.example.com/base?x=1",
	} {
		_, err := ParseBaseURL(raw)
		if err == nil {
			t.Errorf("ParseBaseURL(%q) succeeded", raw)
			continue
		}
		if strings.Contains(err.Error(), "pa55") {
			t.Errorf("ParseBaseURL(%q): error text shows the password: %q", raw, err)
		}
		if !strings.Contains(err.Error(), "REDACTED") {
			t.Errorf("ParseBaseURL(%q): error text does not show where the credential was: %q", raw, err)
		}
	}
}

// The constructor applies the same rule: a clear-text base URL to a host
// that is not loopback never gets a client that would send the token.
func TestNewAppliesTheBaseURLRule(t *testing.T) {
	t.Parallel()
	_, err := New(Config{BaseURL: "http://api.example.com", Token: "t"})
	if err == nil || !strings.Contains(err.Error(), "plain http") {
		t.Errorf("New with a clear-text base URL: %v, want the plain-http refusal", err)
	}
	_, err = New(Config{BaseURL: "https://user:pa55word@api.example.com", Token: "t"})
	if err == nil || strings.Contains(err.Error(), "pa55") {
		t.Errorf("New with credentials in the base URL: %v, want a refusal without the password", err)
	}
}

// A wrong base URL is named as such: every path of the service is unknown
// there, and a 404 then says that, never that a plan or subscription is
// missing. A base URL ending in /v1, the usual slip, is refused outright.
func TestNotFoundOfAPathIsNoSuchPath(t *testing.T) {
	t.Parallel()
	emu := startEmulator(t, nil)
	wrong := newTestClient(t, emu.URL+"/apii", nil)
	for name, call := range map[string]func() error{
		"object": func() error { _, err := wrong.GetPlan(bg, "plan_001"); return err },
		"create": func() error {
			_, err := wrong.CreateSubscription(bg, CreateSubscriptionRequest{PlanID: "plan_001"})
			return err
		},
		"list": func() error { _, err := Collect(wrong.Plans(bg), nil, 0); return err },
	} {
		err := call()
		var noPath *NoSuchPathError
		if !errors.As(err, &noPath) || IsNotFound(err) || !strings.Contains(err.Error(), emu.URL+"/apii/v1/") {
			t.Errorf("%s: error = %v, want a NoSuchPathError naming the whole URL", name, err)
		}
		var uncertain *UncertainCreateError
		if errors.As(err, &uncertain) {
			t.Errorf("%s: a path that does not exist created nothing: %v", name, err)
		}
	}

	right := newTestClient(t, emu.URL, nil)
	_, err := right.GetPlan(bg, "plan_404")
	var noPath *NoSuchPathError
	if !IsNotFound(err) || errors.As(err, &noPath) {
		t.Errorf("a plan the service does not have: %v, want not found", err)
	}
	before := emu.RequestCounts()["GET /v1/plans"]
	if _, err := right.GetSubscription(bg, "sub_404"); !IsNotFound(err) {
		t.Errorf("a subscription the service does not have: %v, want not found", err)
	}
	if after := emu.RequestCounts()["GET /v1/plans"] + emu.RequestCounts()["GET /v1/subscriptions"]; after != before {
		t.Errorf("%d collection requests after the base URL had answered, want none", after-before)
	}

	if _, err := New(Config{BaseURL: emu.URL + "/v1/", Token: emu.Token}); err == nil || !strings.Contains(err.Error(), "without /v1") {
		t.Errorf("New with a base URL ending in /v1: %v, want it refused with the hint", err)
	}
}

// The one rule for a rate ceiling, wherever it is read: at least
// MinMaxRequestsPerSecond, and finite.
func TestNewChecksTheRateCeiling(t *testing.T) {
	t.Parallel()
	for v, ok := range map[float64]bool{
		MinMaxRequestsPerSecond: true, 0.5: true, 200: true,
		0.0005: false, -1: false, math.Inf(1): false, math.NaN(): false,
	} {
		_, err := New(Config{BaseURL: "https://api.example.com", Token: "t", MaxRequestsPerSecond: v})
		if (err == nil) != ok {
			t.Errorf("MaxRequestsPerSecond %v: error %v, want accepted %v", v, err, ok)
		}
	}
}
