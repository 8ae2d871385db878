# Real applies against the emulator: MOBILEPLAN_BASE_URL and
# MOBILEPLAN_API_TOKEN must name one (make test starts one). NEVER point
# them at the real service: a test's clean-up destroys what it created, and
# destroying a subscription only forgets it; it keeps running, and costing.
#
# An earlier run's outputs reach an assertion as variables (var.existing):
# OpenTofu reads run.NAME in a variables block, not in an assertion.

# Four subscriptions exist before the import.
# Every subscription the tests make is adopted: a cutoff far ahead.
variables {
  adopt_created_before = "2100-01-01T00:00:00Z"
}

run "existing" {
  command = apply

  module {
    source = "./tests/existing"
  }

  variables {
    how_many = 4
  }
}

# The first is used, and the emulator's clock moves past its expiry.
run "first_expires" {
  command = apply

  module {
    source = "../emulator-control"
  }

  variables {
    calls = [
      { method = "POST", path = "/_emulator/subscriptions/${run.existing.ids[0]}/activate" },
      { method = "POST", path = "/_emulator/clock/advance", body = { seconds = run.existing.seconds_to_expire_first } },
    ]
  }
}

# The second belongs to another configuration.
run "import_adopts_what_exists" {
  command = apply

  variables {
    managed_elsewhere = [run.existing.ids[1]]
    existing          = run.existing
  }

  assert {
    condition     = toset(keys(output.adopted)) == toset(slice(var.existing.ids, 2, 4))
    error_message = "Want the two subscriptions neither expired nor managed elsewhere adopted, got ${jsonencode(keys(output.adopted))} of ${jsonencode(var.existing.ids)}."
  }
  assert {
    condition     = alltrue([for id, iccid in output.adopted : iccid == var.existing.iccids[id]])
    error_message = "An adopted subscription should keep its eSIM: ${jsonencode(output.adopted)}"
  }
  assert {
    condition     = alltrue([for id, s in mobileplan_subscription.adopted : s.plan_id == var.existing.plan_ids[id] && s.state == "ready"])
    error_message = "An adopted subscription should keep its plan and state."
  }
}

# A second plan finds nothing more to import or change: the adopted
# subscriptions are in state, and the others still filtered out.
run "plan_again" {
  command = plan

  variables {
    managed_elsewhere = [run.existing.ids[1]]
  }

  assert {
    condition     = length(mobileplan_subscription.adopted) == 2
    error_message = "The second plan should keep the two adopted subscriptions."
  }
}
