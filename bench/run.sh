#!/usr/bin/env bash
# make bench, Terraform level: what the provider costs next to Terraform's
# own floor (terraform_data), list reads against ceil(N/25) requests, peak
# memory reading 10,000 eSIMs, start-up to a served schema, and a CPU
# profile of a 500-resource refresh. Prints the results; writes them to
# bench/RESULTS.md only when asked (make bench-results, or BENCH_OUT=FILE).
set -euo pipefail
cd "$(dirname "$0")/.."
export CHECKPOINT_DISABLE=1 TF_IN_AUTOMATION=1
work=$(mktemp -d "${TMPDIR:-/tmp}/mobileplan-bench.XXXXXX")
. scripts/lib.sh
need go terraform awk free nproc
[ -x /usr/bin/time ] || { echo "bench/run.sh needs GNU time at /usr/bin/time (Debian package: time) to measure peak memory" >&2; exit 1; }
cleanup() { stop_emulator; rm -rf "$work"; }
trap cleanup EXIT
trap 'exit 130' INT TERM
sizes=${BENCH_SIZES:-"200 500"}
list_size=${BENCH_LIST_SIZE:-10000}
out=${BENCH_OUT:-$work/RESULTS.md}

step "Building"
build_binaries
# A wrapper that records the provider's peak RSS (KiB) when it exits.
mkdir "$work/rssbin"
cat >"$work/rssbin/terraform-provider-mobileplan" <<SH
#!/bin/sh
exec /usr/bin/time -f %M -a -o "$work/rss.txt" "$work/bin/terraform-provider-mobileplan" "\$@"
SH
chmod +x "$work/rssbin/terraform-provider-mobileplan"
for d in bin rssbin; do
  printf 'provider_installation {\n  dev_overrides {\n    "mobileplan/mobileplan" = "%s"\n  }\n  direct {}\n}\n' "$work/$d" >"$work/$d.tfrc"
done
: >"$work/empty.tfrc"

# seconds CMD...: wall time of a command, its output discarded.
seconds() {
  local t0=$EPOCHREALTIME
  "$@" >"$work/last.log" 2>&1 || { cat "$work/last.log" >&2; return 1; }
  awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
# requests METHOD PATH: how many the emulator logged for exactly that path.
requests() { grep -c " $1 $2 [0-9]" "$emulator_log" || true; }

provider_hcl='terraform {
  required_providers {
    mobileplan = { source = "mobileplan/mobileplan" }
  }
}
provider "mobileplan" {}'

rows=()
for n in $sizes; do
  step "N=$n: terraform_data (Terraform's floor)"
  mkdir -p "$work/floor$n"
  printf 'resource "terraform_data" "x" {\n  count = %d\n  input = count.index\n}\n' "$n" >"$work/floor$n/main.tf"
  export TF_CLI_CONFIG_FILE="$work/empty.tfrc"
  floor_apply=$(seconds terraform -chdir="$work/floor$n" apply -auto-approve -input=false)
  floor_plan=$(seconds terraform -chdir="$work/floor$n" plan -input=false)

  step "N=$n: mobileplan_subscription against the emulator"
  stop_emulator
  start_emulator -esims $((n + 100)) -quiet
  export MOBILEPLAN_BASE_URL="$base_url" MOBILEPLAN_API_TOKEN="$token" TF_CLI_CONFIG_FILE="$work/bin.tfrc"
  mkdir -p "$work/ours$n"
  printf '%s\nresource "mobileplan_subscription" "x" {\n  count   = %d\n  plan_id = "plan_004"\n}\n' "$provider_hcl" "$n" >"$work/ours$n/main.tf"
  ours_apply=$(seconds terraform -chdir="$work/ours$n" apply -auto-approve -input=false)
  ours_plan=$(seconds terraform -chdir="$work/ours$n" plan -input=false)
  if [ "$n" = "$(echo $sizes | awk '{print $NF}')" ]; then
    step "N=$n: CPU profile of the provider during a refreshing plan"
    MOBILEPLAN_CPU_PROFILE="$work/cpu.pprof" terraform -chdir="$work/ours$n" plan -input=false >/dev/null
    go tool pprof -top -nodecount=20 "$work/bin/terraform-provider-mobileplan" "$work/cpu.pprof" 2>/dev/null >"$work/pprof.txt" || true
    go tool pprof -top -cum "$work/bin/terraform-provider-mobileplan" "$work/cpu.pprof" 2>/dev/null >"$work/pprof-cum.txt" || true
  fi
  rows+=("| $n | $floor_apply | $ours_apply | $(ratio "$ours_apply" "$floor_apply") | $floor_plan | $ours_plan | $(ratio "$ours_plan" "$floor_plan") |")
  last_plan_ratio=$(ratio "$ours_plan" "$floor_plan")
