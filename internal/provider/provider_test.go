package provider

import (
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// The provider's settings, and the environment behind them, are read by
// the provider alone: the rows of these tests make Terraform's calls
// in-process, as a plan of data "mobileplan_plans" does. A row's want is a
// pattern of the error diagnostics, or "" for none and the plans listed.
type settingsRow struct {
	name     string
	env      map[string]string        // the environment; nil is the process's
	settings map[string]tftypes.Value // the provider block; every other setting null
	want     string
}

// run validates and configures a provider with the row's environment and
// settings, then, as Terraform would once that succeeds, reads the plans.
func (row settingsRow) run(t *testing.T) {
	t.Helper()
	var opts []Option
	if row.env != nil {
		opts = append(opts, withEnvironment(row.env))
	}
	server := testServer(opts...)
	schemas, diags := prototest.ConfigureServerWith(t, server, row.settings)
	var plans *tfprotov6.ReadDataSourceResponse
	if !hasErrors(diags) {
		plans = readList(t, server, schemas, "mobileplan_plans", nil)
		diags = append(diags, plans.Diagnostics...)
	}
	if row.want != "" {
		expectErrorMatching(t, diags, row.want)
		return
	}
	if len(diags) > 0 {
		t.Fatalf("want no diagnostics, got:\n%s", prototest.DiagText(diags))
	}
	if n := len(listedItems(t, schemas, "mobileplan_plans", "ids", plans)); n != emulator.DefaultPlans {
		t.Errorf("the plans data source lists %d ids, want the service's %d", n, emulator.DefaultPlans)
	}
}

// text is a string setting.
func text(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }

// number is a number setting.
func number(f float64) tftypes.Value { return tftypes.NewValue(tftypes.Number, big.NewFloat(f)) }

func TestProvider_refusesPlainHTTPToRemoteHost(t *testing.T) {
	t.Parallel()
	for _, url := range []string{"http://api.example.com", "http://10.0.0.5:8089", "http://127.0.0.1.nip.io"} {
		t.Run(url, func(t *testing.T) {
			t.Parallel()
			settingsRow{
				settings: map[string]tftypes.Value{"base_url": text(url), "api_token": text("secret")},
				want:     `(?s)Invalid base_url.*plain http to a host that is not loopback`,
			}.run(t)
		})
	}
}

func TestProvider_rejectsBadSettings(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	for _, row := range []settingsRow{
		{name: "timeout", settings: map[string]tftypes.Value{"request_timeout": text("soon")}, want: `Invalid duration`},
		{name: "negative", settings: map[string]tftypes.Value{"request_timeout": text("-5s")}, want: `Invalid duration`},
		{name: "retries", settings: map[string]tftypes.Value{"max_retries": number(11)}, want: `max_retries value must be between 0 and 10`},
		{name: "not a url", settings: map[string]tftypes.Value{"base_url": text("api.example.com")}, want: `not an absolute http\(s\) URL`},
		{name: "userinfo", settings: map[string]tftypes.Value{"base_url": text("https://user:pw@api.example.com")}, want: `carries credentials`},
		{name: "rate zero", settings: map[string]tftypes.Value{"max_requests_per_second": number(0)}, want: `(?s)max_requests_per_second.*value must be at least 0\.001`},
		{name: "rate tiny", settings: map[string]tftypes.Value{"max_requests_per_second": number(0.0005)}, want: `(?s)max_requests_per_second.*value must be at least 0\.001`},
		{name: "ends in /v1", settings: map[string]tftypes.Value{"base_url": text(srv.URL + "/v1")}, want: `(?s)Invalid base_url.*ends in /v1; give the service.s root, without\s+/v1`},
	} {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			row.settings["api_token"] = text(srv.Token)
			row.run(t)
		})
	}
}

