# Subscriptions that exist before a test of a module that reads them (the
# bulk import, fleet health): made with the resource, as another
# configuration (or the service's console) would have.

terraform {
  required_providers {
    mobileplan = { source = "mobileplan/mobileplan" }
  }
}

variable "how_many" {
  type = number
}

data "mobileplan_plans" "europe" {
  label        = "europe"
  subscribable = true
}

resource "mobileplan_subscription" "existing" {
  count   = var.how_many
  plan_id = data.mobileplan_plans.europe.ids[0]
}

output "ids" {
  value = mobileplan_subscription.existing[*].id
}

output "iccids" {
  value = { for s in mobileplan_subscription.existing : s.id => s.esim_iccid }
}

output "purchased_data_bytes" {
  value = { for s in mobileplan_subscription.existing : s.id => s.purchased_allowance.data_bytes }
}

output "plan_ids" {
  value = { for s in mobileplan_subscription.existing : s.id => s.plan_id }
}

# How far the emulator's clock must move for the first one to expire once
# it is used: its validity (period times iterations), and a minute.
output "seconds_to_expire_first" {
  value = var.how_many == 0 ? 0 : mobileplan_subscription.existing[0].plan_details.period_days * max(mobileplan_subscription.existing[0].plan_details.period_iterations, 1) * 86400 + 60
}
