import {
  to = mobileplan_subscription.example
  id = "sub_0123456789abcdef"
}

resource "mobileplan_subscription" "example" {
  plan_id = "plan_001"
}
