package provider

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
)

// A run the service's rate limit slowed says so without TF_LOG, in one
// folded warning that names the setting that avoids the refusals; a run
// it did not slow says nothing.
func TestCLI_rateLimitSlowdownIsAWarning(t *testing.T) {
	t.Parallel()
	for name, perSecond := range map[string]float64{"slowed": 2, "not slowed": 0} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := startRateLimited(t, perSecond, 40)
			tf := newTerraformCLI(t)
			tf.Write("main.tf", cliProvider(srv)+inlineFleet(16, ""))
			out := tf.Must("apply", "-auto-approve", "-input=false")
			warned := strings.Count(out, "Warning: The service's rate limit slowed this run")
			t.Logf("%d requests answered 429; the warning shown %d time(s)", srv.Stats().RateLimited, warned)
			switch {
			case perSecond == 0 && warned != 0:
				t.Errorf("warned of a rate limit the service does not have:\n%s", out)
			case perSecond > 0 && warned == 0:
				t.Errorf("no warning after creates at %v per second:\n%s", perSecond, out)
			case perSecond > 0 && !strings.Contains(out, "max_requests_per_second"):
				t.Errorf("the warning does not name max_requests_per_second:\n%s", out)
			}
			if perSecond > 0 && warned > 2 {
				// one per provider process (plan, apply) at most, the rest folded
				t.Errorf("the warning was shown %d times, want it folded:\n%s", warned, out)
			}
		})
	}
}

// The warning reports the run: the totals of every operation of the
// provider process, not those of whichever operation Terraform shows (it
// shows one of the warnings that share a summary). With the preflight off,
// the plan's process sends nothing, so the apply's process met every 429
// the service answered; and the warning says nothing failed only when
// nothing did.
func TestCLI_rateLimitWarningReportsTheRun(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		perSecond   float64
		creates     int
		timeout     string // timeouts.create; "" leaves it out
		wantFailure bool
	}{
		"every create waited out":          {perSecond: 2, creates: 16},
		"creates gave up at their timeout": {perSecond: 1, creates: 24, timeout: "4s", wantFailure: true},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := startRateLimited(t, tc.perSecond, 40)
			timeouts := ""
			if tc.timeout != "" {
				timeouts = fmt.Sprintf("  timeouts {\n    create = %q\n  }\n", tc.timeout)
			}
			tf := newTerraformCLI(t)
			tf.Write("main.tf", acctest.ProviderBlock(srv, "  preflight = \"off\"\n")+inlineFleet(tc.creates, timeouts))
			out, code := tf.Run(nil, "apply", "-auto-approve", "-input=false")
			out = unwrap(out)
			refusedByService := srv.Stats().RateLimited
			t.Logf("exit %d; the service answered 429 to %d requests", code, refusedByService)
			if (code != 0) != tc.wantFailure {
				t.Fatalf("terraform apply exited %d:\n%s", code, out)
			}
			if n := strings.Count(out, "Warning: The service's rate limit slowed this run"); n != 1 {
				t.Fatalf("the warning was shown %d times, want once:\n%s", n, out)
			}
			m := regexp.MustCompile(`The service refused (\d+) requests? with HTTP 429`).FindStringSubmatch(out)
			if m == nil {
				t.Fatalf("the warning gives no count of refused requests:\n%s", out)
			}
			if refused, _ := strconv.Atoi(m[1]); refused != refusedByService {
				t.Errorf("the warning says the service refused %d requests; it refused %d, all of them to this process:\n%s", refused, refusedByService, out)
			}
			saysNothingFailed := strings.Contains(out, "Nothing failed because of the limit")
			failed := strings.Contains(out, "Error: Could not create subscription")
			switch {
			case failed && saysNothingFailed:
				t.Errorf("the warning says nothing failed because of the limit, above creates that failed:\n%s", out)
			case failed && !strings.Contains(out, "could not wait long enough before"):
				t.Errorf("creates failed and the warning does not say so:\n%s", out)
			case !failed && !saysNothingFailed:
				t.Errorf("nothing failed and the warning does not say so:\n%s", out)
			case failed != tc.wantFailure:
				t.Errorf("creates failed: %v, want %v:\n%s", failed, tc.wantFailure, out)
			}
		})
	}
}

// A lone run in a fixed window that its fields describe is told the run's
// totals, once, and nothing untrue: no refusal, no other client, no
// advice to set a share. Terraform shows the first of the warnings that
// share a summary, and an apply once gave one at every moment no other
// operation was in flight (67 in such a run), the first a snapshot.
func TestCLI_rateLimitWarningOfALoneRunInAFixedWindow(t *testing.T) {
	t.Parallel()
	ds := emulator.DefaultDataset(3, 70)
	srv := emulatortest.Start(t, emulator.Options{Dataset: &ds, RateLimit: 5, RateLimitWindow: 4 * time.Second, QuotaFields: emulator.QuotaFieldsIETF})
	tf := newTerraformCLI(t)
	tf.Write("main.tf", acctest.ProviderBlock(srv, "  preflight = \"off\"\n")+inlineFleet(60, ""))
	out := unwrap(tf.Must("apply", "-auto-approve", "-input=false"))
	refused := srv.Stats().RateLimited
	creates := srv.RequestCounts()["POST /v1/subscriptions"] - refused
	t.Logf("%d creates, %d answered 429", creates, refused)
	if n := strings.Count(out, "Warning: The service's rate limit slowed this run"); n != 1 || strings.Contains(out, "more similar warning") {
		t.Fatalf("the warning was shown %d times (or folded with others), want once:\n%s", n, tail(out, 3000))
	}
	if want := fmt.Sprintf("it accepted %d requests of this run", creates); !strings.Contains(out, want) {
		t.Errorf("the warning does not give the run's total, %q:\n%s", want, tail(out, 3000))
	}
	for _, never := range []string{"other clients spending", "to this run's share", "learned from the service's refusals", "requests a second"} {
		if strings.Contains(out, never) {
			t.Errorf("the warning says %q of a lone run in a window of 20 per 4s:\n%s", never, tail(out, 3000))
		}
	}
	if !strings.Contains(out, "a quota of 20 requests per 4s") {
		t.Errorf("the warning does not name the quota as the service counts it:\n%s", tail(out, 3000))
	}
}

// tail is the end of a CLI's output, where its warnings are.
func tail(out string, n int) string {
	if len(out) <= n {
		return out
	}
	return "…" + out[len(out)-n:]
}
