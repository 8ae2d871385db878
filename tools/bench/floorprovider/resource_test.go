package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

// The floor is only a fair anchor if it does what null_resource does: an
// id made once and kept, an empty plan after apply (the framework's test
// step checks that), and a replacement when the triggers change.
func TestFloorResourceLikeNullResource(t *testing.T) {
	cliConfig := filepath.Join(t.TempDir(), "terraformrc")
	if err := os.WriteFile(cliConfig, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TF_CLI_CONFIG_FILE", cliConfig)
	t.Setenv("CHECKPOINT_DISABLE", "1")
	config := func(trigger string) string {
		return `resource "floor_resource" "x" {
  count    = 2
  triggers = { index = "` + trigger + `${count.index}" }
}`
	}
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: map[string]func() (tfprotov6.ProviderServer, error){
			"floor": providerserver.NewProtocol6WithError(floorProvider),
		},
		Steps: []resource.TestStep{
			{
				Config: config("a"),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("floor_resource.x[1]", tfjsonpath.New("id"), knownvalue.StringRegexp(hexID)),
					statecheck.ExpectKnownValue("floor_resource.x[1]", tfjsonpath.New("triggers"),
						knownvalue.MapExact(map[string]knownvalue.Check{"index": knownvalue.StringExact("a1")})),
				},
			},
			{
				Config: config("b"),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction("floor_resource.x[0]", plancheck.ResourceActionDestroyBeforeCreate),
					plancheck.ExpectUnknownValue("floor_resource.x[0]", tfjsonpath.New("id")),
				}},
			},
		},
	})
}

var hexID = regexp.MustCompile(`^[0-9a-f]{16}$`)
