#!/usr/bin/env bash
# make demo: build, start the emulator, apply examples/demo through
# dev_overrides (no terraform init, no registry, no network), show the
# outputs, plan again to show "No changes", and stop the emulator on exit.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
begin_script demo

step "Building the provider and the emulator"
build_binaries

step "Starting the emulator on a free loopback port, with a throwaway token and state"
start_emulator -state "$work/emulator-state.db"
echo "emulator at $base_url"

step "Writing a Terraform CLI config that points mobileplan/mobileplan at the fresh build"
use_dev_build
mkdir "$work/demo"
cp examples/demo/*.tf "$work/demo/"

step "$tf apply (examples/demo)"
"$tf" -chdir="$work/demo" apply -auto-approve -input=false

step "$tf plan again: nothing should change"
expect_no_changes "$work/demo" "demo: the second plan was not empty"

step "Done: the subscription exists at the emulator, and Terraform agrees nothing changed"
