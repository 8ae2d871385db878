# Mock values for the mobileplan provider, for `terraform test` and
# `tofu test`. Without them, the mocked provider fills computed attributes
# blindly: every list is empty (data.mobileplan_plans.x.ids[0] fails), every
# number is 0 (an expire_at of 1970) and every string is random (not an
# ICCID). The guide "Testing modules that use this provider" shows its use.
#
# Terraform loads this directory (a path relative to the module's
# directory):
#
#   mock_provider "mobileplan" {
#     source = "path/to/mocks"
#   }
#
# OpenTofu takes no source there: paste opentofu/mock_provider.hcl, these
# blocks in the form OpenTofu reads, into the test file instead. In both,
# override_data and override_resource in a run set single values, such as
# an expire_at for an expiry case.
#
# Terraform (1.11.4, as tested) cannot mock a list of objects: it reads
# plans, esims and subscriptions below as empty lists, whatever they hold
# (hashicorp/terraform#38369). OpenTofu reads each as a list of the one
# object given.
#
# Attributes the configuration may set (the resource's plan_id) have no
# default: OpenTofu refuses one where the configuration sets it.
#
# The values agree with each other as the service's do: the plans are
# subscribable (neither addon nor archived); the eSIMs listed are free, and
# the subscriptions are on other eSIMs; the resource is a subscription just
# created, ready and not yet used (no activation, no expiry); the data
# sources read an active subscription, whose expiry is 30 days after its
# first use, and a ready one. Subscription timestamps are
# in 2099, so an active subscription expires in the future whenever a test
# runs. ICCIDs carry a valid Luhn check digit. Allowances are in bytes
# (1 MB = 1,000,000 bytes); null means the plan has no allowance of that
# kind.

mock_resource "mobileplan_subscription" {
  defaults = {
    id                = "sub_00000000000000a3"
    state             = "ready"
    esim_iccid        = "8988247000000000043"
    created_at        = 4070908800
    activated_at      = null
    expire_at         = null
    ready_for_renewal = false
    metadata          = {}
    plan_details = {
      name                 = "europe 5 GB / 30 days"
      label                = "europe"
      coverage_profile_id  = "cov-eu"
      data_megabytes       = 5120
      period_days          = 30
      period_iterations    = 1
      throttled_speed_kbps = 0
    }
    purchased_allowance = {
      data_bytes    = 5120000000
      voice_seconds = null
      sms_messages  = null
    }
  }
}

mock_data "mobileplan_plan" {
  defaults = {
    name                 = "europe 5 GB / 30 days"
    label                = "europe"
    coverage_profile_id  = "cov-eu"
    data_megabytes       = 5120
    period_days          = 30
    period_iterations    = 1
    throttled_speed_kbps = 0
    addon                = false
    archived             = false
    created_at           = 1735689600
  }
}

mock_data "mobileplan_plans" {
  defaults = {
    ids = ["plan_001"]
    plans = {
      id                   = "plan_001"
      name                 = "europe 5 GB / 30 days"
      label                = "europe"
      coverage_profile_id  = "cov-eu"
      data_megabytes       = 5120
      period_days          = 30
      period_iterations    = 1
      throttled_speed_kbps = 0
      addon                = false
      archived             = false
      created_at           = 1735689600
    }
  }
}

mock_data "mobileplan_esim" {
  defaults = {
    label           = "europe"
    smdp_state      = "AVAILABLE"
    country_iso2    = null
    subscription_id = null
    created_at      = 1735689600
  }
}

mock_data "mobileplan_esims" {
  defaults = {
    iccids = ["8988247000000000019"]
    esims = {
      iccid           = "8988247000000000019"
      label           = "europe"
      smdp_state      = "AVAILABLE"
      country_iso2    = null
      subscription_id = null
      created_at      = 1735689600
    }
  }
}

mock_data "mobileplan_subscription" {
  defaults = {
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
    purchased_allowance = {
      data_bytes    = 5120000000
      voice_seconds = null
      sms_messages  = null
    }
    remaining_allowance = {
      data_bytes    = 3840000000
      voice_seconds = null
      sms_messages  = null
    }
  }
}

mock_data "mobileplan_subscriptions" {
  defaults = {
    ids = ["sub_00000000000000a1"]
    subscriptions = {
      id           = "sub_00000000000000a1"
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
      purchased_allowance = {
        data_bytes    = 5120000000
        voice_seconds = null
        sms_messages  = null
      }
      remaining_allowance = {
        data_bytes    = 3840000000
        voice_seconds = null
        sms_messages  = null
      }
    }
  }
}
