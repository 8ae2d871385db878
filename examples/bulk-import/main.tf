# Bring the subscriptions an account already has under Terraform, in one
# plan: the mobileplan_subscriptions data source lists those created before
# var.adopt_created_before (all pages, which also serve the refresh), an
# import block per id adopts them, and the resource keeps each on its plan.
# Expired subscriptions are left out, and so are those another configuration
# manages (var.managed_elsewhere): one subscription, one configuration.
#
#   export MOBILEPLAN_BASE_URL=...  MOBILEPLAN_API_TOKEN=...
#   terraform plan -var adopt_created_before=2026-11-28T00:00:00Z
#                     # "N to import, 0 to add, 0 to change, 0 to destroy"
#   terraform apply -var adopt_created_before=2026-11-28T00:00:00Z
#
# Keep adopt_created_before as it was, in a .tfvars file: a subscription
# created after it is never adopted here, import block or not.

terraform {
  required_version = ">= 1.11"
  required_providers {
    mobileplan = {
      source = "mobileplan/mobileplan"
    }
  }
}

provider "mobileplan" {}

variable "adopt_created_before" {
  description = "Adopt only subscriptions created before this time (RFC 3339), such as when the import was planned. Keep it: one created later is never adopted here."
  type        = string
}

variable "managed_elsewhere" {
  description = "Ids of subscriptions another configuration manages: not adopted here."
  type        = set(string)
  default     = []
}

data "mobileplan_subscriptions" "existing" {
  created_before = var.adopt_created_before
}

locals {
  # Each id to its plan id, not to the whole object: the CLI compares every
  # value of a for_each on every command, and whole objects cost it ten
  # times the CPU.
  adopt = {
    for s in data.mobileplan_subscriptions.existing.subscriptions : s.id => s.plan_id
    if s.state != "expired" && !contains(var.managed_elsewhere, s.id)
  }
}

import {
  for_each = local.adopt
  to       = mobileplan_subscription.adopted[each.key]
  id       = each.key
}

resource "mobileplan_subscription" "adopted" {
  for_each = local.adopt
  plan_id  = each.value
}

output "adopted" {
  description = "Subscription id => eSIM ICCID of every adopted subscription."
  value       = { for id, s in mobileplan_subscription.adopted : id => s.esim_iccid }
}
