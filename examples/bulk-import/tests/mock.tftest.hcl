# Offline, on the provider's mock kit (mocks/ in its repository). Terraform
# (1.11.4, as tested) cannot mock a list of objects, so it reads the kit's
# subscriptions as an empty list (hashicorp/terraform#38369); OpenTofu reads
# the kit's one active subscription. These runs hold under both; the
# filters are tested with single values in filters.tofutest.hcl (OpenTofu)
# and against the emulator in emulator.tftest.hcl.

mock_provider "mobileplan" {
  source = "../../mocks"
}

run "adopts_every_live_subscription_on_its_plan" {
  command = plan

  assert {
    condition     = toset(keys(mobileplan_subscription.adopted)) == toset([for s in data.mobileplan_subscriptions.existing.subscriptions : s.id if s.state != "expired"])
    error_message = "Every listed subscription that has not expired should be adopted."
  }
  assert {
    condition     = alltrue([for s in data.mobileplan_subscriptions.existing.subscriptions : mobileplan_subscription.adopted[s.id].plan_id == s.plan_id if s.state != "expired"])
    error_message = "An adopted subscription should stay on its plan."
  }
}

run "leaves_out_what_is_managed_elsewhere" {
  command = plan

  variables {
    managed_elsewhere = ["sub_00000000000000a1"] # the kit's subscription
  }

  assert {
    condition     = length(mobileplan_subscription.adopted) == 0
    error_message = "Subscriptions another configuration manages should not be adopted."
  }
}
