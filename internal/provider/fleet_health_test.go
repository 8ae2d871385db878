package provider

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// examples/fleet-health, as a user copies it: its own .tf files, run with
// nothing but MOBILEPLAN_BASE_URL and MOBILEPLAN_API_TOKEN set, while the
// fleet at the service goes through what its checks watch for. Check
// blocks only warn, and terraform-plugin-testing does not show warnings,
// so the plan runs through the CLI with -json and its diagnostics are read.

const fleetHealthDir = "../../examples/fleet-health"

// planWarnings runs `plan -json` and returns the detail of each failed check
// by check name, and the summaries of all other warnings. Any error fails
// the test.
func planWarnings(t *testing.T, tf *acctest.CLI, args ...string) (checks map[string]string, others []string) {
	t.Helper()
	out, code := tf.Run(nil, append([]string{"plan", "-json", "-input=false"}, args...)...)
	if code != 0 {
		t.Fatalf("plan exited %d:\n%s", code, out)
	}
	checks = map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		var msg struct {
			Type       string `json:"type"`
			Diagnostic struct {
				Severity string `json:"severity"`
				Summary  string `json:"summary"`
				Detail   string `json:"detail"`
				Snippet  *struct {
					Context string `json:"context"`
				} `json:"snippet"`
			} `json:"diagnostic"`
		}
		if json.Unmarshal([]byte(line), &msg) != nil || msg.Type != "diagnostic" {
			continue
		}
		d := msg.Diagnostic
		switch {
		case d.Severity == "error":
			t.Fatalf("plan reported an error: %s: %s", d.Summary, d.Detail)
		case d.Summary == "Check block assertion failed":
			if d.Snippet == nil || !strings.HasPrefix(d.Snippet.Context, "check ") {
				t.Fatalf("a failed check's diagnostic does not name its check block: %s", line)
			}
			checks[strings.Trim(strings.TrimPrefix(d.Snippet.Context, "check "), `"`)] = d.Detail
		case d.Summary == "Provider development overrides are in effect":
			// How these tests run the provider, not something to check.
		default:
			others = append(others, d.Summary+": "+d.Detail)
		}
	}
	return checks, others
}

func TestCLI_fleetHealthExample(t *testing.T) {
	t.Parallel()
	// A small inventory, so that a label runs short after a few creates.
	ds := emulator.DefaultDataset(emulator.DefaultPlans, 40)
	srv := emulatortest.Start(t, emulator.Options{Dataset: &ds})
	tf := newTerraformCLI(t, EnvBaseURL+"="+srv.URL, EnvAPIToken+"="+srv.Token)
	files, err := filepath.Glob(filepath.Join(fleetHealthDir, "*.tf"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no .tf files in %s (%v)", fleetHealthDir, err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tf.Write(filepath.Base(f), string(b))
	}

	create := func(planID string) string {
		sub, err := prototest.ServiceClient(t, srv).CreateSubscription(t.Context(), client.CreateSubscriptionRequest{PlanID: planID})
		if err != nil {
			t.Fatal(err)
		}
		return sub.ID
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	big := create("plan_005")    // global, 20 GB for 30 days
	travel := create("plan_007") // americas, 3 GB for 30 days
	short := create("plan_001")  // global, 1 GB for 7 days
	must(srv.Activate(big))
	must(srv.Activate(travel))
	must(srv.RecordUsage(travel, 1_000_000_000)) // a third of its data: fine

	// expect plans and checks that exactly the checks named in want fail,
	// each detail matching the patterns given and naming none of absent.
	lit := func(s string) *regexp.Regexp { return regexp.MustCompile(regexp.QuoteMeta(s)) }
	expect := func(step string, want map[string][]*regexp.Regexp, absent []string, args ...string) {
		t.Helper()
		checks, others := planWarnings(t, tf, args...)
		if len(others) > 0 {
			t.Errorf("%s: unexpected warnings: %q", step, others)
		}
		var got, wanted []string
		for name := range checks {
			got = append(got, name)
		}
		for name := range want {
			wanted = append(wanted, name)
		}
		sort.Strings(got)
		sort.Strings(wanted)
		if strings.Join(got, ",") != strings.Join(wanted, ",") {
			t.Errorf("%s: failed checks %q, want %q: %q", step, got, wanted, checks)
		}
		for name, phrases := range want {
			for _, p := range phrases {
				if !p.MatchString(checks[name]) {
					t.Errorf("%s: check %s says %q, which does not match %q", step, name, checks[name], p)
				}
			}
			for _, id := range absent {
				if strings.Contains(checks[name], id) {
					t.Errorf("%s: check %s names %s, which is healthy: %q", step, name, id, checks[name])
				}
			}
		}
	}

	// Two active subscriptions with most of their month and data left, one
	// not yet used, enough free eSIMs of every label.
	expect("a healthy fleet", nil, nil)

	// 20 of 20.48 GB used: 2% left, below the default 10%.
	must(srv.RecordUsage(big, 20_000_000_000))
	expect("data nearly used up", map[string][]*regexp.Regexp{
		"subscriptions_low_on_data": {lit(big), lit("2% of 20480 MB left")},
	}, []string{travel, short})

	// A 7-day plan expires within the default 14 days as soon as it is used.
	must(srv.Activate(short))
	expect("a short plan activated", map[string][]*regexp.Regexp{
		"subscriptions_low_on_data": {lit(big)},
		"subscriptions_expiring":    {lit(short + " (expires "), regexp.MustCompile(`expires \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)`)},
	}, []string{travel})

	// Eight days on, the service reports it expired.
	_, err = srv.AdvanceClock(8 * 86400)
	must(err)
	expect("a short plan expired", map[string][]*regexp.Regexp{
		"subscriptions_low_on_data": {lit(big)},
		"subscriptions_expiring":    {lit(short + " (expired)")},
	}, []string{travel})

	// The asia eSIMs run low: all but 4 taken, below the default 5.
	asia := 0
	for _, e := range ds.Esims {
		if label(e.Label) == "asia" {
			asia++
		}
	}
	for range asia - 4 {
		create("plan_008") // asia
	}
	expect("asia eSIMs running out", map[string][]*regexp.Regexp{
		"subscriptions_low_on_data": {lit(big)},
		"subscriptions_expiring":    {lit(short)},
		"free_esims_per_label":      {lit("asia (4 free, want 5)")},
	}, []string{travel, "global", "europe", "americas"})

	// Each threshold is a variable; an expired subscription is reported
	// whatever the window.
	expect("thresholds relaxed", map[string][]*regexp.Regexp{
		"subscriptions_expiring": {lit(short + " (expired)")},
	}, []string{big, travel}, "-var=min_data_left_percent=1", "-var=min_free_esims_per_label={asia=4}")
}
