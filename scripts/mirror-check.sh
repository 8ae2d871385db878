#!/usr/bin/env bash
# The other local path: a filesystem mirror that `terraform init -plugin-dir`
# installs from, so a normal required_providers block with a version and a
# lock file works offline. Builds, mirrors, inits, plans against an emulator.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
begin_script mirror

version=$(changelog_version)
platform="$(go env GOOS)_$(go env GOARCH)"
host=$(registry_host)
mirror="$work/mirror/$host/mobileplan/mobileplan/$version/$platform"

step "Building into a filesystem mirror at $work/mirror"
build_binaries
mkdir -p "$mirror"
cp "$work/bin/terraform-provider-mobileplan" "$mirror/terraform-provider-mobileplan_v$version"
start_emulator

mkdir "$work/tf"
cat >"$work/tf/main.tf" <<TF
terraform {
  required_providers {
    mobileplan = {
      source  = "mobileplan/mobileplan"
      version = "$version"
    }
  }
}
provider "mobileplan" {}
data "mobileplan_plans" "all" {}
output "plan_count" { value = length(data.mobileplan_plans.all.ids) }
TF
: >"$work/empty.tfrc"
export TF_CLI_CONFIG_FILE="$work/empty.tfrc" TF_IN_AUTOMATION=1
export MOBILEPLAN_BASE_URL="$base_url" MOBILEPLAN_API_TOKEN="$token"

step "terraform init -plugin-dir (offline)"
"$tf" -chdir="$work/tf" init -input=false -plugin-dir="$work/mirror"
grep -q "provider \"$host/mobileplan/mobileplan\"" "$work/tf/.terraform.lock.hcl" \
  || { echo "mirror-check: init wrote no lock entry for the provider" >&2; exit 1; }

step "terraform apply through the mirrored provider"
"$tf" -chdir="$work/tf" apply -auto-approve -input=false
count=$("$tf" -chdir="$work/tf" output -raw plan_count)
[ "$count" -gt 0 ] || { echo "mirror-check: no plans read" >&2; exit 1; }
echo "mirror-check: ok ($count plans read through the mirrored provider)"
