package provider

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hashicorp/go-version"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/client"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// Some behaviour can only be seen by running the terraform CLI the way a
// user does: warnings, `plan -generate-config-out` followed by apply, and
// what TF_LOG=TRACE prints. These tests run the provider users run (main.go)
// through acctest.CLI.

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
	tf.Write("main.tf", resourceWith("plan_001"))
	tf.Must("apply", "-auto-approve", "-input=false")
	first := strings.TrimSpace(tf.Must("output", "-raw", "id"))
	tf.ExpectNoChanges()

	tf.Write("main.tf", resourceWith("plan_002"))
	out, _ := tf.Run(nil, "plan", "-input=false")
	for _, want := range []string{"must be replaced", "Warning: Replacing a subscription leaves the old one running", first, "will keep running at the service"} {
		if !strings.Contains(unwrap(out), want) {
			t.Errorf("replacement plan lacks %q:\n%s", want, out)
		}
	}
	tf.Must("apply", "-auto-approve", "-input=false")
	second := strings.TrimSpace(tf.Must("output", "-raw", "id"))

	out = tf.Must("destroy", "-auto-approve", "-input=false")
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
			sub := prototest.CreateAt(t, srv, req)
			tf := newTerraformCLI(t)
			importBlock := func(provider string) string {
				return cliProvider(srv) + fmt.Sprintf(`
import {
%s  to = mobileplan_subscription.existing
  id = %q
}
`, provider, sub.ID)
			}
			tf.Write("main.tf", importBlock(generatingImportProvider(t)))
			out := tf.Must("plan", "-input=false", "-generate-config-out=generated.tf")
			if !strings.Contains(out, "1 to import, 0 to add, 0 to change, 0 to destroy") {
				t.Fatalf("plan with generated config is not a pure import:\n%s", out)
			}
			generated := tf.Read("generated.tf")
			// Compared without the alignment, which depends on the
			// longest attribute name.
			for _, want := range []string{`plan_id = "` + sub.PlanID + `"`, "plan = null", "early_renewal_hours = null"} {
				if !strings.Contains(unwrap(generated), want) {
					t.Errorf("generated config lacks %q:\n%s", want, generated)
				}
			}
			// Once the resource block is written, the import block may not
			// name a provider: Terraform refuses it.
			tf.Write("main.tf", importBlock(""))
			out = tf.Must("apply", "-auto-approve", "-input=false")
			if !strings.Contains(out, "1 imported, 0 added, 0 changed, 0 destroyed") {
				t.Fatalf("apply did not import:\n%s", out)
			}
			tf.ExpectNoChanges()
		})
	}
}

// generatingImportProvider is the provider argument an import block needs
// to generate the configuration of mobileplan_subscription. Terraform 1.16
// before 1.16.3 gives an import block without a resource block the provider
// hashicorp/<type> unless the block names one (ProvidedBy in its
// internal/terraform/node_resource_abstract.go; 1.15 took the one
// required_providers names), and then fails: "unavailable provider
// registry.terraform.io/hashicorp/mobileplan" (measured with 1.16.0-rc2).
// 1.16.3 fixed it (its changelog: "Fix issue with import provider
// resolution", hashicorp/terraform#39185; measured with 1.16.4, which
// needs no provider argument). The importing guide says so.
func generatingImportProvider(t *testing.T) string {
	name, v := acctest.CLINameVersion(t)
	if name == "Terraform" && !v.Core().LessThan(version.Must(version.NewVersion("1.16.0"))) && v.Core().LessThan(terraformResolvesImportProviders) {
		return "  provider = mobileplan\n"
	}
	return ""
}

// terraformResolvesImportProviders is the first Terraform whose changelog
// names the import provider fix (hashicorp/terraform#39185).
var terraformResolvesImportProviders = version.Must(version.NewVersion("1.16.3"))

func TestCLI_importIntoInlineForm(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	sub := prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{Plan: &client.InlinePlan{CoverageID: "cov-eu", DataMBs: 300, PeriodDays: 9}})
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
	tf.Write("main.tf", config(301))
	out := tf.Must("plan", "-input=false")
	if !strings.Contains(out, "must be replaced") {
		t.Errorf("a mismatched inline plan does not replace:\n%s", out)
	}

	// The matching inline plan: an in-place update that only records
	// `plan` in state, then nothing.
	tf.Write("main.tf", config(300))
	out = tf.Must("plan", "-input=false")
	if !strings.Contains(out, "1 to import, 0 to add, 1 to change, 0 to destroy") || strings.Contains(out, "must be replaced") {
		t.Fatalf("importing into the inline form should plan one in-place update:\n%s", out)
	}
	creates := srv.RequestCounts()["POST /v1/subscriptions"]
	tf.Must("apply", "-auto-approve", "-input=false")
	tf.ExpectNoChanges()
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
	recurring := prototest.CreateAt(t, srv, client.CreateSubscriptionRequest{PlanID: "plan_018"}) // europe, 5 GB, 30 days x 3
	tf := newTerraformCLI(t)
	tf.Write("main.tf", cliProvider(srv)+fmt.Sprintf(`
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
	out := tf.Must("plan", "-input=false")
	if !strings.Contains(out, "must be replaced") {
		t.Errorf("importing a 3-period, labelled plan into an inline plan must replace:\n%s", out)
	}
}

func TestCLI_unknownPlanWarnsAboutReplacement(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	tf := newTerraformCLI(t)
	tf.Write("main.tf", cliProvider(srv)+`
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
	tf.Must("apply", "-auto-approve", "-input=false")
	tf.ExpectNoChanges()
	out, _ := tf.Run(nil, "plan", "-input=false", "-var", "rev=2")
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
			tf.Write("main.tf", setup.config+`
resource "mobileplan_subscription" "s" {
  plan_id = "plan_001"
}
data "mobileplan_subscriptions" "all" {
  depends_on = [mobileplan_subscription.s]
}
`)
			// Every log line, on the command's output, whatever a run
			// tracing the one-CLI list adds to the environment.
			trace := []string{"TF_LOG=TRACE", "TF_LOG_PATH=", "TF_LOG_PROVIDER=TRACE", "TF_LOG_SDK_FRAMEWORK=TRACE"}
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
				out, code := tf.Run(trace, args...)
				if code != 0 {
					t.Fatalf("terraform %v exited %d:\n%s", args, code, out)
				}
				logs.WriteString(out)
			}
			if !strings.Contains(logs.String(), "mobileplan API request") {
				t.Fatal("TRACE output holds no provider API log line; the test would not see a leak")
			}
			for what, text := range map[string]string{"TRACE output": logs.String(), "state": tf.Read("terraform.tfstate")} {
				if strings.Contains(text, srv.Token) {
					t.Errorf("the API token appears in %s", what)
				}
			}
		})
	}
}
