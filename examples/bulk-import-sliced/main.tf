# examples/bulk-import for an account past a few thousand subscriptions, in
# one configuration: the same data source, filters and import blocks, with
# the resource in a module called once per slice of the ids (their last two
# characters: 256 slices of hex ids).
#
# Terraform and OpenTofu evaluate a resource's for_each again for each
# instance they plan, over the whole collection: one resource of N
# instances costs them about N x N. In slices, each instance's for_each is
# its slice's, and a plan costs about N x N/256. Choose this shape before
# the first import: moving instances of examples/bulk-import into slices
# changes every address, and a moved block cannot take a for_each.
#
#   export MOBILEPLAN_BASE_URL=...  MOBILEPLAN_API_TOKEN=...
#   terraform init    # installs the slice module (./slice)
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
  # Each id to its plan id, as in examples/bulk-import.
  adopt = {
    for s in data.mobileplan_subscriptions.existing.subscriptions : s.id => s.plan_id
    if s.state != "expired" && !contains(var.managed_elsewhere, s.id)
  }
  # Each id's slice: its last two characters, which never change, so a
  # subscription stays in its slice whatever else is adopted.
  slice_of = { for id in keys(local.adopt) : id => substr(id, length(id) - 2, 2) }
  slices   = { for id, slice in local.slice_of : slice => id... }
}

# Import blocks belong to the root module; each points into its slice (an
# import's address takes references, not function calls).
import {
  for_each = local.slice_of
  to       = module.slice[each.value].mobileplan_subscription.adopted[each.key]
  id       = each.key
}

module "slice" {
  source   = "./slice"
  for_each = local.slices
  adopt    = { for id in each.value : id => local.adopt[id] }
}

# The ICCIDs as the data source lists them at each plan, not an output of
# each slice: for each slice's reference to its resource, Terraform 1.16.4
# gathers the planned changes of that resource in all 256 slices, 256 x N
# in all (a quarter of the first plan's CPU at 10,000). Here it is one map
# lookup a subscription.
locals {
  iccid = { for s in data.mobileplan_subscriptions.existing.subscriptions : s.id => s.esim_iccid }
}

output "adopted" {
  description = "Subscription id => eSIM ICCID of every adopted subscription."
  value       = { for id in keys(local.adopt) : id => local.iccid[id] }
}
