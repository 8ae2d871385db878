data "mobileplan_esim" "sim" {
  iccid = "8988247000000000019"
}

output "esim_status" {
  value = {
    smdp_state      = data.mobileplan_esim.sim.smdp_state
    label           = data.mobileplan_esim.sim.label
    subscription_id = data.mobileplan_esim.sim.subscription_id # null while free
    country_iso2    = data.mobileplan_esim.sim.country_iso2    # null until first seen
  }
}
