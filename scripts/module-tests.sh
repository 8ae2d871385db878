#!/usr/bin/env bash
# make test-modules: the examples' own module tests (examples/*/tests), run
# as a user runs them, with `terraform test` and with `tofu test`: offline
# on the provider's mock kit, and with real applies against an emulator
# started here. The provider comes through dev_overrides (no terraform init,
# no registry, no network); `get` only records the tests' local modules.
# Then the check that the kit matters: the quick start's mock test fails
# with a bare mock_provider.
#
# TOFU names the OpenTofu binary (default bin/opentofu/tofu, which make
# builds); TOFU= runs Terraform only.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
begin_script module-tests
tofu=${TOFU-bin/opentofu/tofu}
clis=(terraform)
[ -z "$tofu" ] || clis+=("$(pwd)/$tofu")
need "${clis[@]}"

build_binaries
start_emulator -quiet
use_dev_build

# A copy, so that no .terraform directory is left in the checkout; the tests
# find the kit at ../../mocks, and scripts/lib.sh, as in the repository.
mkdir "$work/repo"
cp -R examples mocks scripts "$work/repo/"

# run_tests CLI DIR [ARG...]: `CLI test` in DIR, each run on an emulator
# back at its starting data set; the output is shown only when it fails.
run_tests() {
  local cli=$1 dir=$2 log="$work/test.log"
  shift 2
  emulator_control POST /_emulator/reset
  if ! { "$cli" -chdir="$dir" get -no-color && "$cli" -chdir="$dir" test -no-color "$@"; } >"$log" 2>&1; then
    cat "$log" >&2
    echo "module tests failed: $(basename "$cli") test in ${dir#"$work/repo/"}" >&2
    return 1
  fi
  rm -rf "$dir/.terraform"
  grep -E '^(Success|Failure)!' "$log" | sed "s|^|$(basename "$cli") ${dir#"$work/repo/"}: |"
}

for cli in "${clis[@]}"; do
  start=$SECONDS
  for dir in "$work"/repo/examples/*/tests; do
    run_tests "$cli" "${dir%/tests}"
  done
  echo "$(basename "$cli") test: every example in $((SECONDS - start)) s"
done

# The kit matters: the quick start's offline test, with the kit taken out
# of its mock_provider, must fail where the kit is missed.
bare="$work/repo/examples/bare-mock"
cp -R "$work/repo/examples/quick-start" "$bare"
rm -f "$bare"/tests/*.tofutest.hcl "$bare"/tests/emulator.tftest.hcl
sed -i '/^ *source *= *".*mocks"$/d' "$bare/tests/mock.tftest.hcl"
grep -q '^mock_provider "mobileplan" {$' "$bare/tests/mock.tftest.hcl"
for cli in "${clis[@]}"; do
  if "$cli" -chdir="$bare" test -no-color >"$work/bare.log" 2>&1; then
    cat "$work/bare.log" >&2
    echo "$(basename "$cli"): the quick start's mock test passed without the kit; it no longer shows the kit matters" >&2
    exit 1
  fi
  grep -q 'data.mobileplan_plans.europe.ids is empty list of string' "$work/bare.log" || {
    cat "$work/bare.log" >&2
    echo "$(basename "$cli"): the quick start's mock test without the kit failed, but not on the empty list of plan ids" >&2
    exit 1
  }
  echo "$(basename "$cli") test: the quick start fails with a bare mock_provider (empty list of plan ids), passes with the kit"
done
