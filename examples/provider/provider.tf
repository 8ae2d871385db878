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
provider "mobileplan" {
  # base_url and api_token come from the environment variables above.

  max_retries     = 6     # retries of reads on 5xx and network errors (default 4)
  request_timeout = "45s" # time limit of each request attempt (default 30s)

  # Your share of the account's quota (default: found by the provider).
  max_requests_per_second = 10

  # A planned create that would fail at apply: "error" (default), "warn", "off".
  preflight = "error"

  # Refresh subscriptions 25 a page from the service's list (default true).
  paged_refresh = true
}
