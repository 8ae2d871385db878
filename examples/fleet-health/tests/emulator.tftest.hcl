# Real applies against the emulator: MOBILEPLAN_BASE_URL and
# MOBILEPLAN_API_TOKEN must name one (make test starts one). NEVER point
# them at the real service: a test's clean-up destroys what it created, and
# destroying a subscription only forgets it; it keeps running, and costing.
#
# An earlier run's outputs reach an assertion as variables (var.fleet):
# OpenTofu reads run.NAME in a variables block, not in an assertion.

# Three subscriptions, made as the bulk import's test makes them.
run "fleet" {
  command = apply

  module {
    source = "../bulk-import/tests/existing"
  }

  variables {
    how_many = 3
  }
}

# The first is used until it expires (on the emulator's clock, not the
# machine's); the second is used and nearly out of data; the third is not
# used yet.
run "fleet_in_use" {
  command = apply

  module {
    source = "../emulator-control"
  }

  variables {
    calls = [
      { method = "POST", path = "/_emulator/subscriptions/${run.fleet.ids[0]}/activate" },
      { method = "POST", path = "/_emulator/clock/advance", body = { seconds = run.fleet.seconds_to_expire_first } },
      { method = "POST", path = "/_emulator/subscriptions/${run.fleet.ids[1]}/activate" },
      { method = "POST", path = "/_emulator/subscriptions/${run.fleet.ids[1]}/usage", body = { dataBytes = floor(run.fleet.purchased_data_bytes[run.fleet.ids[1]] * 0.97) } },
    ]
  }
}

run "checks_name_what_needs_attention" {
  command = apply

  variables {
    fleet = run.fleet
  }

  expect_failures = [
    check.subscriptions_expiring,
    check.subscriptions_low_on_data,
  ]

  assert {
    condition     = output.fleet.subscriptions == { ready = 1, active = 1, expired = 1 }
    error_message = "Want one subscription in each state, got ${jsonencode(output.fleet.subscriptions)}."
  }
  assert {
    condition     = local.expiring == { (var.fleet.ids[0]) = "expired" }
    error_message = "Want the first subscription reported as expired, got ${jsonencode(local.expiring)}."
  }
  assert {
    condition     = keys(local.low_on_data) == [var.fleet.ids[1]] && startswith(local.low_on_data[var.fleet.ids[1]], "3% of ")
    error_message = "Want the second subscription reported with 3% of its data left, got ${jsonencode(local.low_on_data)}."
  }
  assert {
    condition     = alltrue([for e in data.mobileplan_esims.inventory.esims : e.subscription_id != null if contains(values(var.fleet.iccids), e.iccid)])
    error_message = "The fleet's eSIMs should read as taken in the inventory."
  }
}
