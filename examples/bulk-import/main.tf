# Bring every subscription the account already has under Terraform, in one
# plan: the mobileplan_subscriptions data source lists them (all pages), an
# import block per id adopts them, and the resource keeps each on its plan.
#
#   export MOBILEPLAN_BASE_URL=...  MOBILEPLAN_API_TOKEN=...
#   terraform plan    # shows "N to import, 0 to add, 0 to change, 0 to destroy"
#   terraform apply

terraform {
  required_version = ">= 1.7" # import blocks with for_each
  required_providers {
    mobileplan = {
      source = "mobileplan/mobileplan"
    }
  }
}

provider "mobileplan" {}

data "mobileplan_subscriptions" "existing" {}

locals {
  existing = { for s in data.mobileplan_subscriptions.existing.subscriptions : s.id => s }
}

import {
  for_each = local.existing
  to       = mobileplan_subscription.adopted[each.key]
  id       = each.key
}

resource "mobileplan_subscription" "adopted" {
  for_each = local.existing
  plan_id  = each.value.plan_id
}

output "adopted" {
  description = "Subscription id => eSIM ICCID of every adopted subscription."
  value       = { for id, s in mobileplan_subscription.adopted : id => s.esim_iccid }
}