// A base_url that does not lead to the service is named as the cause, by
// the plan-time check, the create and the data source alike; no plan or
// subscription is said to be missing.
func TestProvider_wrongBaseURLSaysSo(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	wrong := &emulatortest.Server{URL: srv.URL + "/apii", Token: srv.Token}
	want := `(?s)The service at\s+` + regexp.QuoteMeta(srv.URL) + `/apii/v1/\S+\s+has\s+no\s+such\s+path.*check\s+base_url`
	t.Run("preflight", func(t *testing.T) {
		found := planCreates(t, harnessAt(t, wrong, nil), "plan_001")
		expectErrorMatching(t, found[0], want)
	})
	t.Run("create", func(t *testing.T) {
		diags, _ := createIn(t, harnessAt(t, wrong, map[string]tftypes.Value{"preflight": text(preflightOff)}), map[string]tftypes.Value{"plan_id": text("plan_001")})
		expectErrorMatching(t, diags, want)
	})
	t.Run("data source", func(t *testing.T) {
		diags, _ := readData(t, wrong, nil, "mobileplan_plan", map[string]tftypes.Value{"id": text("plan_001")})
		expectErrorMatching(t, diags, want)
	})
	if n := srv.Stats().Subscriptions; n != 0 {
		t.Errorf("%d subscriptions created", n)
	}
}

// The MOBILEPLAN_* variables, each row with an environment of its own
// (withEnvironment), side by side; the row that creates under a rate limit
// runs through the CLI.
func TestProvider_environment(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	// The block's rule: what max_requests_per_second = 0.0005 is refused
	// with (TestProvider_rejectsBadSettings) is refused from the variable.
	badRate := func(bad string) string {
		return `(?s)Invalid MOBILEPLAN_MAX_REQUESTS_PER_SECOND.*"` + regexp.QuoteMeta(bad) + `".*at least 0\.001`
	}
	for _, row := range []settingsRow{
		{name: "missing token says how to set it", env: map[string]string{EnvBaseURL: srv.URL, EnvAPIToken: ""}, want: `(?s)Missing api_token.*MOBILEPLAN_API_TOKEN`},
		{name: "missing base_url says how to set it", env: map[string]string{EnvBaseURL: "", EnvAPIToken: srv.Token}, want: `(?s)Missing base_url.*MOBILEPLAN_BASE_URL`},
		{name: "environment alone configures the provider", env: map[string]string{EnvBaseURL: srv.URL, EnvAPIToken: srv.Token}},
		{name: "empty strings count as unset", env: map[string]string{EnvBaseURL: srv.URL, EnvAPIToken: srv.Token}, settings: map[string]tftypes.Value{"base_url": text(""), "api_token": text("")}},
		{name: "provider block wins over environment", env: map[string]string{EnvBaseURL: "http://127.0.0.1:1", EnvAPIToken: "wrong-token"}, settings: map[string]tftypes.Value{"base_url": text(srv.URL), "api_token": text(srv.Token)}},
		{name: "a bad rate ceiling in the environment is named: fast", env: map[string]string{EnvBaseURL: srv.URL, EnvAPIToken: srv.Token, EnvMaxRequestsPerSecond: "fast"}, want: badRate("fast")},
		{name: "a bad rate ceiling in the environment is named: 0.0005", env: map[string]string{EnvBaseURL: srv.URL, EnvAPIToken: srv.Token, EnvMaxRequestsPerSecond: "0.0005"}, want: badRate("0.0005")},
		{name: "a refused token says how to set it", env: map[string]string{EnvBaseURL: srv.URL, EnvAPIToken: "wrong-token"}, want: `(?s)HTTP 401 Unauthorized.*Code: unauthorized.*MOBILEPLAN_API_TOKEN`},
	} {
		t.Run(row.name, func(t *testing.T) {
			t.Parallel()
			row.run(t)
		})
	}
	t.Run("the rate ceiling from the environment is never refused", func(t *testing.T) {
		t.Parallel()
		// The margins of TestAccProvider_maxRequestsPerSecondIsNeverRefused.
		limited := startRateLimited(t, 8, 20)
		env := map[string]string{EnvMaxRequestsPerSecond: "3"}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: providersFor(t, withEnvironment(env)),
			Steps:                    []resource.TestStep{{Config: subscriptionsConfig(limited, 10, "")}},
		})
		if st := limited.Stats(); st.RateLimited != 0 || st.Subscriptions != 10 {
			t.Errorf("%d answered 429, %d subscriptions; want none refused, 10 created", st.RateLimited, st.Subscriptions)
		}
	})
}

