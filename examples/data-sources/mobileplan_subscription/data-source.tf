# A subscription made outside this configuration, read by id.
data "mobileplan_subscription" "ceo_phone" {
  id = "sub_0123456789abcdef"
}

locals {
  ceo_phone = data.mobileplan_subscription.ceo_phone
}

output "ceo_phone" {
  value = {
    state      = local.ceo_phone.state # ready, active or expired
    esim_iccid = local.ceo_phone.esim_iccid
    plan_id    = local.ceo_phone.plan_id
    plan_name  = local.ceo_phone.plan_details.name
    expire_at  = local.ceo_phone.expire_at # null until the eSIM is first used
    data_left_percent = try(
      floor(100 * local.ceo_phone.remaining_allowance.data_bytes / local.ceo_phone.purchased_allowance.data_bytes),
      null,
    )
  }
}
