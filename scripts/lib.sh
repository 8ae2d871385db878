# Shared by the scripts and tools/bench/run.sh: build the binaries, start an
# emulator on a free loopback port, and stop it on exit, failure or Ctrl-C.
# Callers source this file and call begin_script first, which sets work (a
# temp dir); make test-build and make install source it for release_build
# alone. After start_emulator: base_url, token, emulator_log (its stderr:
# one line per request unless -quiet).

# begin_script NAME: run from the repository root (this file's parent
# directory), with Terraform's update check off, in a fresh temp dir $work
# that is removed, with any emulator still running, on exit, failure or
# Ctrl-C.
begin_script() {
  cd "$(dirname "${BASH_SOURCE[0]}")/.."
  export CHECKPOINT_DISABLE=1
  work=$(mktemp -d "${TMPDIR:-/tmp}/mobileplan-$1.XXXXXX")
  trap cleanup EXIT
  trap 'exit 130' INT TERM
}
cleanup() { stop_emulator; rm -rf "$work"; }

# The CLI: TF_ACC_TERRAFORM_PATH when set (as for the acceptance tests, so
# that Terraform and OpenTofu runs use the same binary), else terraform on
# PATH. registry_host is the host a bare source such as mobileplan/mobileplan
# means to that CLI.
tf="${TF_ACC_TERRAFORM_PATH:-terraform}"
registry_host() {
  case "$("$tf" version 2>/dev/null)" in
    *"OpenTofu v"*) echo registry.opentofu.org ;;
    *) echo registry.terraform.io ;;
  esac
}

step() { printf '\n\033[1m==> %s\033[0m\n' "$*"; }

# release_build OUT PKG [LDFLAGS]: PKG built into OUT as our releases build
# it (internal/releasebuild, to which tools/releasecheck holds this line),
# LDFLAGS (a version) added: the binary users run. make test-build and
# make install build with it too.
release_build() { CGO_ENABLED=0 "${GO:-go}" build -trimpath -ldflags "-s -w${3:+ $3}" -o "$1" "$2"; }

# release_built FILE: fails, saying so, unless the Go binary FILE was built
# as release_build builds (Go records no -ldflags under -trimpath).
release_built() {
  local info
  info=$("${GO:-go}" version -m "$1") &&
    grep -q $'\tbuild\tCGO_ENABLED=0$' <<<"$info" && grep -q $'\tbuild\t-trimpath=true$' <<<"$info" ||
    { echo "$1 was not built as our releases build (CGO_ENABLED=0, -trimpath): scripts/lib.sh release_build" >&2; return 1; }
}

# build_binaries: the provider into $work/bin, the emulator into $work.
# With MOBILEPLAN_TEST_BUILD set (make test, which builds each once before
# its test passes), copies of that build instead: a build costs 1 to 2.5
# CPU-seconds. build_emulator, first, checks that build (test_build_current)
# for both.
build_binaries() {
  build_emulator
  if [ -n "${MOBILEPLAN_TEST_BUILD:-}" ]; then
    mkdir -p "$work/bin"
    cp "$MOBILEPLAN_TEST_BUILD/provider/terraform-provider-mobileplan" "$work/bin/"
  else
    release_build "$work/bin/terraform-provider-mobileplan" .
  fi
}
build_emulator() {
  if [ -n "${MOBILEPLAN_TEST_BUILD:-}" ]; then
    test_build_current
    cp "$MOBILEPLAN_TEST_BUILD/mobileplan-emulator" "$work/"
  else
    release_build "$work/mobileplan-emulator" ./cmd/mobileplan-emulator
  fi
}
# test_build_current: fails when MOBILEPLAN_TEST_BUILD holds a build older
# than a Go file, go.mod or go.sum here, or one not built as our releases
# build: a variable left set outside make test must not run an old or
# another provider (acctest refuses it too).
test_build_current() {
  local built=$MOBILEPLAN_TEST_BUILD/provider/terraform-provider-mobileplan newer
  [ -f "$built" ] && [ -f "$MOBILEPLAN_TEST_BUILD/mobileplan-emulator" ] ||
    { echo "MOBILEPLAN_TEST_BUILD=$MOBILEPLAN_TEST_BUILD holds no build of the provider and the emulator" >&2; exit 1; }
  newer=$(find . \( -path ./bin -o -name .git \) -prune -o \( -name '*.go' -o -name go.mod -o -name go.sum \) -newer "$built" -print -quit)
  [ -z "$newer" ] ||
    { echo "MOBILEPLAN_TEST_BUILD=$MOBILEPLAN_TEST_BUILD holds a build older than $newer: unset it, or run make test-build" >&2; exit 1; }
  release_built "$built" && release_built "$MOBILEPLAN_TEST_BUILD/mobileplan-emulator" ||
    { echo "MOBILEPLAN_TEST_BUILD=$MOBILEPLAN_TEST_BUILD holds another build: unset it, or run make test-build" >&2; exit 1; }
}

