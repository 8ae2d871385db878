# Offline, on the provider's mock kit (mocks/ in its repository). Adoption
# itself is tested against the emulator (emulator.tftest.hcl): Terraform
# (1.11.4, as tested) cannot mock a list of objects, so it reads the kit's
# subscriptions as an empty list (hashicorp/terraform#38369), and OpenTofu
# (1.12.6, as tested) stops with a panic when a mocked provider is asked to
# import ("Importing is not supported in testing context"). What runs
# offline is what the module leaves out: here the kit's one subscription,
# which OpenTofu reads, managed elsewhere; in filters.tofutest.hcl an
# expired one.

mock_provider "mobileplan" {
  source = "../../mocks"
}

# Every subscription the tests make is adopted: a cutoff far ahead.
variables {
  adopt_created_before = "2100-01-01T00:00:00Z"
}

run "leaves_out_what_is_managed_elsewhere" {
  command = plan

  variables {
    managed_elsewhere = ["sub_00000000000000a1"] # the kit's subscription
  }

  assert {
    condition     = length(mobileplan_subscription.adopted) == 0 && length(output.adopted) == 0
    error_message = "A subscription another configuration manages should not be adopted."
  }
}

run "apply_adopts_nothing_managed_elsewhere" {
  command = apply

  variables {
    managed_elsewhere = ["sub_00000000000000a1"]
  }

  assert {
    condition     = output.adopted == {}
    error_message = "Nothing should be adopted: ${jsonencode(output.adopted)}"
  }
}
