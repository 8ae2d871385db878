variable "expiry_warning_days" {
  description = "Warn about subscriptions that have expired or expire within this many days."
  type        = number
  default     = 14
}

variable "min_data_left_percent" {
  description = "Warn about active subscriptions with less than this percentage of their purchased data left."
  type        = number
  default     = 10
}

variable "min_free_esims" {
  description = "Warn when fewer eSIMs than this are free for a label of the inventory."
  type        = number
  default     = 5
}

variable "min_free_esims_per_label" {
  description = "Thresholds for single labels, in place of min_free_esims, such as { europe = 50 }."
  type        = map(number)
  default     = {}
}
