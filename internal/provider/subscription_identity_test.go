package provider

import (
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/acctest"
	"github.com/mobileplan/terraform-provider-mobileplan/internal/provider/prototest"
)

func identityIs(addr string, id knownvalue.Check) statecheck.StateCheck {
	return statecheck.ExpectIdentity(addr, map[string]knownvalue.Check{"id": id})
}

func TestAccSubscription_identity(t *testing.T) {
	t.Parallel()
	acctest.RequireCLI(t, acctest.Identity)
	srv := startEmulator(t)
	config := withProvider(srv, `
resource "mobileplan_subscription" "test" {
  plan_id = "plan_001"
}
`)
	noop := resource.ImportPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectResourceAction(subAddr, plancheck.ResourceActionNoop)}}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersFor(t),
		Steps: []resource.TestStep{
			{
				// Create sets the identity, and it is the id.
				Config: config,
				ConfigStateChecks: []statecheck.StateCheck{
					identityIs(subAddr, knownvalue.StringRegexp(subscriptionID)),
					statecheck.ExpectIdentityValueMatchesState(subAddr, tfjsonpath.New("id")),
				},
			},
			{
				// import { to = ..., identity = { id = ... } }, then an
				// empty plan.
				ResourceName:     subAddr,
				ImportState:      true,
				ImportStateKind:  resource.ImportBlockWithResourceIdentity,
				ImportPlanChecks: noop,
			},
			{
				// The same with generated configuration.
				ResourceName:    subAddr,
				ImportState:     true,
				ImportStateKind: resource.ImportBlockWithResourceIdentity,
				GenerateConfig:  true,
				Config:          withProvider(srv, ""),
			},
			{
				// `terraform import` by id records the identity too.
				ResourceName:                         subAddr,
				ImportState:                          true,
				ImportStateKind:                      resource.ImportCommandWithID,
				ImportStateVerify:                    true,
				ImportStateVerifyIdentifierAttribute: "id",
			},
		},
	})
}

// An import block whose identity names no subscription of the account is an
// error, not an empty resource in state.
func TestAccSubscription_identityImportOfUnknownID(t *testing.T) {
	t.Parallel()
	acctest.RequireCLI(t, acctest.Identity)
	srv := startEmulator(t)
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: providersFor(t),
		Steps: []resource.TestStep{{
			Config: withProvider(srv, `
import {
  to       = mobileplan_subscription.test
  identity = { id = "sub_00000000deadbeef" }
}

resource "mobileplan_subscription" "test" {
  plan_id = "plan_001"
}
`),
			ExpectError: errorPattern("Cannot import non-existent remote object", "mobileplan_subscription.test"),
		}},
	})
}

// `terraform import ADDR ""` on a CLI without identity (1.11): the request
// has no id and a null identity. It gets the provider's own "Missing
// subscription id", not a conversion error from reading the null identity.
func TestImportState_emptyIDWithoutIdentity(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	resp, err := testServer().ImportResourceState(ctx, &tfprotov6.ImportResourceStateRequest{TypeName: "mobileplan_subscription", ID: ""})
	if err != nil {
		t.Fatal(err)
	}
	got := prototest.DiagText(resp.Diagnostics)
	if !strings.Contains(got, "Missing subscription id") || strings.Contains(got, "Value Conversion Error") {
		t.Fatalf("diagnostics:\n%s", got)
	}
}
