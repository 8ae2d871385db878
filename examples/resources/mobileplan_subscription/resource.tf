# Subscribe to an existing plan: the first plan of the account that can be
# subscribed to (neither archived nor an addon) with the "europe" label.
data "mobileplan_plans" "europe" {
  label        = "europe"
  subscribable = true
}

resource "mobileplan_subscription" "traveller" {
  plan_id = data.mobileplan_plans.europe.ids[0]
}

# Or describe the plan inline: the service makes a custom plan from it, and
# plan_id is set to that plan's id after apply.
resource "mobileplan_subscription" "field_team" {
  plan = {
    coverage_id = "cov-eu"
    data_mbs    = 5120
    period_days = 30
  }
}

output "traveller_esim" {
  description = "ICCID of the eSIM the service assigned."
  value       = mobileplan_subscription.traveller.esim_iccid
}

output "field_team_plan_id" {
  description = "Id of the custom plan the service made from the inline plan."
  value       = mobileplan_subscription.field_team.plan_id
}
