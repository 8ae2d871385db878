package provider

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/go-version"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
)

// Some behaviour can only be seen by running the terraform CLI the way a
// user does: warnings, `plan -generate-config-out` followed by apply, and
// what TF_LOG=TRACE prints. These tests build the provider once and run it
// through dev_overrides, with no `terraform init` and no registry.

var (
	buildOnce   sync.Once
	buildDir    string
	buildErr    error
	buildOutput []byte
)

func providerBinaryDir(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "mobileplan-provider-bin") // removed by TestMain
		if buildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", filepath.Join(buildDir, "terraform-provider-mobileplan"), "github.com/mobileplan/terraform-provider-mobileplan")
		buildOutput, buildErr = cmd.CombinedOutput()
	})
	if buildErr != nil {
		t.Fatalf("building the provider: %v\n%s", buildErr, buildOutput)
	}
	return buildDir
}

// terraformBinary is the CLI these tests run: TF_ACC_TERRAFORM_PATH, as for
// terraform-plugin-testing, so that a run under OpenTofu or another
// Terraform drives that CLI here too; else terraform on PATH.
func terraformBinary() string {
	if p := os.Getenv("TF_ACC_TERRAFORM_PATH"); p != "" {
		return p
	}
	return "terraform"
}

type terraformCLI struct {
	t   *testing.T
	dir string
	env []string
}

// cliFeature is what a test needs of the CLI it runs: a minimum version,
// and for features OpenTofu does not have, Terraform itself.
type cliFeature struct {
	name          string
	minimum       *version.Version
	terraformOnly bool
}

var (
	// Resource identity came with Terraform 1.12 and OpenTofu 1.12.
	identityFeature = cliFeature{"resource identity and import blocks with identity need Terraform or OpenTofu 1.12", version.Must(version.NewVersion("1.12.0")), false}
	// `terraform query` came with Terraform 1.14; OpenTofu has none yet.
	queryFeature = cliFeature{"list resources and terraform query need Terraform 1.14", version.Must(version.NewVersion("1.14.0")), true}
)

// cliIdentity is the line of `version` of the CLI the tests run that names
// it, e.g. "Terraform v1.11.4" or "OpenTofu v1.12.6", asked once per test
// binary. It is the first line, unless the CLI printed a warning first, as
// OpenTofu does on standard output when TF_CLI_CONFIG_FILE names a missing
// file.
var cliIdentity = sync.OnceValues(func() (string, error) {
	out, err := exec.Command(terraformBinary(), "version").Output()
	if err != nil {
		return "", err
	}
	lines := strings.Split(string(out), "\n")
	for _, line := range lines {
		if strings.HasPrefix(line, "Terraform v") || strings.HasPrefix(line, "OpenTofu v") {
			return strings.TrimSpace(line), nil
		}
	}
	return strings.TrimSpace(lines[0]), nil
})

// cliNameVersion is the name ("Terraform" or "OpenTofu") and version of
// the CLI the tests run.
func cliNameVersion(t *testing.T) (string, *version.Version) {
	t.Helper()
	line, err := cliIdentity()
	if err != nil {
		t.Fatalf("%s version: %v", terraformBinary(), err)
	}
	name, ver, ok := strings.Cut(line, " v")
	v, perr := version.NewVersion(ver)
	if !ok || perr != nil {
		t.Fatalf("cannot read the CLI's version from %q", line)
	}
	return name, v
}

// requireCLI skips t, saying which feature is missing, when the CLI the
// tests run (terraformBinary) lacks f, so a skipped test reads as a reason
// and not as a gap. Acceptance tests and CLI tests share it.
func requireCLI(t *testing.T, f cliFeature) {
	t.Helper()
	skipUnlessAcceptance(t)
	name, v := cliNameVersion(t)
	if f.terraformOnly && name != "Terraform" {
		t.Skipf("%s %s is not Terraform (%s)", name, v, f.name)
	}
	if v.Core().LessThan(f.minimum) {
		t.Skipf("CLI version %s is below %s (%s)", v, f.minimum, f.name)
	}
}

