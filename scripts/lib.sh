# Shared by the demo and the mirror check: build the binaries, start an
# emulator on a free loopback port, and stop it on exit, failure or Ctrl-C.
# Callers set: work (a temp dir). After start_emulator: base_url, token.

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

build_binaries() {
  go build -o "$work/bin/terraform-provider-mobileplan" .
  go build -o "$work/mobileplan-emulator" ./cmd/mobileplan-emulator
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
start_emulator() {
  token="demo-$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')"
  "$work/mobileplan-emulator" -listen 127.0.0.1:0 -token "$token" "$@" \
    >"$work/emulator.out" 2>"$work/emulator.log" &
  emulator_pid=$!
  base_url=""
  for _ in $(seq 1 100); do
    base_url=$(sed -n 's/^MOBILEPLAN_BASE_URL=//p' "$work/emulator.out")
    [ -n "$base_url" ] && break
    kill -0 "$emulator_pid" 2>/dev/null || { cat "$work/emulator.log" >&2; echo "the emulator did not start" >&2; return 1; }
    sleep 0.1
  done
  [ -n "$base_url" ] || { echo "the emulator did not print its address" >&2; return 1; }
}
