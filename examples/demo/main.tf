# What `make demo` applies: pick a subscribable plan by its properties, check
# the free eSIMs, and subscribe. The provider reads MOBILEPLAN_BASE_URL and
# MOBILEPLAN_API_TOKEN, which the demo sets for its emulator.

terraform {
  required_providers {
    mobileplan = {
      source = "mobileplan/mobileplan"
    }
  }
}

provider "mobileplan" {}

data "mobileplan_plans" "europe" {
  label        = "europe"
  subscribable = true
}

resource "mobileplan_subscription" "demo" {
  plan_id = data.mobileplan_plans.europe.ids[0]
}

# Read after the subscription exists, so the count already excludes its eSIM
# and a second plan finds nothing to change.
data "mobileplan_esims" "free_europe" {
  label      = "europe"
  assigned   = false
  depends_on = [mobileplan_subscription.demo]
}

output "subscribable_plans" {
  description = "Plans with the europe label that a subscription can be made from."
  value       = [for p in data.mobileplan_plans.europe.plans : "${p.id}: ${p.name}"]
}

output "free_esims" {
  description = "eSIMs with the europe label still free in the inventory."
  value       = length(data.mobileplan_esims.free_europe.iccids)
}

output "subscription" {
  description = "The new subscription and the eSIM the service assigned to it."
  value = {
    id         = mobileplan_subscription.demo.id
    plan       = mobileplan_subscription.demo.plan_details.name
    esim_iccid = mobileplan_subscription.demo.esim_iccid
    state      = mobileplan_subscription.demo.state
  }
}