func skipUnlessAcceptance(t *testing.T) {
	if os.Getenv("TF_ACC") == "" {
		t.Skip("set TF_ACC=1 to run tests that drive the terraform CLI")
	}
}

func newTerraformCLI(t *testing.T, extraEnv ...string) *terraformCLI {
	t.Helper()
	skipUnlessAcceptance(t)
	bin := providerBinaryDir(t)
	dir := t.TempDir()
	rc := filepath.Join(dir, "dev.tfrc")
	rcText := fmt.Sprintf("provider_installation {\n  dev_overrides {\n    \"mobileplan/mobileplan\" = %q\n  }\n  direct {}\n}\n", bin)
	if err := os.WriteFile(rc, []byte(rcText), 0o600); err != nil {
		t.Fatal(err)
	}
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TF_LOG") || strings.HasPrefix(kv, "MOBILEPLAN_") || strings.HasPrefix(kv, "TF_CLI_CONFIG_FILE=") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "TF_CLI_CONFIG_FILE="+rc, "CHECKPOINT_DISABLE=1", "TF_IN_AUTOMATION=1")
	return &terraformCLI{t: t, dir: dir, env: append(env, extraEnv...)}
}

func (c *terraformCLI) write(name, content string) {
	c.t.Helper()
	if err := os.WriteFile(filepath.Join(c.dir, name), []byte(content), 0o600); err != nil {
		c.t.Fatal(err)
	}
}

func (c *terraformCLI) read(name string) string {
	c.t.Helper()
	b, err := os.ReadFile(filepath.Join(c.dir, name))
	if err != nil {
		c.t.Fatal(err)
	}
	return string(b)
}

// run returns the combined output and the exit code.
func (c *terraformCLI) run(env []string, args ...string) (string, int) {
	c.t.Helper()
	args = append(args, "-no-color")
	cmd := exec.Command(terraformBinary(), args...)
	cmd.Dir = c.dir
	cmd.Env = append(append([]string{}, c.env...), env...)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	default:
		c.t.Fatalf("terraform %v: %v", args, err)
		return "", -1
	}
}

// must runs a command that has to succeed.
func (c *terraformCLI) must(args ...string) string {
	c.t.Helper()
	out, code := c.run(nil, args...)
	if code != 0 {
		c.t.Fatalf("terraform %s exited %d:\n%s", strings.Join(args, " "), code, out)
	}
	return out
}

// expectNoChanges runs a plan that must find nothing to do.
func (c *terraformCLI) expectNoChanges() {
	c.t.Helper()
	out, code := c.run(nil, "plan", "-detailed-exitcode", "-input=false")
	if code != 0 {
		c.t.Fatalf("plan after apply is not empty (exit %d):\n%s", code, out)
	}
	if !strings.Contains(out, "No changes.") {
		c.t.Fatalf("plan does not say No changes:\n%s", out)
	}
}

func cliProvider(srv *emulatortest.Server) string {
	return cliProviderWith(srv, "")
}

// cliProviderWith adds settings (whole lines) to the provider block.
func cliProviderWith(srv *emulatortest.Server, settings string) string {
	return fmt.Sprintf(`
terraform {
  required_providers {
    mobileplan = {
      source = "mobileplan/mobileplan"
    }
  }
}

provider "mobileplan" {
  base_url  = %q
  api_token = %q
%s}
`, srv.URL, srv.Token, settings)
}

