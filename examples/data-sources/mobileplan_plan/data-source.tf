data "mobileplan_plan" "standard" {
  id = "plan_002"
}

# Refuse to go on with a plan that cannot be subscribed to.
check "standard_plan_is_subscribable" {
  assert {
    condition     = !data.mobileplan_plan.standard.archived && !data.mobileplan_plan.standard.addon
    error_message = "Plan ${data.mobileplan_plan.standard.id} is archived or an addon plan."
  }
}

output "standard_plan" {
  value = {
    name                 = data.mobileplan_plan.standard.name
    data_megabytes       = data.mobileplan_plan.standard.data_megabytes
    period_days          = data.mobileplan_plan.standard.period_days
    period_iterations    = data.mobileplan_plan.standard.period_iterations
    throttled_speed_kbps = data.mobileplan_plan.standard.throttled_speed_kbps
    label                = data.mobileplan_plan.standard.label
    coverage_profile_id  = data.mobileplan_plan.standard.coverage_profile_id
  }
}
