# Terraform 1.12 and later, and OpenTofu 1.12 and later: import by identity.
import {
  to = mobileplan_subscription.example
  identity = {
    id = "sub_0123456789abcdef"
  }
}

resource "mobileplan_subscription" "example" {
  plan_id = "plan_001"
}
