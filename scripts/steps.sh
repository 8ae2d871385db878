#!/usr/bin/env bash
# steps.sh STEP: the GNUmakefile's recipes longer than a line, one function
# each, run from the repository root with the GNUmakefile's exported
# variables (GO, GOLANGCI_LINT, GORELEASER, TFPLUGINDOCS, VERSION,
# MIRROR_DIR, MIRROR_PLATFORMS).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
GO=${GO:-go}

# The CLI checks, the OpenTofu side's first step, beside Terraform's pass:
# the filesystem mirror and an install with an empty home directory, offline.
cli-checks() {
  bash scripts/mirror-check.sh >/dev/null
  bash scripts/install-check.sh >/dev/null
}

# timed PASS ARGS...: go test ARGS under gotestsum (pinned, through the module
# proxy), with the usual output, keeping the pass's events (go test -json) in
# bin/test-times/PASS.json for test-times.
timed() {
  local pass=$1
  shift
  mkdir -p bin/test-times
  $GO run gotest.tools/gotestsum@v1.13.0 --format pkgname-and-test-fails --jsonfile "bin/test-times/$pass.json" -- "$@"
}

# packages cached|programs [PATTERN]: the packages (of PATTERN, default the
# module's) whose tests can start no program but their own binary (their
# tests import neither os/exec nor terraform-plugin-testing nor
# internal/provider/acctest, which run CLIs; the tests that build with
# internal/releasebuild's Command import os/exec too), or the others. Go's test cache keys a result on the test binary, the
# environment variables its tests read and the files they open: for the
# first kind that is every input, so make test lets Go reuse a result
# whose inputs did not change; the others run each time (-count=1).
packages() {
  $GO list -f '{{.ImportPath}} {{join .TestImports " "}} {{join .XTestImports " "}}' "${2:-./...}" |
    awk -v want="$1" '{ p = 0; for (i = 2; i <= NF; i++) if ($i == "os/exec" || $i ~ /hashicorp\/terraform-plugin-testing/ || $i ~ /internal\/provider\/acctest$/) p = 1
      if ((want == "programs") == p) print $1 }'
}

# Where make test's time went: each acceptance pass's packages, the slowest
# tests (tools/testtimes). A report, never a failure.
test-times() {
  $GO run ./tools/testtimes -slowest 20 -over 60s bin/test-times/test-go-cached.json bin/test-times/test-go.json bin/test-times/testacc-opentofu.json
}

# The concurrent packages under the race detector: -short leaves out the
# simulations of many pipelines and the state store's layout type-checks,
# which the plain run makes; the paged refresh's tests, which serve it with
# a journal, and the preflight's plans of many creates at once are the
# provider's concurrent part.
race() {
  local all cached
  all=$($GO list ./internal/emulator/... ./internal/client/... ./internal/provider/fastpath/ ./internal/journal/ ./internal/process/ ./internal/recovery/ | sort)
  cached=$(packages cached | sort)
  # One command a line: set -e ignores a failure inside an && list.
  # shellcheck disable=SC2046 # lists of packages
  $GO test -race -short -timeout 10m $(comm -12 <(echo "$all") <(echo "$cached"))
  # shellcheck disable=SC2046 # lists of packages
  $GO test -count=1 -race -short -timeout 10m $(comm -23 <(echo "$all") <(echo "$cached"))
  $GO test -count=1 -race -timeout 10m -run '^(TestPagedReader|TestPreflight)_' ./internal/provider/
}

# The network-mirror and OCI-mirror tests and the filesystem-mirror check under OpenTofu
# (TF_ACC_TERRAFORM_PATH set by the caller).
opentofu-mirror() {
  TF_ACC=1 $GO test -count=1 -run '^(TestNetworkMirror|TestOCIMirror)$' ./tools/mirror/
  bash scripts/mirror-check.sh >/dev/null
}

