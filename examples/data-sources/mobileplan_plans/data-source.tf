# Every plan a subscription can be made from (neither archived nor an addon)
# for eSIMs labelled "europe". Filters are applied by the provider while it
# reads every page of the service's list.
data "mobileplan_plans" "europe" {
  label        = "europe"
  subscribable = true
}

# The first 5 plans of one coverage profile; paging stops once 5 are found.
data "mobileplan_plans" "global_sample" {
  coverage_profile_id = "cov-global"
  max_items           = 5
}

output "europe_plan_ids" {
  value = data.mobileplan_plans.europe.ids
}

output "europe_plans" {
  description = "Plan id => name and total validity (period_days x period_iterations)."
  value = {
    for p in data.mobileplan_plans.europe.plans :
    p.id => "${p.name}, ${p.period_days * p.period_iterations} days in total"
  }
}
