package provider

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// The move from the generic REST provider, as a team makes it: the
// subscriptions are created by the generic REST provider (the version
// tools/restapi pins, built from source), then `moved` blocks hand them to
// mobileplan_subscription, with the generic provider still installed.

// genericRESTConfig is the terraform block naming both providers and the
// generic REST provider's block, set up for the service as its users set it
// up: the create answers the object, whose id is its id attribute.
func genericRESTConfig(srv *emulatortest.Server) string {
	return fmt.Sprintf(`
terraform {
  required_providers {
    mobileplan = {
      source = "mobileplan/mobileplan"
    }
    restapi = {
      source = "mastercard/restapi"
    }
  }
}

provider "restapi" {
  uri                   = %q
  create_returns_object = true
  id_attribute          = "id"
  headers = {
    Authorization = "Bearer %s"
  }
}
`, srv.URL, srv.Token)
}

const restAPIFleet = `
resource "restapi_object" "sim" {
  path = "/v1/subscriptions"
  data = jsonencode({ planId = "plan_001" })
}

resource "restapi_object" "fleet" {
  for_each = toset(["a", "b", "c"])
  path     = "/v1/subscriptions"
  data     = jsonencode({ planId = "plan_002" })
}
`

const movedFleet = `
resource "mobileplan_subscription" "sim" {
  plan_id = "plan_001"
}

resource "mobileplan_subscription" "fleet" {
  for_each = toset(["a", "b", "c"])
  plan_id  = "plan_002"
}

moved {
  from = restapi_object.sim
  to   = mobileplan_subscription.sim
}

moved {
  from = restapi_object.fleet
  to   = mobileplan_subscription.fleet
}
`

func TestCLI_moveFromGenericRESTProvider(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	tf := newTerraformCLI(t)
	tf.UseGenericRESTProvider()
	providers := genericRESTConfig(srv) + withProvider(srv, "")
	tf.Write("main.tf", providers+restAPIFleet)
	tf.Must("apply", "-auto-approve", "-input=false")
	creates := srv.RequestCounts()["POST /v1/subscriptions"]
	if creates != 4 {
		t.Fatalf("the generic REST provider sent %d creates, want 4", creates)
	}
	made := map[string]string{} // address -> id, as the generic provider stored them
	for addr, inst := range restAPIInstances(t, tf.Read("terraform.tfstate")) {
		made[strings.Replace(addr, "restapi_object.", "mobileplan_subscription.", 1)] = inst
	}

	tf.Write("main.tf", providers+movedFleet)
	out := tf.PlanExpect(2)
	for _, want := range []string{
		"restapi_object.sim has moved to mobileplan_subscription.sim",
		`restapi_object.fleet["b"] has moved to mobileplan_subscription.fleet["b"]`,
		"0 to add, 0 to change, 0 to destroy",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the plan of the move lacks %q:\n%s", want, out)
		}
	}
	out = tf.Must("apply", "-auto-approve", "-input=false")
	if !strings.Contains(out, "0 added, 0 changed, 0 destroyed") {
		t.Errorf("the move's apply did more than move:\n%s", out)
	}
	if after := srv.RequestCounts()["POST /v1/subscriptions"]; after != creates {
		t.Fatalf("the move sent %d creates, want none", after-creates)
	}
	tf.ExpectNoChanges()

	state := tf.Read("terraform.tfstate")
	moved := subscriptionInstances(t, state)
	if len(moved) != len(made) {
		t.Fatalf("%d subscriptions in state after the move, want %d: %v", len(moved), len(made), moved)
	}
	for addr, id := range made {
		got := moved[addr]
		if got.id != id {
			t.Errorf("%s is %q after the move, want the generic provider's %q", addr, got.id, id)
		}
		if got.esimICCID == "" || got.planID == "" {
			t.Errorf("%s was not read from the service: %+v", addr, got)
		}
		if acctest.CLIHas(t, acctest.Identity) && got.identity != id {
			t.Errorf("%s has identity %q, want %q", addr, got.identity, id)
		}
	}

	// Once moved, the generic provider may go.
	tf.Write("main.tf", cliProvider(srv)+strings.Split(movedFleet, "moved {")[0])
	tf.ExpectNoChanges()
}

