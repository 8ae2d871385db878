#!/usr/bin/env bash
# The path of someone using the provider in their own configuration: with an
# empty home directory and no Terraform CLI configuration at all, `make
# install`, then plain `terraform init` in a new directory with the standard
# required_providers block, apply and plan against an emulator. Any attempt
# to reach the network goes to a dead proxy and fails.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
begin_script install

# Go keeps its module and build caches where it had them: only Terraform's
# side of the home directory starts empty.
export GOPATH GOMODCACHE GOCACHE GOPROXY GOFLAGS
GOPATH=$(go env GOPATH) GOMODCACHE=$(go env GOMODCACHE) GOCACHE=$(go env GOCACHE)
GOPROXY=$(go env GOPROXY) GOFLAGS=$(go env GOFLAGS)
export HOME="$work/home"
mkdir "$HOME"
unset TF_CLI_CONFIG_FILE TERRAFORM_CONFIG TF_PLUGIN_CACHE_DIR

step "make install (HOME=$HOME)"
make --no-print-directory install
version=$(changelog_version)
installed="$HOME/.terraform.d/plugins/registry.terraform.io/mobileplan/mobileplan/$version/$(go env GOOS)_$(go env GOARCH)/terraform-provider-mobileplan_v$version"
[ -x "$installed" ] || { echo "install-check: nothing installed at $installed" >&2; exit 1; }
release_built "$installed"

step "Starting the emulator ten times: each start must find its own, listening address"
build_emulator
for i in $(seq 1 10); do
  start_emulator -quiet
  port=${base_url##*:}
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null \
    || { echo "install-check: start $i gave $base_url, where nothing listens" >&2; exit 1; }
  [ "$i" -eq 10 ] || stop_emulator
done

mkdir "$work/mine"
cat >"$work/mine/main.tf" <<'TF'
terraform {
  required_providers {
    mobileplan = {
      source = "mobileplan/mobileplan"
    }
  }
}

data "mobileplan_plans" "europe" {
  label        = "europe"
  subscribable = true
}

resource "mobileplan_subscription" "phone" {
  plan_id = data.mobileplan_plans.europe.ids[0]
}
TF
export MOBILEPLAN_BASE_URL="$base_url" MOBILEPLAN_API_TOKEN="$token" TF_IN_AUTOMATION=1
# Offline: a registry lookup would go through this proxy, which refuses.
export HTTPS_PROXY=http://127.0.0.1:9 HTTP_PROXY=http://127.0.0.1:9 NO_PROXY=127.0.0.1,localhost

step "terraform init (no CLI configuration, no network)"
"$tf" -chdir="$work/mine" init -input=false
grep -q "provider \"registry.terraform.io/mobileplan/mobileplan\"" "$work/mine/.terraform.lock.hcl" \
  || { echo "install-check: init wrote no lock entry for the provider" >&2; exit 1; }
grep -q "version *= \"$version\"" "$work/mine/.terraform.lock.hcl" \
  || { echo "install-check: init did not select version $version" >&2; exit 1; }

step "terraform apply, then plan: nothing left to change"
"$tf" -chdir="$work/mine" apply -auto-approve -input=false
expect_no_changes "$work/mine" "install-check: the plan after apply was not empty"
echo "install-check: ok (mobileplan $version from $installed)"
