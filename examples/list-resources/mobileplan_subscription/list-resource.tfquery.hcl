# query.tfquery.hcl, next to a configuration that has the provider block.
# `terraform query` (Terraform 1.14 and later) lists what it finds;
# `terraform query -generate-config-out=generated.tf` also writes a
# mobileplan_subscription resource and an import block for each.

# Every subscription of the account, newest first, up to 100 (the default limit).
list "mobileplan_subscription" "all" {
  provider = mobileplan
}

# Only the active subscriptions of one plan, at most 30 of them: the provider
# reads pages of 25 only until 30 matches are found.
list "mobileplan_subscription" "active_travel" {
  provider = mobileplan
  limit    = 30

  config {
    state   = "active"
    plan_id = "plan_002"
  }
}