func TestMain(m *testing.M) {
	skipOneCLITests()
	code := acctest.Main(m)
	missing, err := unexercisedTypes()
	switch {
	case err != nil:
		fmt.Fprintf(os.Stderr, "parity run: %v\n", err)
		code = 1
	case len(missing) > 0:
		fmt.Fprintf(os.Stderr, "parity run: the plain provider never served %s\n", strings.Join(missing, ", "))
		code = 1
	}
	traces.Lock()
	err = finishCLITraces(oneCLIMode, cliTracesFile, oneCLITests, traces.of, code != 0)
	traces.Unlock()
	if err != nil {
		fmt.Fprintf(os.Stderr, "one-CLI list: %v\n", err)
		code = 1
	}
	os.Exit(code)
}

// The token is sensitive, and nothing can switch TLS verification off.
func TestProviderSchema_tokenSensitiveNoInsecureSwitch(t *testing.T) {
	t.Parallel()
	var resp fwprovider.SchemaResponse
	New("test")().Schema(t.Context(), fwprovider.SchemaRequest{}, &resp)
	var names []string
	for name := range resp.Schema.Attributes {
		names = append(names, name)
	}
	sort.Strings(names)
	// preflight and paged_refresh: reviewed, they only turn read checks on or
	// off, or choose between two read operations, through the same client.
	// max_requests_per_second: reviewed, it only spaces requests in time.
	// ca_cert_pem: reviewed, it only adds authorities to a copy of the
	// system's pool; verification stays on (client's TestCACertPEM_ tests).
	// lost_run_started_at, lost_run_ended_at: reviewed, they only choose
	// which subscriptions are listed and taken, through the same client.
	// dismissed_leftovers: reviewed, it only writes ids into the journal
	// of creates, and sends nothing.
	if got := strings.Join(names, ","); got != "api_token,base_url,ca_cert_pem,dismissed_leftovers,lost_run_ended_at,lost_run_started_at,max_requests_per_second,max_retries,paged_refresh,preflight,request_timeout" {
		t.Errorf("provider attributes %s: a new one needs a security review (TLS must stay verified)", got)
	}
	if !resp.Schema.Attributes["api_token"].IsSensitive() {
		t.Error("api_token is not sensitive")
	}
}

// Every request names the provider's version and Terraform's.
func TestAccProvider_userAgent(t *testing.T) {
	t.Parallel()
	emu, err := emulator.New(emulator.Options{Token: emulatortest.Token})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	agents := map[string]bool{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		agents[r.UserAgent()] = true
		mu.Unlock()
		emu.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	srv := &emulatortest.Server{Emulator: emu, URL: ts.URL, Token: emulatortest.Token}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersFor(t),
		Steps:                    []resource.TestStep{{Config: withProvider(srv, `data "mobileplan_plans" "all" { max_items = 1 }`)}},
	})
	want := regexp.MustCompile(`^terraform-provider-mobileplan/test \(\+https://registry\.terraform\.io/providers/mobileplan/mobileplan\) Terraform/1\.\d+\.\d+`)
	mu.Lock()
	defer mu.Unlock()
	if len(agents) != 1 {
		t.Fatalf("user agents %v, want exactly one", agents)
	}
	for ua := range agents {
		if !want.MatchString(ua) {
			t.Errorf("User-Agent %q does not match %s", ua, want)
		}
	}
}

// A refresh under a base_url that does not lead to the service keeps
// every subscription in state: a 404 there is the path's, not the
// subscription's, and planning to create them all again would buy a
// second fleet.
func TestAccSubscription_wrongBaseURLKeepsState(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	config := func(baseURL string) string {
		return fmt.Sprintf(`
provider "mobileplan" {
  base_url  = %q
  api_token = %q
}
resource "mobileplan_subscription" "test" {
  plan_id = "plan_001"
}
`, baseURL, srv.Token)
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersFor(t),
		Steps: []resource.TestStep{
			{Config: config(srv.URL)},
			{
				Config:      config(srv.URL + "/apii"),
				ExpectError: regexp.MustCompile(`(?s)has no such\s+path.*check\s+base_url`),
			},
			{
				Config: config(srv.URL),
				ConfigPlanChecks: resource.ConfigPlanChecks{
					PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()},
				},
			},
		},
	})
	if n := srv.Stats().Subscriptions; n != 1 {
		t.Errorf("%d subscriptions at the service, want the one", n)
	}
}
