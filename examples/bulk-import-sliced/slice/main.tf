# One slice of examples/bulk-import-sliced: the subscriptions whose ids end
# in the same two characters.

terraform {
  required_providers {
    mobileplan = {
      source = "mobileplan/mobileplan"
    }
  }
}

variable "adopt" {
  description = "Subscription id => plan id of each subscription of this slice."
  type        = map(string)
}

resource "mobileplan_subscription" "adopted" {
  for_each = var.adopt
  plan_id  = each.value
}
