#!/usr/bin/env bash
# make bench-growth: one workspace growing, per CLI and state backend. Each
# row applies N subscriptions from empty state, then plans them with a
# refresh twice (each must find nothing to change), beside terraform_data
# (no provider at all: the CLI's own cost at that size) and, on OpenTofu,
# the same-schema floor (tools/bench/schemafloor: any framework provider of
# mobileplan_subscription's schema, answered from memory). One round each:
# the sizes make the point, and the large ones take minutes.
#
# Rows (BENCH_GROWTH_ROWS, default all three):
#   terraform-local  terraform on PATH, local state (terraform.tfstate);
#   terraform-http   the same with an http backend the bench serves on
#                    loopback (tools/bench/httpstate);
#   opentofu-local   OpenTofu at the version tools/opentofu pins (TOFU),
#                    local state.
# Sizes: BENCH_GROWTH_SIZES (default "1000 2000 5000"), and on OpenTofu
# BENCH_GROWTH_TOFU_SIZES (default those and 20000).
#
# The provider's peak RSS and CPU come from GNU time around each provider
# process; its peak live heap from MOBILEPLAN_HEAP_PROFILE, whose profile
# of the largest OpenTofu plan is summed up under the table. The run fails
# when, on OpenTofu at 5,000, the provider's CPU (apply or plan) exceeds
# the same-schema floor's by more than 10%, or when the provider's live
# heap exceeds 2 KB a subscription in an OpenTofu row of 5,000 or more.
# Prints the results; BENCH_OUT=FILE also writes them into FILE, in place of
# the section between its bench-growth markers, or at its end
# (make bench-growth-results: tools/bench/RESULTS.md, whose other sections
# tools/bench/run.sh writes and which keeps this one).
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
begin_script growth
export TF_IN_AUTOMATION=1
need go terraform awk
[ -x /usr/bin/time ] || { echo "tools/bench/growth.sh needs GNU time at /usr/bin/time (Debian package: time)" >&2; exit 1; }
sizes=${BENCH_GROWTH_SIZES:-"1000 2000 5000"}
tofu_sizes=${BENCH_GROWTH_TOFU_SIZES:-"$sizes 20000"}
rows=${BENCH_GROWTH_ROWS:-"terraform-local terraform-http opentofu-local"}
tofu=${TOFU:-bin/opentofu/tofu}
out=${BENCH_OUT:-}
case " $rows " in *" opentofu-local "*) [ -x "$tofu" ] || { echo "no OpenTofu at $tofu: make $tofu builds it" >&2; exit 1; } ;; esac
tofu=$(cd "$(dirname "$tofu")" && pwd)/$(basename "$tofu")
most=$(tr ' ' '\n' <<<"$sizes $tofu_sizes" | sort -n | tail -1)

step "Building"
rev="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo '+changes')"
build_binaries
release_build "$work/schemabin/terraform-provider-mobileplan" ./tools/bench/schemafloor
go build -o "$work/httpstate" ./tools/bench/httpstate
# Each provider process through GNU time (CPU and peak RSS to rss.txt) and,
# for ours, with its heap profile in a file of its own (the shell's pid is
# the provider's after exec).
mkdir -p "$work/rssbin" "$work/rssschema" "$work/heap"
printf '#!/bin/sh\nexec env MOBILEPLAN_HEAP_PROFILE="%s/heap/$$" /usr/bin/time -f "%%U %%S %%M" -a -o "%s/rss.txt" "%s" "$@"\n' \
  "$work" "$work" "$work/bin/terraform-provider-mobileplan" >"$work/rssbin/terraform-provider-mobileplan"
printf '#!/bin/sh\nexec /usr/bin/time -f "%%U %%S %%M" -a -o "%s/rss.txt" "%s" "$@"\n' \
  "$work" "$work/schemabin/terraform-provider-mobileplan" >"$work/rssschema/terraform-provider-mobileplan"
chmod +x "$work/rssbin/terraform-provider-mobileplan" "$work/rssschema/terraform-provider-mobileplan"
printf 'provider_installation {\n  dev_overrides {\n    "mobileplan/mobileplan" = "%s"\n    "bench/mobileplan" = "%s"\n  }\n  direct {}\n}\n' \
  "$work/rssbin" "$work/rssschema" >"$work/growth.tfrc"
export TF_CLI_CONFIG_FILE="$work/growth.tfrc"
# A backend needs terraform init, which installs every provider the
# configuration requires, dev_overrides or not: from this directory, laid
# out as a mirror, offline. At run time dev_overrides still choose the
# wrapper.
platform="$(go env GOOS)_$(go env GOARCH)"
mkdir -p "$work/mirror/registry.terraform.io/mobileplan/mobileplan/0.0.1/$platform"
cp "$work/rssbin/terraform-provider-mobileplan" "$work/mirror/registry.terraform.io/mobileplan/mobileplan/0.0.1/$platform/terraform-provider-mobileplan_v0.0.1"

