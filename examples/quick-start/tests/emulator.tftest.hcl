# Real applies against the emulator: MOBILEPLAN_BASE_URL and
# MOBILEPLAN_API_TOKEN must name one (make test starts one). NEVER point
# them at the real service: a test's clean-up destroys what it created, and
# destroying a subscription only forgets it; it keeps running, and costing.
#
# An earlier run's outputs reach an assertion as variables (var.free_before):
# OpenTofu reads run.NAME in a variables block, not in an assertion.

run "free_esims_before" {
  command = apply

  module {
    source = "./tests/inventory"
  }
}

run "subscribe" {
  command = apply

  variables {
    free_before = run.free_esims_before.free_iccids
  }

  assert {
    condition     = length(distinct(values(output.iccids))) == 3
    error_message = "Three phones should get three distinct eSIMs: ${jsonencode(output.iccids)}"
  }
  assert {
    condition     = alltrue([for iccid in values(output.iccids) : contains(var.free_before, iccid)])
    error_message = "Every eSIM should come from the free European inventory: ${jsonencode(output.iccids)}"
  }
  assert {
    condition     = alltrue([for s in mobileplan_subscription.phone : s.state == "ready" && startswith(s.id, "sub_")])
    error_message = "Every subscription should exist at the service, ready for first use."
  }
}

run "free_esims_after" {
  command = apply

  module {
    source = "./tests/inventory"
  }

  variables {
    free_before = run.free_esims_before.free_iccids
    assigned    = values(run.subscribe.iccids)
  }

  assert {
    condition     = length(output.free_iccids) == length(var.free_before) - 3
    error_message = "The free European inventory should shrink by three: ${length(var.free_before)} before, ${length(output.free_iccids)} after."
  }
  assert {
    condition     = length(setintersection(output.free_iccids, var.assigned)) == 0
    error_message = "The eSIMs assigned should no longer be free."
  }
}
