# query.tfquery.hcl, next to a configuration that has the provider block.
# `terraform query` (Terraform 1.14 and later) lists what it finds;
# `terraform query -generate-config-out=generated.tf` also writes a
# mobileplan_subscription resource and an import block for each.
#
# Keep the results of several list blocks apart (different filters): a
# subscription found by two blocks gets two resources and two import blocks.

list "mobileplan_subscription" "active_travel" {
  provider = mobileplan

  # At most 30 results (default 100): pages of 25 are read only until 30
  # matches are found.
  limit = 30

  # Every filter is optional; without config, every subscription is found,
  # newest first.
  config {
    state   = "active"
    plan_id = "plan_002"
  }
}

# Active subscriptions that expire before the first of December, to import
# and renew (early_renewal_hours on the generated resources).
list "mobileplan_subscription" "expiring" {
  provider = mobileplan

  config {
    state          = "active"
    expires_before = "2026-12-01T00:00:00Z"
  }
}
