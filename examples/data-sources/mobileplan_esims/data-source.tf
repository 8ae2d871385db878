# The free eSIMs that can serve "europe" plans: check the inventory before a
# rollout of several subscriptions.
data "mobileplan_esims" "free_europe" {
  label    = "europe"
  assigned = false
}

variable "europe_travellers" {
  type    = number
  default = 10
}

check "enough_europe_esims" {
  assert {
    condition     = length(data.mobileplan_esims.free_europe.iccids) >= var.europe_travellers
    error_message = "Only ${length(data.mobileplan_esims.free_europe.iccids)} free eSIMs with the europe label are left."
  }
}

# eSIMs whose profile was released at the SM-DP+; reading stops after 50.
data "mobileplan_esims" "released" {
  smdp_state = "RELEASED"
  max_items  = 50
}

output "released_esims" {
  description = "ICCID => subscription id (null when free)."
  value       = { for e in data.mobileplan_esims.released.esims : e.iccid => e.subscription_id }
}