# The emulator logs each request: the refreshing plans' requests are
# counted from its log.
start_emulator -esims $((most + 100))
export MOBILEPLAN_BASE_URL="$base_url" MOBILEPLAN_API_TOKEN="$token"
"$work/httpstate" >"$work/httpstate.out" 2>"$work/httpstate.log" &
httpstate_pid=$!
trap 'kill "$httpstate_pid" 2>/dev/null || true; cleanup' EXIT
for _ in $(seq 1 50); do
  state_url=$(sed -n 's/^HTTPSTATE_URL=//p' "$work/httpstate.out")
  [ -n "$state_url" ] && break
  sleep 0.1
done
[ -n "$state_url" ] || { echo "the http state store did not start" >&2; exit 1; }

# config ROW SYSTEM N: the configuration of N instances of SYSTEM (data,
# schema, ours), with the row's backend.
config() {
  local source=mobileplan/mobileplan
  printf 'terraform {\n'
  case $1 in terraform-http) printf '  backend "http" {\n    address        = "%s/%s"\n    lock_address   = "%s/%s"\n    unlock_address = "%s/%s"\n  }\n' \
    "$state_url" "$2-$3" "$state_url" "$2-$3" "$state_url" "$2-$3" ;;
  esac
  case $2 in
    data)
      printf '}\nresource "terraform_data" "x" {\n  count = %d\n  input = count.index\n}\n' "$3"
      return
      ;;
    schema) source=bench/mobileplan ;;
  esac
  printf '  required_providers {\n    mobileplan = { source = "%s" }\n  }\n}\nprovider "mobileplan" {}\n' "$source"
  printf 'resource "mobileplan_subscription" "x" {\n  count   = %d\n  plan_id = "plan_004"\n}\n' "$3"
}

