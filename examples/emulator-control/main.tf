# A module for tests that run against the emulator (never the real
# service): it makes the emulator's control calls, which drive what the
# service does on its own, such as a subscription's first use or the
# passing of time. Use it from a test's run block:
#
#   run "expire" {
#     module {
#       source = "../emulator-control"
#     }
#     variables {
#       calls = [
#         { method = "POST", path = "/_emulator/subscriptions/${run.setup.id}/activate" },
#         { method = "POST", path = "/_emulator/clock/advance", body = { seconds = 86400 } },
#       ]
#     }
#   }
#
# The calls go to MOBILEPLAN_BASE_URL, in order, once per apply, through
# scripts/lib.sh of the provider's repository (bash, no HTTP client needed).
# The control operations answer only on loopback.

terraform {
  required_version = ">= 1.11"
}

variable "calls" {
  description = "Control calls, in order: method, path under /_emulator/, and an optional JSON body (an object)."
  type = list(object({
    method = string
    path   = string
    body   = optional(any, {})
  }))
}

resource "terraform_data" "calls" {
  input = var.calls

  provisioner "local-exec" {
    interpreter = ["bash", "-c"]
    command     = <<-SH
      set -euo pipefail
      . "$LIB_SH"
      base_url=$MOBILEPLAN_BASE_URL
      while IFS=$'\t' read -r method path body; do
        emulator_control "$method" "$path" "$body"
      done <<<"$CALLS"
    SH
    environment = {
      LIB_SH = abspath("${path.module}/../../scripts/lib.sh")
      CALLS  = join("\n", [for c in var.calls : "${c.method}\t${c.path}\t${jsonencode(c.body)}"])
    }
  }
}