# Terraform's implied local mirror, which terraform init searches offline.
install() {
  [ -n "${VERSION:-}" ] || { echo "make install: no version found at the top of CHANGELOG.md" >&2; exit 1; }
  local dir="$HOME/.terraform.d/plugins/registry.terraform.io/mobileplan/mobileplan/$VERSION/$($GO env GOOS)_$($GO env GOARCH)"
  # shellcheck source=scripts/lib.sh
  . scripts/lib.sh
  release_build "$dir/terraform-provider-mobileplan_v$VERSION$($GO env GOEXE)" . "-X main.version=$VERSION"
  echo "Installed mobileplan/mobileplan $VERSION in $dir"
  echo "terraform init now finds it. A configuration initialised with an earlier build of $VERSION needs its .terraform.lock.hcl deleted first."
}

# Built, then run directly: `go run` turns the emulator's clean exit on
# Ctrl-C into exit status 1, which make would report as an error.
emulator() {
  $GO build -o bin/mobileplan-emulator ./cmd/mobileplan-emulator
  # shellcheck disable=SC2086 # FLAGS is a list of flags
  exec ./bin/mobileplan-emulator -listen 127.0.0.1:8089 -token "${TOKEN:-${MOBILEPLAN_EMULATOR_TOKEN:-dev-token}}" ${STATE:+-state "$STATE"} ${FLAGS:-}
}

# tfplugindocs reads the schema from the provider itself
# (tools/providerschema), not from the terraform on PATH, whose version
# would change the docs.
generate() {
  terraform fmt -recursive examples mocks
  $GO run ./tools/mockkit
  schema=$(mktemp) # global: the EXIT trap runs after the function returns
  trap 'rm -f "${schema:-}"' EXIT
  $GO run ./tools/providerschema >"$schema"
  ${TFPLUGINDOCS:-$GO tool tfplugindocs} generate --provider-name mobileplan --providers-schema "$schema"
}

tidy-check() {
  if ! $GO mod tidy -diff >/dev/null; then
    echo "go.mod or go.sum is not tidy; run 'go mod tidy' and commit:"
    $GO mod tidy -diff
    exit 1
  fi
}

mirror() {
  [ -n "${VERSION:-}" ] || { echo "make mirror: no version found at the top of CHANGELOG.md" >&2; exit 1; }
  $GO run ./tools/mirror -dir "${MIRROR_DIR:-bin/mirror}" -version "$VERSION" ${MIRROR_PLATFORMS:+-platforms "$MIRROR_PLATFORMS"}
}

# Snapshots of the provider and the emulator for this platform only, as the
# release builds them: each other platform costs a build of each, 5.5
# minutes more on two cores with a cold cache for the emulator's twelve
# (make emulator-release-check builds them all).
release-snapshot() {
  mkdir -p bin/release-snapshot
  $GORELEASER build --snapshot --clean --single-target --id provider --output bin/release-snapshot/terraform-provider-mobileplan >/dev/null
  ./bin/release-snapshot/terraform-provider-mobileplan -h 2>&1 | grep -q -- -debug
  $GORELEASER build --snapshot --clean --single-target --config .goreleaser.emulator.yml --id emulator --output bin/release-snapshot/mobileplan-emulator >/dev/null
  ./bin/release-snapshot/mobileplan-emulator -h 2>&1 | grep -q '^Usage of mobileplan-emulator'
}

case "${1:-}" in
cli-checks | race | opentofu-mirror | install | emulator | generate | tidy-check | mirror | release-snapshot | test-times) "$1" ;;
packages) shift; packages "$@" ;;
timed) shift; timed "$@" ;;
*)
  echo "usage: scripts/steps.sh packages cached|programs [PATTERN]|cli-checks|race|opentofu-mirror|install|emulator|generate|tidy-check|mirror|release-snapshot|test-times|timed PASS ARGS..." >&2
  exit 2
  ;;
esac
