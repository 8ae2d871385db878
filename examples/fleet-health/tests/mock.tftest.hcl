# Offline, on the provider's mock kit (mocks/ in its repository): the
# kit's fleet is healthy. Terraform (1.11.4, as tested) cannot mock a list
# of objects, so it reads the kit's subscriptions and eSIMs as empty lists
# (hashicorp/terraform#38369); OpenTofu reads the kit's active subscription,
# which expires in 2099 with a quarter of its data used, and its free eSIM.
# The checks' outcomes for single cases are in checks.tofutest.hcl
# (OpenTofu) and emulator.tftest.hcl.

mock_provider "mobileplan" {
  source = "../../mocks"
}

run "the_kit_fleet_is_healthy" {
  command = plan

  variables {
    min_free_esims = 1
  }

  assert {
    condition     = length(local.expiring) == 0 && length(local.low_on_data) == 0 && length(local.short_labels) == 0
    error_message = "Nothing in the kit's fleet should draw a warning: ${jsonencode([local.expiring, local.low_on_data, local.short_labels])}"
  }
  assert {
    condition     = output.fleet.subscriptions.expired == 0 && output.fleet.subscriptions.ready == 0
    error_message = "The kit lists no expired and no ready subscription: ${jsonencode(output.fleet)}"
  }
}

# The checks only read: an apply creates nothing and reports the same fleet.
run "apply_creates_nothing" {
  command = apply

  variables {
    min_free_esims = 1
  }

  assert {
    condition     = output.fleet.subscriptions.active == length([for s in data.mobileplan_subscriptions.all.subscriptions : s if s.state == "active"])
    error_message = "The fleet output should count the active subscriptions read: ${jsonencode(output.fleet)}"
  }
  assert {
    condition     = length(data.mobileplan_subscriptions.all.ids) == 1 && length(data.mobileplan_esims.inventory.iccids) == 1
    error_message = "The kit's id lists should be read whole."
  }
}
