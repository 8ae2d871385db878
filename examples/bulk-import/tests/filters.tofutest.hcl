# OpenTofu only: Terraform (1.11.4, as tested) cannot mock a list of
# objects (hashicorp/terraform#38369). A listing with one subscription in
# each state; only the subscriptions that have not expired, and that no
# other configuration manages, are adopted.

mock_provider "mobileplan" {}

override_data {
  target = data.mobileplan_subscriptions.existing
  values = {
    ids = ["sub_active", "sub_ready", "sub_expired", "sub_elsewhere"]
    subscriptions = [
      { id = "sub_active", plan_id = "plan_001", state = "active", esim_iccid = "8988247000000000019" },
      { id = "sub_ready", plan_id = "plan_002", state = "ready", esim_iccid = "8988247000000000027" },
      { id = "sub_expired", plan_id = "plan_001", state = "expired", esim_iccid = "8988247000000000035" },
      { id = "sub_elsewhere", plan_id = "plan_001", state = "active", esim_iccid = "8988247000000000043" },
    ]
  }
}

run "adopts_live_subscriptions_managed_nowhere_else" {
  command = plan

  variables {
    managed_elsewhere = ["sub_elsewhere"]
  }

  assert {
    condition     = toset(keys(mobileplan_subscription.adopted)) == toset(["sub_active", "sub_ready"])
    error_message = "Want sub_active and sub_ready adopted, got ${jsonencode(keys(mobileplan_subscription.adopted))}."
  }
  assert {
    condition     = mobileplan_subscription.adopted["sub_ready"].plan_id == "plan_002"
    error_message = "An adopted subscription should stay on its plan."
  }
}