func TestCLI_replacementAndDestroyWarn(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	tf := newTerraformCLI(t)
	resourceWith := func(planID string) string {
		return cliProvider(srv) + fmt.Sprintf(`
resource "mobileplan_subscription" "phone" {
  plan_id = %q
}

output "id" {
  value = mobileplan_subscription.phone.id
}
`, planID)
	}
	tf.write("main.tf", resourceWith("plan_001"))
	tf.must("apply", "-auto-approve", "-input=false")
	first := strings.TrimSpace(tf.must("output", "-raw", "id"))
	tf.expectNoChanges()

	tf.write("main.tf", resourceWith("plan_002"))
	out, _ := tf.run(nil, "plan", "-input=false")
	for _, want := range []string{"must be replaced", "Warning: Replacing a subscription leaves the old one running", first, "will keep running at the service"} {
		if !strings.Contains(unwrap(out), want) {
			t.Errorf("replacement plan lacks %q:\n%s", want, out)
		}
	}
	tf.must("apply", "-auto-approve", "-input=false")
	second := strings.TrimSpace(tf.must("output", "-raw", "id"))

	out = tf.must("destroy", "-auto-approve", "-input=false")
	for _, want := range []string{"Warning: Destroying a subscription only removes it from state", "Warning: Subscription still exists at the service", second} {
		if !strings.Contains(unwrap(out), want) {
			t.Errorf("destroy lacks %q:\n%s", want, out)
		}
	}
	if n := srv.Stats().Subscriptions; n != 2 {
		t.Errorf("the service holds %d subscriptions, want both still there", n)
	}
}

func TestCLI_generateConfigRoundTrip(t *testing.T) {
	t.Parallel()
	for name, req := range map[string]client.CreateSubscriptionRequest{
		"made from plan_id": {PlanID: "plan_003"},
		"made inline":       {Plan: &client.InlinePlan{CoverageID: "cov-x", DataMBs: 700, PeriodDays: 5}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := startEmulator(t)
			sub := createAt(t, srv, req)
			tf := newTerraformCLI(t)
			tf.write("main.tf", cliProvider(srv)+fmt.Sprintf(`
import {
  to = mobileplan_subscription.existing
  id = %q
}
`, sub.ID))
			out := tf.must("plan", "-input=false", "-generate-config-out=generated.tf")
			if !strings.Contains(out, "1 to import, 0 to add, 0 to change, 0 to destroy") {
				t.Fatalf("plan with generated config is not a pure import:\n%s", out)
			}
			generated := tf.read("generated.tf")
			// Compared without the alignment, which depends on the
			// longest attribute name.
			for _, want := range []string{`plan_id = "` + sub.PlanID + `"`, "plan = null", "early_renewal_hours = null"} {
				if !strings.Contains(unwrap(generated), want) {
					t.Errorf("generated config lacks %q:\n%s", want, generated)
				}
			}
			out = tf.must("apply", "-auto-approve", "-input=false")
			if !strings.Contains(out, "1 imported, 0 added, 0 changed, 0 destroyed") {
				t.Fatalf("apply did not import:\n%s", out)
			}
			tf.expectNoChanges()
		})
	}
}

func TestCLI_importIntoInlineForm(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	sub := createAt(t, srv, client.CreateSubscriptionRequest{Plan: &client.InlinePlan{CoverageID: "cov-eu", DataMBs: 300, PeriodDays: 9}})
	tf := newTerraformCLI(t)
	config := func(dataMBs int) string {
		return cliProvider(srv) + fmt.Sprintf(`
import {
  to = mobileplan_subscription.travel
  id = %q
}

resource "mobileplan_subscription" "travel" {
  plan = {
    coverage_id = "cov-eu"
    data_mbs    = %d
    period_days = 9
  }
}
`, sub.ID, dataMBs)
	}

	// A configuration describing another plan than the imported one is a
	// real mismatch: replacement.
	tf.write("main.tf", config(301))
	out := tf.must("plan", "-input=false")
	if !strings.Contains(out, "must be replaced") {
		t.Errorf("a mismatched inline plan does not replace:\n%s", out)
	}

	// The matching inline plan: an in-place update that only records
	// `plan` in state, then nothing.
	tf.write("main.tf", config(300))
	out = tf.must("plan", "-input=false")
	if !strings.Contains(out, "1 to import, 0 to add, 1 to change, 0 to destroy") || strings.Contains(out, "must be replaced") {
		t.Fatalf("importing into the inline form should plan one in-place update:\n%s", out)
	}
	creates := srv.RequestCounts()["POST /v1/subscriptions"]
	tf.must("apply", "-auto-approve", "-input=false")
	tf.expectNoChanges()
	if after := srv.RequestCounts()["POST /v1/subscriptions"]; after != creates {
		t.Errorf("the in-place update sent %d create requests", after-creates)
	}
}

