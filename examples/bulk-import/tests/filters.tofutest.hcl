# OpenTofu only: Terraform (1.11.4, as tested) cannot mock a list of
# objects (hashicorp/terraform#38369). OpenTofu (1.12.6, as tested) can, but
# stops with a panic when a mocked provider is asked to import, so offline
# this tests what is left out; adoption is tested against the emulator.
# The listing: one subscription that has expired, one another configuration
# manages.

mock_provider "mobileplan" {}

# Every subscription the tests make is adopted: a cutoff far ahead.
variables {
  adopt_created_before = "2100-01-01T00:00:00Z"
}

run "leaves_out_the_expired_and_those_managed_elsewhere" {
  command = plan

  variables {
    managed_elsewhere = ["sub_elsewhere"]
  }

  override_data {
    target = data.mobileplan_subscriptions.existing
    values = {
      ids = ["sub_expired", "sub_elsewhere"]
      subscriptions = [
        {
          id                  = "sub_expired"
          plan_id             = "plan_001"
          state               = "expired"
          esim_iccid          = "8988247000000000019"
          created_at          = 4070908800
          activated_at        = 4070995200
          expire_at           = 4073587200
          metadata            = {}
          plan_details        = { name = "europe 5 GB / 30 days", label = "europe", coverage_profile_id = "cov-eu", data_megabytes = 5120, period_days = 30, period_iterations = 1, throttled_speed_kbps = 0 }
          purchased_allowance = { data_bytes = 5120000000, voice_seconds = null, sms_messages = null }
          remaining_allowance = { data_bytes = 0, voice_seconds = null, sms_messages = null }
        },
        {
          id                  = "sub_elsewhere"
          plan_id             = "plan_001"
          state               = "active"
          esim_iccid          = "8988247000000000027"
          created_at          = 4070908800
          activated_at        = 4070995200
          expire_at           = 4073587200
          metadata            = {}
          plan_details        = { name = "europe 5 GB / 30 days", label = "europe", coverage_profile_id = "cov-eu", data_megabytes = 5120, period_days = 30, period_iterations = 1, throttled_speed_kbps = 0 }
          purchased_allowance = { data_bytes = 5120000000, voice_seconds = null, sms_messages = null }
          remaining_allowance = { data_bytes = 4608000000, voice_seconds = null, sms_messages = null }
        },
      ]
    }
  }


  assert {
    condition     = length(local.adopt) == 0 && length(mobileplan_subscription.adopted) == 0
    error_message = "Neither an expired subscription nor one managed elsewhere should be adopted: ${jsonencode(keys(local.adopt))}"
  }
}

