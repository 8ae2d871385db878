# Renewed three days before it expires, by any plan and apply run in that
# window (a scheduled CI run, for example). The renewal creates a new
# subscription on a new eSIM: give the device the new ICCID (the output
# below). The old subscription stays at the service.
resource "mobileplan_subscription" "field_tablet" {
  plan_id             = "plan_001"
  early_renewal_hours = 72

  # OpenTofu 1.12 and later (tested on 1.12.6), Terraform 1.16 and later
  # (its minimum, not tested here): plan a renewal, and a destroy, as
  # "forget", which is what happens at this service. Leave this block out
  # on older versions, which refuse it.
  lifecycle {
    destroy = false
  }
}

output "field_tablet_esim" {
  description = "The eSIM to give the device; it changes when the subscription is renewed."
  value       = mobileplan_subscription.field_tablet.esim_iccid
}