done

step "Reading $list_size eSIMs through terraform plan"
stop_emulator
start_emulator -esims "$list_size" # not -quiet: its request log is counted
export MOBILEPLAN_BASE_URL="$base_url" MOBILEPLAN_API_TOKEN="$token" TF_CLI_CONFIG_FILE="$work/rssbin.tfrc"
mkdir -p "$work/list"
printf '%s\ndata "mobileplan_esims" "all" {}\noutput "n" { value = length(data.mobileplan_esims.all.iccids) }\n' "$provider_hcl" >"$work/list/main.tf"
: >"$work/rss.txt"
list_time=$(seconds terraform -chdir="$work/list" plan -input=false)
list_requests=$(requests GET /v1/esims)
list_expected=$(( (list_size + 24) / 25 ))
peak_kib=$(sort -n "$work/rss.txt" | tail -1)
peak_mb=$(awk -v k="${peak_kib:-0}" 'BEGIN { printf "%.1f", k / 1024 }')

step "Provider start-up to a served schema"
startup=$(go run ./bench/startup -provider "$work/bin/terraform-provider-mobileplan" -n 20)
schema_ms=$(sed -n 's/.*schema_ms=\([0-9.]*\).*/\1/p' <<<"$startup")

verdict() { awk -v v="$1" -v goal="$2" 'BEGIN { print (v <= goal) ? "met" : "missed" }'; }
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
{
  echo "# Benchmark results"
  echo
  echo "Made by \`make bench-results\` (bench/run.sh) on $(date -u +%Y-%m-%d): $(nproc) cores ($cpu), $(free -g | awk '/Mem:/ {print $2}') GiB,"
  echo "$(terraform version | head -1), $(go version | cut -d' ' -f3). One run; wall times in seconds."
  echo
  echo "## Terraform's floor against mobileplan_subscription"
  echo
  echo "| N | floor apply | ours apply | ratio | floor refreshing plan | ours refreshing plan | ratio |"
  echo "|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Goal: refreshing plan at most 1.3x the floor at the largest N: **$(verdict "$last_plan_ratio" 1.3)** ($last_plan_ratio)."
  echo
  echo "## List data sources and start-up"
  echo
  echo "| measure | value | goal | verdict |"
  echo "|---|---|---|---|"
  echo "| requests to read $list_size eSIMs | $list_requests | ceil($list_size/25) = $list_expected | $( [ "$list_requests" = "$list_expected" ] && echo met || echo missed ) |"
  echo "| wall time of \`terraform plan\` reading them | ${list_time} s | under 5 s | $(verdict "$list_time" 5) |"
  echo "| provider peak RSS during that plan | ${peak_mb} MB | under 100 MB | $(verdict "$peak_mb" 100) |"
  echo "| provider start-up to schema served (median of 20) | ${schema_ms} ms | under 50 ms | $(verdict "$schema_ms" 50) |"
  echo
  echo "## Where the provider's CPU time goes (refreshing plan, largest N)"
  echo
  echo '```'
  head -30 "$work/pprof.txt" 2>/dev/null || echo "(no profile)"
  echo '```'
  echo
  echo "Share of the provider's CPU in its own packages (cumulative):"
  echo
  echo '```'
  grep -E 'terraform-provider-mobileplan/internal/(provider|client)\.' "$work/pprof-cum.txt" | head -8 || true
  echo '```'
  [ -f bench/ANALYSIS.md ] && { echo; cat bench/ANALYSIS.md; }
} >"$out"
step "Results"
cat "$out"
[ -n "${BENCH_OUT:-}" ] && echo "(written to $out)" || echo "(not saved: make bench-results writes them to bench/RESULTS.md)"
