# Fleet health: checks that run on every `terraform plan` and `apply` and
# warn, without failing the run, when
#
#   * a subscription has expired or expires within var.expiry_warning_days
#     (and how to have such subscriptions renewed instead, see below),
#   * an active subscription has less than var.min_data_left_percent of its
#     purchased data left,
#   * a label of the eSIM inventory has fewer than var.min_free_esims free
#     eSIMs (var.min_free_esims_per_label sets other thresholds per label).
#
# Each warning names the subscriptions or labels concerned. The checks only
# read: they work in a configuration of their own or copied beside the
# resources of an existing one, and need nothing but
#
#   export MOBILEPLAN_BASE_URL=...  MOBILEPLAN_API_TOKEN=...
#   terraform plan
#
# Usage and expiry are facts of the service, not of the configuration, so
# they are read from data sources here rather than reported as drift of the
# mobileplan_subscription resource.

terraform {
  # The oldest Terraform a test has run with this provider.
  required_version = ">= 1.11"
  required_providers {
    mobileplan = {
      source = "mobileplan/mobileplan"
    }
  }
}

provider "mobileplan" {}

# Every subscription of the account, newest first.
data "mobileplan_subscriptions" "all" {}

# The whole inventory, not only the free eSIMs: a label whose eSIMs are all
# taken must still be seen, with 0 free.
data "mobileplan_esims" "inventory" {}

locals {
  # Only the attributes the checks read: a value built from a deprecated
  # attribute (plan_details.name) would draw a warning of its own.
  subscriptions = [
    for s in data.mobileplan_subscriptions.all.subscriptions : {
      id                  = s.id
      state               = s.state
      expire_at           = s.expire_at
      remaining_allowance = s.remaining_allowance
      purchased_allowance = s.purchased_allowance
    }
  ]

  # expire_at is in Unix seconds, and null until a subscription is first
  # used (a ready subscription cannot expire yet). timeadd from the epoch
  # turns it into a timestamp that timecmp compares with this plan's time.
  horizon = timeadd(plantimestamp(), "${var.expiry_warning_days * 24}h")
  expire_times = {
    for s in local.subscriptions : s.id => timeadd("1970-01-01T00:00:00Z", "${s.expire_at}s")
    if s.state == "active" && s.expire_at != null
  }
  # Subscription id => what is wrong with it.
  expiring = merge(
    { for s in local.subscriptions : s.id => "expired" if s.state == "expired" },
    { for id, at in local.expire_times : id => "expires ${at}" if timecmp(at, local.horizon) < 0 },
  )

  low_on_data = {
    for s in local.subscriptions : s.id => "${floor(s.remaining_allowance.data_bytes * 100 / s.purchased_allowance.data_bytes)}% of ${floor(s.purchased_allowance.data_bytes / 1000000)} MB left"
    if s.state == "active" && (
      # Plans without a data allowance report null; they are never low.
      try(s.remaining_allowance.data_bytes * 100 < s.purchased_allowance.data_bytes * var.min_data_left_percent, false)
    )
  }

  # Label => free eSIMs. eSIMs without a label are left out: a plan without
  # a label can take any free eSIM, so they are no label's reserve.
  labels = distinct([for e in data.mobileplan_esims.inventory.esims : e.label if e.label != null])
  free_esims = {
    for l in local.labels : l => length([for e in data.mobileplan_esims.inventory.esims : e if e.label == l && e.subscription_id == null])
  }
  short_labels = {
    for l, free in local.free_esims : l => "${free} free, want ${lookup(var.min_free_esims_per_label, l, var.min_free_esims)}"
    if free < lookup(var.min_free_esims_per_label, l, var.min_free_esims)
  }
}

# The check below only warns. To have the subscriptions of this
# configuration renewed instead, before they expire, by the same scheduled
# plan and apply, give their resources early_renewal_hours. A subscription
# inside that window (or expired) is replaced by a new one on a new eSIM,
# which the device must be given; the old one stays at the service. With
# destroy = false (OpenTofu 1.12 and later; Terraform 1.16 and later,
# untested here) the plan shows the old one as forgotten, which is what
# happens at this service:
#
#   resource "mobileplan_subscription" "phone" {
#     plan_id             = "plan_001"
#     early_renewal_hours = var.expiry_warning_days * 24
#
#     lifecycle {
#       destroy = false
#     }
#   }
#
# The new eSIM is mobileplan_subscription.phone.esim_iccid after the apply.
# To list what expires this week without reading every subscription into
# HCL, filter at the provider instead:
#
#   data "mobileplan_subscriptions" "this_week" {
#     expires_before = timeadd(plantimestamp(), "168h")
#   }
check "subscriptions_expiring" {
  assert {
    condition     = length(local.expiring) == 0
    error_message = "Subscriptions expired or expiring within ${var.expiry_warning_days} days: ${join(", ", [for id, why in local.expiring : "${id} (${why})"])}. Set early_renewal_hours on a subscription's resource to have it renewed."
  }
}

check "subscriptions_low_on_data" {
  assert {
    condition     = length(local.low_on_data) == 0
    error_message = "Active subscriptions with less than ${var.min_data_left_percent}% of their data left: ${join(", ", [for id, left in local.low_on_data : "${id} (${left})"])}."
  }
}

check "free_esims_per_label" {
  assert {
    condition     = length(local.short_labels) == 0
    error_message = "Labels with too few free eSIMs: ${join(", ", [for l, why in local.short_labels : "${l} (${why})"])}."
  }
}

output "fleet" {
  description = "Subscriptions per state and free eSIMs per label, as read by this plan."
  value = {
    subscriptions = { for st in ["ready", "active", "expired"] : st => length([for s in local.subscriptions : s if s.state == st]) }
    free_esims    = local.free_esims
  }
}
