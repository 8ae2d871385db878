# Usage is read from the data source, by the resource's id: it changes
# whenever the eSIM uses data, so the resource does not hold it.
data "mobileplan_subscription" "traveller" {
  id = mobileplan_subscription.traveller.id
}

output "traveller_data_left_bytes" {
  description = "Data left of the traveller's plan."
  value       = data.mobileplan_subscription.traveller.remaining_allowance.data_bytes
}