emulator_pid=""
stop_emulator() {
  if [ -n "$emulator_pid" ] && kill -0 "$emulator_pid" 2>/dev/null; then
    kill "$emulator_pid" 2>/dev/null || true
    wait "$emulator_pid" 2>/dev/null || true
  fi
  emulator_pid=""
}

# start_emulator [FLAG...]: extra flags go to the emulator (-state, -esims, ...).
# Each start writes to files of its own, so an earlier emulator's address
# can never be read back, and a process that died is noticed at once.
emulator_starts=0
start_emulator() {
  emulator_starts=$((emulator_starts + 1))
  local out="$work/emulator.$emulator_starts.out" log
  log="$work/emulator.$emulator_starts.log"
  emulator_log=$log
  token="demo-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
  : >"$out" # exists before the emulator starts, so reading it cannot fail
  "$work/mobileplan-emulator" -listen 127.0.0.1:0 -token "$token" "$@" >"$out" 2>"$log" &
  emulator_pid=$!
  base_url=""
  for _ in $(seq 1 100); do
    base_url=$(sed -n 's/^MOBILEPLAN_BASE_URL=//p' "$out")
    [ -n "$base_url" ] && break
    kill -0 "$emulator_pid" 2>/dev/null || { cat "$log" >&2; echo "the emulator did not start" >&2; return 1; }
    sleep 0.1
  done
  [ -n "$base_url" ] || { cat "$log" >&2; echo "the emulator did not print its address within 10 s" >&2; return 1; }
  kill -0 "$emulator_pid" 2>/dev/null || { cat "$log" >&2; echo "the emulator exited after printing its address" >&2; return 1; }
}

# use_dev_build: point mobileplan/mobileplan at the build in $work/bin
# through dev_overrides (no terraform init, no registry, no network), and
# the provider at the emulator start_emulator started.
use_dev_build() {
  cat >"$work/dev.tfrc" <<RC
provider_installation {
  dev_overrides {
    "mobileplan/mobileplan" = "$work/bin"
  }
  direct {}
}
RC
  export TF_CLI_CONFIG_FILE="$work/dev.tfrc" TF_IN_AUTOMATION=1
  export MOBILEPLAN_BASE_URL="$base_url" MOBILEPLAN_API_TOKEN="$token"
}

# need CMD...: stop with a clear message when a command the script uses is
# missing.
need() {
  local missing=()
  for c in "$@"; do command -v "$c" >/dev/null 2>&1 || missing+=("$c"); done
  [ ${#missing[@]} -eq 0 ] || { echo "$(basename "$0") needs: ${missing[*]} (not found on PATH)" >&2; exit 1; }
}

# expect_no_changes DIR MESSAGE: plan in DIR; unless nothing would change,
# stop with MESSAGE and the plan's exit code.
expect_no_changes() {
  local code=0
  "$tf" -chdir="$1" plan -input=false -detailed-exitcode || code=$?
  [ "$code" -eq 0 ] || { echo "$2 (exit $code)" >&2; exit 1; }
}

# changelog_version: the version at the top of CHANGELOG.md, which make
# install builds too.
changelog_version() { sed -n 's/^## \([0-9][0-9.]*[^ ]*\).*/\1/p' CHANGELOG.md | head -1; }

# emulator_control METHOD PATH [JSON]: one call to the running emulator's
# control API (POST /_emulator/reset, ...), with a JSON body ({} unless
# given) and its Content-Type. Bash's /dev/tcp speaks the HTTP, so the
# scripts need no HTTP client. Fails unless the answer is 2xx.
emulator_control() {
  local method=$1 path=$2 body=${3:-"{}"} hostport status fd
  hostport=${base_url#http://}
  hostport=${hostport%%/*}
  exec {fd}<>"/dev/tcp/${hostport%:*}/${hostport##*:}" || return 1
  printf '%s %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' \
    "$method" "$path" "$hostport" "${#body}" "$body" >&"$fd"
  IFS=' ' read -r _ status _ <&"$fd" || true
  exec {fd}<&-
  [[ $status == 2* ]] || { echo "emulator control $method $path: HTTP ${status:-no answer}" >&2; return 1; }
}
