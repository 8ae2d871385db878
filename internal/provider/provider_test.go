package provider

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	fwprovider "github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
)

func TestProvider_refusesPlainHTTPToRemoteHost(t *testing.T) {
	t.Parallel()
	for _, url := range []string{"http://api.example.com", "http://10.0.0.5:8089", "http://127.0.0.1.nip.io"} {
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: providersFor(t),
			Steps: []resource.TestStep{{
				Config: fmt.Sprintf(`
provider "mobileplan" {
  base_url  = %q
  api_token = "secret"
}
data "mobileplan_plans" "all" {}
`, url),
				ExpectError: regexp.MustCompile(`(?s)Invalid base_url.*plain http to a host that is not loopback`),
			}},
		})
	}
}

func TestProvider_rejectsBadSettings(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	for name, tc := range map[string]struct{ block, want string }{
		"timeout":     {`request_timeout = "soon"`, `Invalid duration`},
		"negative":    {`request_timeout = "-5s"`, `Invalid duration`},
		"retries":     {`max_retries = 11`, `max_retries value must be between 0 and 10`},
		"not a url":   {`base_url = "api.example.com"`, `not an absolute http\(s\) URL`},
		"userinfo":    {`base_url = "https://user:pw@api.example.com"`, `carries credentials`},
		"rate zero":   {`max_requests_per_second = 0`, `(?s)max_requests_per_second.*value must be at least 0\.001`},
		"rate tiny":   {`max_requests_per_second = 0.0005`, `(?s)max_requests_per_second.*value must be at least 0\.001`},
		"ends in /v1": {fmt.Sprintf(`base_url = "%s/v1"`, srv.URL), `(?s)Invalid base_url.*ends in /v1; give the service.s root, without\s+/v1`},
	} {
		t.Run(name, func(t *testing.T) {
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: providersFor(t),
				Steps: []resource.TestStep{{
					Config: fmt.Sprintf(`
provider "mobileplan" {
  api_token = %q
  %s
}
data "mobileplan_plans" "all" {}
`, srv.Token, tc.block),
					ExpectError: regexp.MustCompile(tc.want),
				}},
			})
		})
	}
}

// A base_url that does not lead to the service is named as the cause, by
// the plan-time check, the create and the data source alike; no plan or
// subscription is said to be missing.
func TestProvider_wrongBaseURLSaysSo(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	for name, tc := range map[string]struct{ settings, body string }{
		"preflight":   {"", `resource "mobileplan_subscription" "s" { plan_id = "plan_001" }`},
		"create":      {`preflight = "off"`, `resource "mobileplan_subscription" "s" { plan_id = "plan_001" }`},
		"data source": {"", `data "mobileplan_plan" "p" { id = "plan_001" }`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: providersFor(t),
				Steps: []resource.TestStep{{
					Config:      fmt.Sprintf("provider \"mobileplan\" {\n  base_url = %q\n  api_token = %q\n  %s\n}\n%s\n", srv.URL+"/apii", srv.Token, tc.settings, tc.body),
					ExpectError: regexp.MustCompile(`(?s)The service at\s+` + regexp.QuoteMeta(srv.URL) + `/apii/v1/\S+\s+has\s+no\s+such\s+path.*check\s+base_url`),
				}},
			})
			if n := srv.Stats().Subscriptions; n != 0 {
				t.Errorf("%d subscriptions created", n)
			}
		})
	}
}

// The MOBILEPLAN_* variables, each subtest with an environment of its own
// (withEnvironment), side by side.
func TestProvider_environment(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	const emptyBlock = `
provider "mobileplan" {}
data "mobileplan_plans" "all" {}
`
	t.Run("missing token says how to set it", func(t *testing.T) {
		t.Parallel()
		env := map[string]string{EnvBaseURL: srv.URL, EnvAPIToken: ""}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: providersFor(t, withEnvironment(env)),
			Steps: []resource.TestStep{{
				Config:      emptyBlock,
				ExpectError: regexp.MustCompile(`(?s)Missing api_token.*MOBILEPLAN_API_TOKEN`),
			}},
		})
	})
	t.Run("missing base_url says how to set it", func(t *testing.T) {
		t.Parallel()
		env := map[string]string{EnvBaseURL: "", EnvAPIToken: srv.Token}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: providersFor(t, withEnvironment(env)),
			Steps: []resource.TestStep{{
				Config:      emptyBlock,
				ExpectError: regexp.MustCompile(`(?s)Missing base_url.*MOBILEPLAN_BASE_URL`),
			}},
		})
	})
	t.Run("environment alone configures the provider", func(t *testing.T) {
		t.Parallel()
		env := map[string]string{EnvBaseURL: srv.URL, EnvAPIToken: srv.Token}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: providersFor(t, withEnvironment(env)),
			Steps: []resource.TestStep{{
				Config: emptyBlock,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.mobileplan_plans.all", tfjsonpath.New("ids"), knownvalue.ListSizeExact(emulator.DefaultPlans)),
				},
			}},
		})
	})
	t.Run("empty strings count as unset", func(t *testing.T) {
		t.Parallel()
		env := map[string]string{EnvBaseURL: srv.URL, EnvAPIToken: srv.Token}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: providersFor(t, withEnvironment(env)),
			Steps: []resource.TestStep{{
				Config: `
provider "mobileplan" {
  base_url  = ""
  api_token = ""
}
data "mobileplan_plans" "all" {}
`,
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.mobileplan_plans.all", tfjsonpath.New("ids"), knownvalue.ListSizeExact(emulator.DefaultPlans)),
				},
			}},
		})
	})
	t.Run("provider block wins over environment", func(t *testing.T) {
		t.Parallel()
		env := map[string]string{EnvBaseURL: "http://127.0.0.1:1", EnvAPIToken: "wrong-token"}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: providersFor(t, withEnvironment(env)),
			Steps: []resource.TestStep{{
				Config: withProvider(srv, `data "mobileplan_plans" "all" {}`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("data.mobileplan_plans.all", tfjsonpath.New("ids"), knownvalue.ListSizeExact(emulator.DefaultPlans)),
				},
			}},
		})
	})
	// The block's rule: what max_requests_per_second = 0.0005 is refused
	// with (TestProvider_rejectsBadSettings) is refused from the variable.
	for _, bad := range []string{"fast", "0.0005"} {
		t.Run("a bad rate ceiling in the environment is named: "+bad, func(t *testing.T) {
			t.Parallel()
			env := map[string]string{EnvBaseURL: srv.URL, EnvAPIToken: srv.Token, EnvMaxRequestsPerSecond: bad}
			resource.Test(t, resource.TestCase{
				ProtoV6ProviderFactories: providersFor(t, withEnvironment(env)),
				Steps: []resource.TestStep{{
					Config:      emptyBlock,
					ExpectError: regexp.MustCompile(`(?s)Invalid MOBILEPLAN_MAX_REQUESTS_PER_SECOND.*"` + regexp.QuoteMeta(bad) + `".*at least 0\.001`),
				}},
			})
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
	t.Run("a refused token says how to set it", func(t *testing.T) {
		t.Parallel()
		env := map[string]string{EnvBaseURL: srv.URL, EnvAPIToken: "wrong-token"}
		resource.Test(t, resource.TestCase{
			ProtoV6ProviderFactories: providersFor(t, withEnvironment(env)),
			Steps: []resource.TestStep{{
				Config:      emptyBlock,
				ExpectError: regexp.MustCompile(`(?s)HTTP 401 Unauthorized.*Code: unauthorized.*MOBILEPLAN_API_TOKEN`),
			}},
		})
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
