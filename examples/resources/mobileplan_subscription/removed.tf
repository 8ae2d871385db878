# Stop managing a subscription on purpose: delete its resource block and
# write this instead. The next apply removes it from state without asking
# the provider to destroy it; it keeps running at the service. Tested with
# Terraform 1.11.4 and OpenTofu 1.12.6.
removed {
  from = mobileplan_subscription.field_tablet

  lifecycle {
    destroy = false
  }
}
