terraform {
  required_providers {
    mobileplan = {
      source = "mobileplan/mobileplan"
    }
  }
}

# Keep the address and, above all, the token out of the configuration:
#
#   export MOBILEPLAN_BASE_URL="https://api.example.com"
#   export MOBILEPLAN_API_TOKEN="..."
#
# or, against the local emulator (go run ./cmd/mobileplan-emulator -token dev-token):
#
#   export MOBILEPLAN_BASE_URL="http://127.0.0.1:8089"
#   export MOBILEPLAN_API_TOKEN="dev-token"
provider "mobileplan" {
  # base_url and api_token come from the environment variables above.

  max_retries     = 6     # retries of reads on 5xx and network errors (default 4); a 429 is waited out, not counted
  request_timeout = "45s" # time limit of each request attempt (default 30s)

  # At or under your share of the account's quota, no request is refused
  # (default: none; the provider finds the limit by itself).
  max_requests_per_second = 10

  # What terraform plan does when a planned create would fail at apply
  # (archived, addon or missing plan; too few free eSIMs): "error" (default),
  # "warn" or "off". MOBILEPLAN_PREFLIGHT sets it from the environment.
  preflight = "error"

  # Refresh subscriptions from the service's list, 25 a page, instead of one
  # request each (default true). See "Refresh by Pages".
  paged_refresh = true
}
