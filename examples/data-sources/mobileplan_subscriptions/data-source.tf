# Subscriptions whose eSIM is in use, newest first.
data "mobileplan_subscriptions" "active" {
  state = "active"
}

# The 20 newest subscriptions made from one plan.
data "mobileplan_subscriptions" "plan_002_recent" {
  plan_id   = "plan_002"
  max_items = 20
}

output "active_count" {
  value = length(data.mobileplan_subscriptions.active.ids)
}

output "remaining_data_bytes" {
  description = "Subscription id => data left, in bytes."
  value = {
    for s in data.mobileplan_subscriptions.active.subscriptions :
    s.id => s.remaining_allowance.data_bytes
  }
}

output "newest_on_plan_002" {
  value = try(data.mobileplan_subscriptions.plan_002_recent.ids[0], null)
}
