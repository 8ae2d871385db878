# The free European eSIMs of the inventory, read by the emulator-backed test
# before and after the quick start subscribes.

terraform {
  required_providers {
    mobileplan = { source = "mobileplan/mobileplan" }
  }
}

data "mobileplan_esims" "free_europe" {
  label    = "europe"
  assigned = false
}

output "free_iccids" {
  value = data.mobileplan_esims.free_europe.iccids
}