// An inline plan always has one period and no label: importing a
// subscription whose plan has either into the inline form is a real
// mismatch, even when the three numbers match.
func TestCLI_importIntoInlineFormNeedsSameProduct(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	recurring := createAt(t, srv, client.CreateSubscriptionRequest{PlanID: "plan_018"}) // europe, 5 GB, 30 days x 3
	tf := newTerraformCLI(t)
	tf.write("main.tf", cliProvider(srv)+fmt.Sprintf(`
import {
  to = mobileplan_subscription.s
  id = %q
}

resource "mobileplan_subscription" "s" {
  plan = {
    coverage_id = "cov-eu"
    data_mbs    = 5120
    period_days = 30
  }
}
`, recurring.ID))
	out := tf.must("plan", "-input=false")
	if !strings.Contains(out, "must be replaced") {
		t.Errorf("importing a 3-period, labelled plan into an inline plan must replace:\n%s", out)
	}
}

func TestCLI_unknownPlanWarnsAboutReplacement(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	tf := newTerraformCLI(t)
	tf.write("main.tf", cliProvider(srv)+`
variable "rev" {
  default = "1"
}

resource "terraform_data" "chosen_plan" {
  input = "plan_001"
  triggers_replace = [var.rev]
}

resource "mobileplan_subscription" "s" {
  plan_id = terraform_data.chosen_plan.output
}
`)
	tf.must("apply", "-auto-approve", "-input=false")
	tf.expectNoChanges()
	out, _ := tf.run(nil, "plan", "-input=false", "-var", "rev=2")
	for _, want := range []string{"must be replaced", "Warning: Replacing a subscription whose plan is known only after apply", "ignore_changes"} {
		if !strings.Contains(unwrap(out), want) {
			t.Errorf("plan with an unknown plan_id lacks %q:\n%s", want, out)
		}
	}
}

func TestCLI_tokenNeverInLogsStateOrPlan(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	// A token written literally in the provider block is part of the
	// configuration, and Terraform itself copies configuration constants into
	// saved plans (`terraform show -json PLAN` prints them). That case is
	// Terraform's, not the provider's, so the machine-readable plan is
	// checked only with the token in the environment, as the docs advise.
	for name, setup := range map[string]struct {
		env      []string
		config   string
		jsonPlan bool
	}{
		"token in provider block": {config: cliProvider(srv)},
		"token from environment": {
			jsonPlan: true,
			env:      []string{EnvAPIToken + "=" + srv.Token, EnvBaseURL + "=" + srv.URL},
			config: `
terraform {
  required_providers {
    mobileplan = { source = "mobileplan/mobileplan" }
  }
}
provider "mobileplan" {}
`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			tf := newTerraformCLI(t, setup.env...)
			tf.write("main.tf", setup.config+`
resource "mobileplan_subscription" "s" {
  plan_id = "plan_001"
}
data "mobileplan_subscriptions" "all" {
  depends_on = [mobileplan_subscription.s]
}
`)
			trace := []string{"TF_LOG=TRACE"}
			var logs strings.Builder
			commands := [][]string{
				{"apply", "-auto-approve", "-input=false"},
				{"plan", "-input=false", "-out=tfplan"},
				{"show", "tfplan"},
				{"refresh", "-input=false"},
			}
			if setup.jsonPlan {
				commands = append(commands, []string{"show", "-json", "tfplan"})
			}
			for _, args := range commands {
				out, code := tf.run(trace, args...)
				if code != 0 {
					t.Fatalf("terraform %v exited %d:\n%s", args, code, out)
				}
				logs.WriteString(out)
			}
			if !strings.Contains(logs.String(), "mobileplan API request") {
				t.Fatal("TRACE output holds no provider API log line; the test would not see a leak")
			}
			for what, text := range map[string]string{"TRACE output": logs.String(), "state": tf.read("terraform.tfstate")} {
				if strings.Contains(text, srv.Token) {
					t.Errorf("the API token appears in %s", what)
				}
			}
		})
	}
}

// unwrap joins Terraform's 80-column wrapping so phrases can be matched.
func unwrap(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
