package client

import (
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
