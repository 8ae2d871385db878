package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/emulator/emulatortest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

// testdata/schema-v0 is a state written by the previous release: Terraform
// 1.11.4 applied schemaV0Config with the provider at schema version 0 (with
// remaining_allowance) against an emulator keeping its state in
// emulator.db, with its wall clock stopped at schemaV0Clock; then one
// subscription used 1,000 bytes of data and `terraform apply -refresh-only`
// stored that. Started from a copy of that database with the same clock,
// the emulator answers exactly what the state holds, so the state file is
// used as it was written, not edited.
const schemaV0Config = `
resource "mobileplan_subscription" "from_id" {
  plan_id = "plan_001"
}

resource "mobileplan_subscription" "inline" {
  plan = {
    coverage_id = "cov-eu"
    data_mbs    = 2048
    period_days = 30
  }
}
`

var schemaV0Clock = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

// startSchemaV0Emulator serves the service as the state in
// testdata/schema-v0 was written against.
func startSchemaV0Emulator(t *testing.T) *emulatortest.Server {
	t.Helper()
	db, err := os.ReadFile(filepath.Join("testdata", "schema-v0", "emulator.db"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "emulator.db")
	if err := os.WriteFile(path, db, 0o600); err != nil {
		t.Fatal(err)
	}
	return emulatortest.Start(t, emulator.Options{StatePath: path, Now: func() time.Time { return schemaV0Clock }})
}

func schemaV0State(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "schema-v0", "terraform.tfstate"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A state written by the previous release (schema version 0, with
// remaining_allowance) refreshes and plans with no changes through the CLI;
// the refreshed state is version 2, the same but for remaining_allowance
// and with renewal off (early_renewal_hours unset, ready_for_renewal false);
// and data used afterwards is no drift.
func TestCLI_stateOfThePreviousSchemaPlansNoChanges(t *testing.T) {
	t.Parallel()
	c := newTerraformCLI(t)
	srv := startSchemaV0Emulator(t)
	v0 := schemaV0State(t)
	c.Write("main.tf", cliProvider(srv)+schemaV0Config)
	c.Write("terraform.tfstate", v0)

	noDrift := func(when string) {
		t.Helper()
		c.ExpectNoChanges()
		// The exit code of a refresh-only plan is not to be trusted on
		// Terraform before 1.15 (it reports a change for any number
		// attribute); its text is.
		out := c.Must("plan", "-refresh-only", "-input=false")
		// "changed outside of Terraform", or "of OpenTofu".
		if strings.Contains(out, "changed outside of") || !strings.Contains(out, "No changes.") {
			t.Fatalf("%s: a refresh-only plan reports drift:\n%s", when, out)
		}
	}
	noDrift("the previous release's state")

	c.Must("apply", "-refresh-only", "-auto-approve", "-input=false")
	before, after := acctest.StateFileInstances(t, v0, prototest.SubscriptionType), acctest.StateFileInstances(t, c.Read("terraform.tfstate"), prototest.SubscriptionType)
	if len(after) != 2 {
		t.Fatalf("%d subscriptions in the refreshed state, want 2", len(after))
	}
	for name, old := range before {
		now := after[name]
		if old.SchemaVersion != 0 || now.SchemaVersion != 2 {
			t.Errorf("%s: schema version %d, then %d; want 0, then 2", name, old.SchemaVersion, now.SchemaVersion)
		}
		if _, ok := now.Attributes["remaining_allowance"]; ok {
			t.Errorf("%s: remaining_allowance is still in the state", name)
		}
		delete(old.Attributes, "remaining_allowance")
		if hours, ready := now.Attributes["early_renewal_hours"], now.Attributes["ready_for_renewal"]; hours != nil || ready != false {
			t.Errorf("%s: early_renewal_hours %v, ready_for_renewal %v; want null, false", name, hours, ready)
		}
		delete(now.Attributes, "early_renewal_hours")
		delete(now.Attributes, "ready_for_renewal")
		// The timeouts block came with no schema version of its own: an
		// upgraded state has it unset, as a configuration without it.
		if timeouts, ok := now.Attributes["timeouts"]; !ok || timeouts != nil {
			t.Errorf("%s: timeouts %v (present %v), want null", name, timeouts, ok)
		}
		delete(now.Attributes, "timeouts")
		if o, n := jsonText(t, old.Attributes), jsonText(t, now.Attributes); o != n {
			t.Errorf("%s: attributes changed in the upgrade:\nbefore %s\nafter  %s", name, o, n)
		}
	}

	if err := srv.RecordUsage(after[prototest.SubscriptionType+".from_id"].Attributes["id"].(string), 250_000_000); err != nil {
		t.Fatal(err)
	}
	noDrift("data used after the upgrade")
}

// Through the provider server, without a CLI: the previous release's state
// of each subscription upgrades to the same values without
// remaining_allowance and with renewal off, and a read of it changes
// nothing.
func TestUpgradeResourceState_previousSchema(t *testing.T) {
	t.Parallel()
	srv := startSchemaV0Emulator(t)
	h := prototest.NewProtoHarness(t, testServer(), srv)
	previous := acctest.StateFileInstances(t, schemaV0State(t), prototest.SubscriptionType)
	if len(previous) != 2 {
		t.Fatalf("%d subscriptions in the previous release's state, want 2", len(previous))
	}
	for name, inst := range previous {
		raw := []byte(jsonText(t, inst.Attributes))
		resp, err := h.Server.UpgradeResourceState(context.Background(), &tfprotov6.UpgradeResourceStateRequest{
			TypeName: prototest.SubscriptionType, Version: inst.SchemaVersion, RawState: &tfprotov6.RawState{JSON: raw},
		})
		if err != nil || len(resp.Diagnostics) > 0 {
			t.Fatalf("%s: upgrade: %v %s", name, err, prototest.DiagText(resp.Diagnostics))
		}
		// The state as version 2 sees it: the same JSON, the attribute it
		// no longer has left out,
		want, err := (&tfprotov6.RawState{JSON: raw}).UnmarshalWithOpts(h.Type, tfprotov6.UnmarshalOpts{
			ValueFromJSONOpts: tftypes.ValueFromJSONOpts{IgnoreUndefinedAttributes: true},
		})
		if err != nil {
			t.Fatal(err)
		}
		// and renewal, which version 2 added, as a read stores it: unset,
		// not ready.
		var attrs map[string]tftypes.Value
		if err := want.As(&attrs); err != nil {
			t.Fatal(err)
		}
		attrs["ready_for_renewal"] = tftypes.NewValue(tftypes.Bool, false)
		want = tftypes.NewValue(h.Type, attrs)
		if got := h.Value(t, resp.UpgradedState); !got.Equal(want) {
			t.Errorf("%s: upgraded to\n%s\nwant\n%s", name, got, want)
		}
		refreshed := readRaw(t, h, resp.UpgradedState)
		if !bytes.Equal(refreshed.MsgPack, resp.UpgradedState.MsgPack) {
			t.Errorf("%s: a read of the upgraded state changed it:\n%s\n%s", name, h.Value(t, resp.UpgradedState), h.Value(t, refreshed))
		}
	}
}

func jsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
