package provider

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// Configuration a hostile environment produces.

// configureDirectly validates and configures a new provider through its
// protocol server, as Terraform does, with the given string settings, and
// returns every diagnostic of both calls.
func configureDirectly(t *testing.T, settings map[string]string) []*tfprotov6.Diagnostic {
	t.Helper()
	_, diags := prototest.ConfigureServer(t, testServer(), settings)
	return diags
}

func TestConfigure_tokenWithControlCharacterRefused(t *testing.T) {
	t.Parallel()
	const secret = "tok_fresh_from_a_file_31337"
	for name, tc := range map[string]struct{ token, want string }{
		"trailing newline":    {secret + "\n", "a line feed (U+000A), at character 28 of 28"},
		"windows line ending": {secret + "\r\n", "a carriage return (U+000D), at character 28 of 29"},
		"tab inside":          {"tok\tfresh_from_a_file_31337", "a tab (U+0009)"},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			diags := configureDirectly(t, map[string]string{"base_url": "https://api.example.com", "api_token": tc.token})
			text := prototest.DiagText(diags)
			if len(diags) != 1 || diags[0].Severity != tfprotov6.DiagnosticSeverityError ||
				diags[0].Summary != "Invalid api_token" || !diags[0].Attribute.Equal(tftypes.NewAttributePath().WithAttributeName("api_token")) {
				t.Fatalf("want one error on api_token, got:\n%s", text)
			}
			for _, want := range []string{"control character", tc.want, "$(cat token.txt)", "trimspace"} {
				if !strings.Contains(text, want) {
					t.Errorf("diagnostic lacks %q:\n%s", want, text)
				}
			}
			if strings.Contains(text, "fresh_from_a_file") {
				t.Errorf("diagnostic shows the token:\n%s", text)
			}
		})
	}
}

// The environment variables are checked by Configure alone (no t.Parallel:
// t.Setenv).
func TestConfigure_environmentRefusedWithoutEcho(t *testing.T) {
	t.Setenv(EnvAPIToken, "tok_from_env_424242\n")
	t.Setenv(EnvBaseURL, "https://api.example.com")
	diags := configureDirectly(t, nil)
	text := prototest.DiagText(diags)
	if !strings.Contains(text, "Invalid api_token") || !strings.Contains(text, "line feed") || !strings.Contains(text, "comes from the MOBILEPLAN_API_TOKEN environment variable") {
		t.Errorf("want an api_token error naming the line feed and the variable:\n%s", text)
	}
	// No attribute: the value is not in the configuration, and Terraform
	// would point at "<empty> line 0".
	for _, d := range diags {
		if d.Attribute != nil {
			t.Errorf("%q is attached to %v", d.Summary, d.Attribute)
		}
	}
	if strings.Contains(text, "424242") {
		t.Errorf("diagnostic shows the token:\n%s", text)
	}

	t.Setenv(EnvAPIToken, "t")
	for _, raw := range []string{"https://user:pa55word@api.example.com:badport", "https://user:pa55word@api.example.com"} {
		t.Setenv(EnvBaseURL, raw)
		text := prototest.DiagText(configureDirectly(t, nil))
		if !strings.Contains(text, "Invalid base_url") || strings.Contains(text, "pa55") {
			t.Errorf("want an Invalid base_url error without the password:\n%s", text)
		}
	}
}

// Configure applies the client's base-URL rule (tested there, case by
// case) and reports it on base_url without the credential.
func TestConfigure_baseURLRuleWiredWithoutEcho(t *testing.T) {
	t.Parallel()
	for raw, reason := range map[string]string{
		"https://user:pa55word@api.example.com:badport": "is not a URL",
		"http://user:pa55word@10.0.0.1":                 "carries credentials",
		"http://10.0.0.1":                               "plain http to a host that is not loopback",
	} {
		diags := configureDirectly(t, map[string]string{"base_url": raw, "api_token": "t"})
		text := prototest.DiagText(diags)
		if !strings.Contains(text, "Invalid base_url") || !strings.Contains(text, reason) {
			t.Errorf("%s: want an Invalid base_url error saying %q:\n%s", raw, reason, text)
		}
		if strings.Contains(text, "pa55") {
			t.Errorf("%s: diagnostic shows the password:\n%s", raw, text)
		}
	}
}

// endlessPlans serves the emulator, except that every page of plans is the
// first one, with a fresh cursor: a list that never ends.
func endlessPlans(t *testing.T) (*emulatortest.Server, *atomic.Int64) {
	t.Helper()
	emu, err := emulator.New(emulator.Options{Token: emulatortest.Token})
	if err != nil {
		t.Fatal(err)
	}
	var pages atomic.Int64
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/plans" || pages.Load() > 1000 {
			emu.ServeHTTP(w, r)
			return
		}
		n := pages.Add(1)
		q := r.URL.Query()
		q.Del("page")
		r.URL.RawQuery = q.Encode()
		rec := httptest.NewRecorder()
		emu.ServeHTTP(rec, r)
		var body map[string]json.RawMessage
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		body["nextPage"], _ = json.Marshal(fmt.Sprintf("fresh-cursor-%d", n))
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(body)
	}))
	t.Cleanup(func() { ts.Close(); emu.Close() })
	return &emulatortest.Server{Emulator: emu, URL: ts.URL, Token: emulatortest.Token}, &pages
}

func TestDataSource_endlessListStops(t *testing.T) {
	t.Parallel()
	srv, pages := endlessPlans(t)
	diags, _ := readData(t, srv, nil, "mobileplan_plans", nil)
	expectErrorMatching(t, diags, errorPattern("Could not list plans", "Listing stopped at page 2, after 25 items had been read", "only items already read").String())
	if n := pages.Load(); n != 2 {
		t.Errorf("the data source read %d pages, want 2", n)
	}
}

// A redirect to another origin is an error naming where it pointed, and the
// token never goes there.
func TestSecurity_redirectToAnotherOriginRefused(t *testing.T) {
	t.Parallel()
	var elsewhere, sawToken atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		if r.Header.Get("Authorization") != "" {
			sawToken.Add(1)
		}
		w.WriteHeader(http.StatusOK)
	}))
	t.Cleanup(other.Close)
	otherHost := strings.TrimPrefix(other.URL, "http://")
	target := "http://localhost:" + otherHost[strings.LastIndex(otherHost, ":")+1:]
	base := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}))
	t.Cleanup(base.Close)
	srv := &emulatortest.Server{URL: base.URL, Token: emulatortest.Token}
	t.Cleanup(func() { // runs when the read fails the test too
		if n := elsewhere.Load(); n != 0 {
			t.Errorf("the other origin got %d requests (%d with a token)", n, sawToken.Load())
		}
	})
	diags, _ := readData(t, srv, nil, "mobileplan_plans", nil)
	expectErrorMatching(t, diags, errorPattern("Could not list plans", "list plans (GET /v1/plans): the service answered HTTP 307, a redirect to "+target,
		"another origin than the base URL's", "set base_url to its new address").String())
}

// Redacting is for display only: an '@' in the path is not a credential.
func TestConfigure_atSignInPathAccepted(t *testing.T) {
	t.Parallel()
	if text := prototest.DiagText(configureDirectly(t, map[string]string{"base_url": "https://api.example.com/@team", "api_token": "t"})); text != "" {
		t.Errorf("want no diagnostics:\n%s", text)
	}
}
