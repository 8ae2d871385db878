# The README's quick start: three subscriptions on a European plan, one per
# phone. Its tests/ show how a module using this provider is tested: offline
# on the provider's mock kit, and with real applies against the emulator.
#
#   export MOBILEPLAN_BASE_URL=...  MOBILEPLAN_API_TOKEN=...
#   terraform apply

terraform {
  required_providers {
    mobileplan = { source = "mobileplan/mobileplan" }
  }
}

data "mobileplan_plans" "europe" {
  label        = "europe"
  subscribable = true
}

resource "mobileplan_subscription" "phone" {
  for_each = toset(["alice", "bob", "carol"])
  plan_id  = data.mobileplan_plans.europe.ids[0]
}

output "iccids" {
  value = { for name, s in mobileplan_subscription.phone : name => s.esim_iccid }
}
