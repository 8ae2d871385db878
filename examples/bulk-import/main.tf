# Bring the subscriptions an account already has under Terraform, in one
# plan: the mobileplan_subscriptions data source lists them (all pages), an
# import block per id adopts them, and the resource keeps each on its plan.
# Expired subscriptions are left out, and so are those another configuration
# manages (var.managed_elsewhere): one subscription, one configuration.
#
#   export MOBILEPLAN_BASE_URL=...  MOBILEPLAN_API_TOKEN=...
#   terraform plan    # shows "N to import, 0 to add, 0 to change, 0 to destroy"
#   terraform apply

terraform {
  required_version = ">= 1.11"
  required_providers {
    mobileplan = {
      source = "mobileplan/mobileplan"
    }
  }
}

provider "mobileplan" {}

variable "managed_elsewhere" {
  description = "Ids of subscriptions another configuration manages: not adopted here."
  type        = set(string)
  default     = []
}

data "mobileplan_subscriptions" "existing" {}

locals {
  adopt = {
    for s in data.mobileplan_subscriptions.existing.subscriptions : s.id => s
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
  plan_id  = each.value.plan_id
}

output "adopted" {
  description = "Subscription id => eSIM ICCID of every adopted subscription."
  value       = { for id, s in mobileplan_subscription.adopted : id => s.esim_iccid }
}
