# Subscriptions whose eSIM is in use, newest first.
data "mobileplan_subscriptions" "active" {
  state = "active"
}

# The 20 newest subscriptions made from one plan.
data "mobileplan_subscriptions" "plan_002_recent" {
  plan_id   = "plan_002"
  max_items = 20
}

# What expires within a week, expired subscriptions included. A
# subscription not yet active has no expiry and is never listed.
data "mobileplan_subscriptions" "expiring_this_week" {
  expires_before = timeadd(plantimestamp(), "168h")
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

output "expiring_this_week" {
  description = "Subscription id => expiry, in Unix seconds."
  value       = { for s in data.mobileplan_subscriptions.expiring_this_week.subscriptions : s.id => s.expire_at }
}