// A moved state that names no subscription is refused at plan time, with
// the way out, and nothing is created: here an eSIM the generic provider
// managed at /v1/esims, and a subscription of another account.
func TestCLI_moveRefusesWhatIsNoSubscription(t *testing.T) {
	t.Parallel()
	srv := startEmulator(t)
	tf := newTerraformCLI(t)
	tf.UseGenericRESTProvider()
	// The esim is refused by the move itself, which Terraform 1.11 reports
	// without the resource's address; the unknown subscription by the
	// refresh after it, which both CLIs report at the resource.
	for name, obj := range map[string]struct{ path, id, at string }{
		"esim":                            {"/v1/esims", "8988300000000000001", ""},
		"subscription of another account": {"/v1/subscriptions", "sub_00000000000000ff", "with mobileplan_subscription.sim"},
	} {
		t.Run(name, func(t *testing.T) {
			tf.Write("terraform.tfstate", restAPIStateFile(t, obj.path, obj.id))
			tf.Write("main.tf", genericRESTConfig(srv)+withProvider(srv, `
resource "mobileplan_subscription" "sim" {
  plan_id = "plan_001"
}

moved {
  from = restapi_object.sim
  to   = mobileplan_subscription.sim
}
`))
			out, code := tf.Run(nil, "plan", "-input=false")
			if code == 0 {
				t.Fatalf("the plan of the move succeeded:\n%s", out)
			}
			for _, want := range []string{
				"Cannot move this restapi_object to mobileplan_subscription",
				fmt.Sprintf("with path %q and id %q", obj.path, obj.id),
				"Nothing was created or changed", "Remove this moved block", "removed block", "import block", obj.at,
			} {
				if !strings.Contains(unwrap(out), want) {
					t.Errorf("the refusal lacks %q:\n%s", want, out)
				}
			}
			if n := srv.RequestCounts()["POST /v1/subscriptions"]; n != 0 {
				t.Errorf("a refused move sent %d creates", n)
			}
		})
	}
}

// restAPIStateFile is a state holding one restapi_object, sim, as the
// generic REST provider 1.20.0 writes it (its attributes as in
// testdata/restapi-object/v1.20.0.json).
func restAPIStateFile(t *testing.T, path, id string) string {
	t.Helper()
	attrs := restAPIObjectV1(t, path, id)
	b, _ := json.Marshal(map[string]any{
		"version": 4, "terraform_version": "1.11.4", "serial": 1, "lineage": "7a0f3a0e-9a43-4a1f-9d52-0c3f0d6a3b11",
		"outputs": map[string]any{},
		"resources": []any{map[string]any{
			"mode": "managed", "type": "restapi_object", "name": "sim",
			"provider":  `provider["registry.terraform.io/mastercard/restapi"]`,
			"instances": []any{map[string]any{"schema_version": 0, "attributes": attrs, "sensitive_attributes": []any{}}},
		}},
	})
	return string(b)
}

// restAPIInstances are the ids of the restapi_object instances of a state
// file, by address.
func restAPIInstances(t *testing.T, state string) map[string]string {
	t.Helper()
	ids := map[string]string{}
	for addr, inst := range acctest.StateFileInstances(t, state, "restapi_object") {
		ids[addr] = anyString(inst.Attributes["id"])
	}
	return ids
}

type movedSubscription struct{ id, planID, esimICCID, identity string }

func subscriptionInstances(t *testing.T, state string) map[string]movedSubscription {
	t.Helper()
	out := map[string]movedSubscription{}
	for addr, inst := range acctest.StateFileInstances(t, state, prototest.SubscriptionType) {
		out[addr] = movedSubscription{
			id: anyString(inst.Attributes["id"]), planID: anyString(inst.Attributes["plan_id"]), esimICCID: anyString(inst.Attributes["esim_iccid"]),
			identity: anyString(inst.Identity["id"]),
		}
	}
	return out
}

// anyString is a string of a state file, "" for anything else.
func anyString(v any) string {
	s, _ := v.(string)
	return s
}