# timed FILE CMD...: the command's wall time (s) to FILE; its CPU time and
# its children's, the provider processes' included, to cpu.txt.
timed() {
  local file=$1 t0=$EPOCHREALTIME
  shift
  /usr/bin/time -f "%U %S" -o "$work/cpu.txt" "$@" >"$work/last.log" 2>&1 || { tail -30 "$work/last.log" >&2; return 1; }
  awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f\n", b - a }' >"$file"
}
provider_cpu() { awk '{ s += $1 + $2 } END { printf "%.1f\n", s }' "$work/rss.txt"; }
cli_cpu() { awk -v p="$(provider_cpu)" '{ printf "%.1f\n", $1 + $2 - p }' "$work/cpu.txt"; }
peak_rss_mb() { awk '$3 > m { m = $3 } END { printf "%.0f\n", m / 1024 }' "$work/rss.txt"; }
# peak_live: the largest peak live heap of the provider processes since
# the last call (bytes), their profiles kept as FILE.
peak_live() {
  local best=0 f v
  for f in "$work"/heap/*.live; do
    [ -e "$f" ] || continue
    v=$(cat "$f")
    if [ "$v" -gt "$best" ]; then best=$v; cp "${f%.live}" "$1" 2>/dev/null || true; fi
  done
  rm -f "$work"/heap/*
  echo "$best"
}

# round ROW SYSTEM N: apply from empty state, then two refreshing plans.
# Measures go to $work/m/ROW.SYSTEM.N.KEY.
round() {
  local row=$1 sys=$2 n=$3 cli=terraform dir="$work/$1-$2-$3" m="$work/m/$1.$2.$3" plan before
  [ "$row" = opentofu-local ] && cli=$tofu
  mkdir -p "$dir" "$work/m"
  config "$row" "$sys" "$n" >"$dir/main.tf"
  [ "$row" = terraform-http ] && "$cli" -chdir="$dir" init -input=false -plugin-dir="$work/mirror" >/dev/null
  [ "$sys" = ours ] && emulator_control POST /_emulator/reset
  step "$row: $n $(case $sys in data) echo terraform_data ;; schema) echo "same-schema floor" ;; *) echo subscriptions ;; esac), apply"
  : >"$work/rss.txt"
  timed "$m.apply" "$cli" -chdir="$dir" apply -auto-approve -input=false
  cli_cpu >"$m.apply-clicpu"
  if [ "$sys" != data ]; then
    provider_cpu >"$m.apply-cpu"
    peak_rss_mb >"$m.apply-rss"
    [ "$sys" = ours ] && peak_live "$m.apply-heap" >"$m.apply-live"
  fi
  [ "$sys" = data ] && return
  for plan in 1 2; do
    [ "$plan" = 2 ] && [ "$n" -gt 5000 ] && break
    step "$row: $n, refreshing plan $plan"
    before=$(wc -l <"$emulator_log")
    : >"$work/rss.txt"
    timed "$m.plan$plan" "$cli" -chdir="$dir" plan -input=false -detailed-exitcode
    cli_cpu >"$m.plan$plan-clicpu"
    provider_cpu >"$m.plan$plan-cpu"
    peak_rss_mb >"$m.plan$plan-rss"
    if [ "$sys" = ours ]; then
      peak_live "$m.plan$plan-heap" >"$m.plan$plan-live"
      tail -n +$((before + 1)) "$emulator_log" | grep -c ' /v1/' >"$m.plan$plan-requests" || true
    fi
  done
}

systems_of() { case $1 in opentofu-local) echo "data schema ours" ;; *) echo "data ours" ;; esac; }
sizes_of() { case $1 in opentofu-local) echo "$tofu_sizes" ;; *) echo "$sizes" ;; esac; }
for row in $rows; do
  for n in $(sizes_of "$row"); do
    for sys in $(systems_of "$row"); do round "$row" "$sys" "$n"; done
  done
done
kill -TERM "$httpstate_pid" 2>/dev/null || true
wait "$httpstate_pid" 2>/dev/null || true

get() { cat "$work/m/$1" 2>/dev/null || echo "–"; }
# linear T T0 N N0: T over T0 scaled from N0 to N (1.00: linear growth).
linear() { awk -v t="$1" -v t0="$2" -v n="$3" -v n0="$4" 'BEGIN { if (t0 == "–" || t0 == 0 || t == "–") print "–"; else printf "%.2f", t / (t0 * n / n0) }'; }
kb_per() { awk -v b="$1" -v n="$2" 'BEGIN { if (b == "–" || b == "") print "–"; else printf "%.2f", b / n / 1024 }'; }
failed=()
results() {
  local cli_version tofu_version row n n0 first label
  cli_version=$(terraform version | sed -n 1p) # not head: see import.sh's cli_name
  tofu_version=$("$tofu" version 2>/dev/null | head -1 || true)
  echo "<!-- bench-growth -->"
  echo "## One workspace, growing, per CLI and state backend"
  echo
  echo "Made by \`make bench-growth\` (tools/bench/growth.sh) on $(date -u +%Y-%m-%d) at $rev: $(nproc) cores, $(free -g | awk '/Mem:/ {print $2}') GiB,"
  echo "$cli_version; ${tofu_version:-OpenTofu not run}; the emulator with no rate limit. One round each: an apply"
  echo "from empty state (\`-parallelism=10\`), then two refreshing plans (one above 5,000), each finding nothing to change."
  echo "Times in seconds; in brackets, the time over the smallest size's scaled to this size (1.00: linear growth)."
  echo "CPU is user and system time; the CLI's is the run's less its provider processes'. Requests are what"
  echo "the emulator logged in each refreshing plan; a page holds 25. Live heap: the most a collection left, per subscription."
  echo "Load average when the run ended: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  echo "| CLI, state | subscriptions | \`terraform_data\` apply | apply | refreshing plan | plan requests (pages) | CLI CPU, apply / plan | provider CPU, apply / plan | same-schema floor's provider CPU, apply / plan | provider peak RSS, apply / plan (MB) | provider live heap, apply / plan (KB a subscription) |"
  echo "|---|---|---|---|---|---|---|---|---|---|---|"
  for row in $rows; do
    first=""
    case $row in terraform-local) label="Terraform, local" ;; terraform-http) label="Terraform, http backend" ;; *) label="OpenTofu, local" ;; esac
    for n in $(sizes_of "$row"); do
      local m=$row.ours.$n d=$row.data.$n s=$row.schema.$n
      [ -n "$first" ] || { first=$n; n0=$n; }
      local requests
      requests="$(get "$m.plan1-requests")"
      [ -f "$work/m/$m.plan2-requests" ] && requests+=", $(get "$m.plan2-requests")"
      echo "| $label | $n | $(get "$d.apply") ($(linear "$(get "$d.apply")" "$(get "$row.data.$n0.apply")" "$n" "$n0")) |" \
        "$(get "$m.apply") ($(linear "$(get "$m.apply")" "$(get "$row.ours.$n0.apply")" "$n" "$n0")) |" \
        "$(get "$m.plan1") ($(linear "$(get "$m.plan1")" "$(get "$row.ours.$n0.plan1")" "$n" "$n0")) |" \
        "$requests ($(((n + 24) / 25))) | $(get "$m.apply-clicpu") / $(get "$m.plan1-clicpu") | $(get "$m.apply-cpu") / $(get "$m.plan1-cpu") |" \
        "$(get "$s.apply-cpu") / $(get "$s.plan1-cpu") | $(get "$m.apply-rss") / $(get "$m.plan1-rss") |" \
        "$(kb_per "$(get "$m.apply-live")" "$n") / $(kb_per "$(get "$m.plan1-live")" "$n") |"
    done
  done
  echo
  if [ -s "$httpstate_log" ]; then
    echo "The http backend's state store saw these writes (state name: system and size):"
    echo
    sort "$httpstate_log" | sed 's/^\//* /'
    echo
  fi
  goals
}
httpstate_log="$work/httpstate.log"
# goals: the issue's goals, and the run's verdict. On OpenTofu, at 5,000:
# the provider's CPU at most the same-schema floor's plus 10%; at every
# size, its live heap at most 2 KB a subscription.
goals() {
  local n v floor ours op live
  case " $rows " in *" opentofu-local "*) ;; *) return ;; esac
  echo "Goals on OpenTofu:"
  echo
  for n in $tofu_sizes; do
    for op in apply plan1; do
      ours=$(get "opentofu-local.ours.$n.$op-cpu")
      floor=$(get "opentofu-local.schema.$n.$op-cpu")
      v=$(awk -v a="$ours" -v b="$floor" 'BEGIN { if (a == "–" || b == "–" || b == 0) print "–"; else printf "%.2f", a / b }')
      if [ "$n" = 5000 ]; then
        echo "* $n, ${op%1}: provider CPU ${ours} s, $v times the same-schema floor's (${floor} s), at most 1.10: **$(awk -v v="$v" 'BEGIN { print (v != "–" && v <= 1.10) ? "met" : "missed" }')**"
        awk -v v="$v" 'BEGIN { exit !(v == "–" || v > 1.10) }' && failed+=("provider CPU at 5,000 (${op%1}) is ${v}x the same-schema floor's")
      else
        echo "* $n, ${op%1}: provider CPU ${ours} s, $v times the same-schema floor's (${floor} s)"
      fi
      live=$(kb_per "$(get "opentofu-local.ours.$n.$op-live")" "$n")
      if [ "$n" -ge 5000 ]; then
        echo "* $n, ${op%1}: provider live heap $live KB a subscription, at most 2: **$(awk -v v="$live" 'BEGIN { print (v != "–" && v <= 2) ? "met" : "missed" }')**"
        awk -v v="$live" 'BEGIN { exit !(v == "–" || v > 2) }' && failed+=("live heap at $n (${op%1}) is $live KB a subscription")
      else
        echo "* $n, ${op%1}: provider live heap $live KB a subscription (what every run holds counts for more in a small one)"
      fi
    done
    v=$(printf '%s\n%s\n' "$(get "opentofu-local.ours.$n.apply-rss")" "$(get "opentofu-local.ours.$n.plan1-rss")" | sort -n | tail -1)
    case $n in
      5000) echo "* $n: provider peak RSS $v MB, under 60: **$(awk -v v="$v" 'BEGIN { print (v + 0 < 60) ? "met" : "missed" }')**" ;;
      20000) echo "* $n: provider peak RSS $v MB, under 100: **$(awk -v v="$v" 'BEGIN { print (v + 0 < 100) ? "met" : "missed" }')**" ;;
    esac
  done
  local largest
  largest=$(tr ' ' '\n' <<<"$tofu_sizes" | sort -n | tail -1)
  if [ -f "$work/m/opentofu-local.ours.$largest.plan1-heap" ]; then
    echo
    echo "Where the provider's live heap was, at its peak in the refreshing plan of $largest on OpenTofu (\`go tool pprof -sample_index=inuse_space\`, top 12):"
    echo
    echo '```'
    go tool pprof -sample_index=inuse_space -top -nodecount=12 "$work/bin/terraform-provider-mobileplan" "$work/m/opentofu-local.ours.$largest.plan1-heap" 2>/dev/null | sed -n '/^Showing nodes/,$p'
    echo '```'
  fi
  echo "<!-- /bench-growth -->"
}

step "Results"
results >"$work/GROWTH.md"
cat "$work/GROWTH.md"
if [ -n "$out" ]; then
  # In place of the section between the markers, or at the end.
  if grep -q '^<!-- bench-growth -->$' "$out" 2>/dev/null; then
    awk -v section="$work/GROWTH.md" '
      /^<!-- bench-growth -->$/ { while ((getline line < section) > 0) print line; skip = 1; next }
      /^<!-- \/bench-growth -->$/ { skip = 0; next }
      !skip' "$out" >"$work/out.md"
    cp "$work/out.md" "$out"
  else
    { echo; cat "$work/GROWTH.md"; } >>"$out"
  fi
  echo "(written to $out)"
fi
if [ ${#failed[@]} -gt 0 ]; then
  printf 'bench-growth: goal missed: %s\n' "${failed[@]}" >&2
  exit 1
fi
