# Offline: the provider is mocked with its kit (mocks/ in the provider's
# repository), so nothing is read or created anywhere. Without the kit, a
# bare mock_provider reads an empty list of plan ids, and
# data.mobileplan_plans.europe.ids[0] fails: "Invalid index".

mock_provider "mobileplan" {
  source = "../../mocks"
}

run "one_subscription_per_phone" {
  command = plan

  assert {
    condition     = toset(keys(mobileplan_subscription.phone)) == toset(["alice", "bob", "carol"])
    error_message = "Want one subscription per phone."
  }
  assert {
    condition     = alltrue([for s in mobileplan_subscription.phone : s.plan_id == data.mobileplan_plans.europe.ids[0]])
    error_message = "Every phone should be on the first subscribable European plan."
  }
}

run "each_phone_gets_an_esim" {
  command = apply

  assert {
    condition     = toset(keys(output.iccids)) == toset(["alice", "bob", "carol"])
    error_message = "The output should name every phone."
  }
  assert {
    condition     = alltrue([for iccid in values(output.iccids) : can(regex("^89[0-9]{17,18}$", iccid))])
    error_message = "Every phone should get an ICCID: ${jsonencode(output.iccids)}"
  }
  assert {
    condition     = alltrue([for s in mobileplan_subscription.phone : s.state == "ready" && s.expire_at == null])
    error_message = "A new subscription is ready, and cannot expire before its first use."
  }
}

# One value set for one case: the first plan the service lists is taken.
run "the_first_plan_listed" {
  command = plan

  override_data {
    target = data.mobileplan_plans.europe
    values = {
      ids = ["plan_014", "plan_003"]
    }
  }

  assert {
    condition     = alltrue([for s in mobileplan_subscription.phone : s.plan_id == "plan_014"])
    error_message = "Every phone should be on plan_014, the first plan listed."
  }
}
