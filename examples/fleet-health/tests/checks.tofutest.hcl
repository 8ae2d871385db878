# OpenTofu only: Terraform (1.11.4, as tested) cannot mock a list of
# objects (hashicorp/terraform#38369). One fleet, with a subscription for
# each warning: sub_fresh is active with 90% of its data left, sub_thirsty
# has 2% left, sub_gone has expired, sub_ready is not used yet; europe has 3
# free eSIMs, asia 2. Expiry times are in 2099, so no run depends on the
# day it runs: a subscription is brought within the warning by a long
# expiry_warning_days, not by the machine's clock.

mock_provider "mobileplan" {
  override_data {
    target = data.mobileplan_subscriptions.all
    values = {
      ids = ["sub_fresh", "sub_thirsty", "sub_ready", "sub_gone"]
      subscriptions = [
        {
          id           = "sub_fresh"
          plan_id      = "plan_001"
          state        = "active"
          esim_iccid   = "8988247000000000050"
          created_at   = 4070908800
          activated_at = 4070995200
          expire_at    = 4073587200
          metadata     = {}
          plan_details = {
            name                 = "europe 5 GB / 30 days"
            label                = "europe"
            coverage_profile_id  = "cov-eu"
            data_megabytes       = 5120
            period_days          = 30
            period_iterations    = 1
            throttled_speed_kbps = 0
          }
          purchased_allowance = { data_bytes = 5120000000, voice_seconds = null, sms_messages = null }
          remaining_allowance = { data_bytes = 4608000000, voice_seconds = null, sms_messages = null }
        },
        {
          id           = "sub_thirsty"
          plan_id      = "plan_001"
          state        = "active"
          esim_iccid   = "8988247000000000068"
          created_at   = 4070908800
          activated_at = 4070995200
          expire_at    = 4073587200
          metadata     = {}
          plan_details = {
            name                 = "europe 5 GB / 30 days"
            label                = "europe"
            coverage_profile_id  = "cov-eu"
            data_megabytes       = 5120
            period_days          = 30
            period_iterations    = 1
            throttled_speed_kbps = 0
          }
          purchased_allowance = { data_bytes = 5120000000, voice_seconds = null, sms_messages = null }
          remaining_allowance = { data_bytes = 102400000, voice_seconds = null, sms_messages = null }
        },
        {
          id           = "sub_ready"
          plan_id      = "plan_001"
          state        = "ready"
          esim_iccid   = "8988247000000000076"
          created_at   = 4070908800
          activated_at = null
          expire_at    = null
          metadata     = {}
          plan_details = {
            name                 = "europe 5 GB / 30 days"
            label                = "europe"
            coverage_profile_id  = "cov-eu"
            data_megabytes       = 5120
            period_days          = 30
            period_iterations    = 1
            throttled_speed_kbps = 0
          }
          purchased_allowance = { data_bytes = 5120000000, voice_seconds = null, sms_messages = null }
          remaining_allowance = { data_bytes = 5120000000, voice_seconds = null, sms_messages = null }
        },
        {
          id           = "sub_gone"
          plan_id      = "plan_001"
          state        = "expired"
          esim_iccid   = "8988247000000000043"
          created_at   = 4070908800
          activated_at = 4070995200
          expire_at    = 4073587200
          metadata     = {}
          plan_details = {
            name                 = "europe 5 GB / 30 days"
            label                = "europe"
            coverage_profile_id  = "cov-eu"
            data_megabytes       = 5120
            period_days          = 30
            period_iterations    = 1
            throttled_speed_kbps = 0
          }
          purchased_allowance = { data_bytes = 5120000000, voice_seconds = null, sms_messages = null }
          remaining_allowance = { data_bytes = 0, voice_seconds = null, sms_messages = null }
        },
      ]
    }
  }

  override_data {
    target = data.mobileplan_esims.inventory
    values = {
      iccids = ["8988247000000000019", "8988247000000000027", "8988247000000000035", "8988247000000000050", "8988247000000000084", "8988247000000000092", "8988247000000000100"]
      esims = [
        { iccid = "8988247000000000019", label = "europe", smdp_state = "AVAILABLE", country_iso2 = null, subscription_id = null, created_at = 1735689600 },
        { iccid = "8988247000000000027", label = "europe", smdp_state = "AVAILABLE", country_iso2 = null, subscription_id = null, created_at = 1735689600 },
        { iccid = "8988247000000000035", label = "europe", smdp_state = "AVAILABLE", country_iso2 = null, subscription_id = null, created_at = 1735689600 },
        { iccid = "8988247000000000050", label = "europe", smdp_state = "AVAILABLE", country_iso2 = null, subscription_id = "sub_fresh", created_at = 1735689600 },
        { iccid = "8988247000000000084", label = "asia", smdp_state = "AVAILABLE", country_iso2 = null, subscription_id = null, created_at = 1735689600 },
        { iccid = "8988247000000000092", label = "asia", smdp_state = "AVAILABLE", country_iso2 = null, subscription_id = null, created_at = 1735689600 },
        { iccid = "8988247000000000100", label = null, smdp_state = "AVAILABLE", country_iso2 = null, subscription_id = null, created_at = 1735689600 },
      ]
    }
  }
}

run "defaults_name_every_problem" {
  command = plan

  expect_failures = [
    check.subscriptions_expiring,
    check.subscriptions_low_on_data,
    check.free_esims_per_label,
  ]

  assert {
    condition     = output.fleet == { subscriptions = { ready = 1, active = 2, expired = 1 }, free_esims = { europe = 3, asia = 2 } }
    error_message = "Unexpected fleet: ${jsonencode(output.fleet)}"
  }
  assert {
    condition     = local.expiring == { sub_gone = "expired" }
    error_message = "Only sub_gone should be reported, as expired: ${jsonencode(local.expiring)}"
  }
  assert {
    condition     = keys(local.low_on_data) == ["sub_thirsty"] && startswith(local.low_on_data.sub_thirsty, "2% of 5120 MB")
    error_message = "Only sub_thirsty should be low on data: ${jsonencode(local.low_on_data)}"
  }
  assert {
    condition     = local.short_labels == { europe = "3 free, want 5", asia = "2 free, want 5" }
    error_message = "Both labels should be short of eSIMs: ${jsonencode(local.short_labels)}"
  }
}

run "expiring_within_the_warning" {
  command = plan

  variables {
    expiry_warning_days   = 36500
    min_data_left_percent = 1
    min_free_esims        = 2
  }

  expect_failures = [
    check.subscriptions_expiring,
  ]

  assert {
    condition     = toset(keys(local.expiring)) == toset(["sub_fresh", "sub_thirsty", "sub_gone"]) && startswith(local.expiring.sub_fresh, "expires 2099-02-01T00:00:00Z")
    error_message = "Active subscriptions expiring within 100 years should be reported: ${jsonencode(local.expiring)}"
  }
  assert {
    condition     = length(local.short_labels) == 0 && length(local.low_on_data) == 0
    error_message = "With 2 free eSIMs and 1% of data wanted, no label is short and no subscription low: ${jsonencode([local.short_labels, local.low_on_data])}"
  }
}

run "thresholds_per_label" {
  command = plan

  variables {
    min_free_esims           = 1
    min_free_esims_per_label = { asia = 3 }
  }

  expect_failures = [
    check.subscriptions_expiring,
    check.subscriptions_low_on_data,
    check.free_esims_per_label,
  ]

  assert {
    condition     = local.short_labels == { asia = "2 free, want 3" }
    error_message = "Only asia should be short, by its own threshold: ${jsonencode(local.short_labels)}"
  }
}
