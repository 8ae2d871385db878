#!/usr/bin/env bash
# make bench-recovery: what a hard kill leaves out of state, per CLI and
# state backend, what the next apply pays to take it back, and what the
# journal of creates costs a clean apply.
#
# Killed applies: for each row (BENCH_RECOVERY_ROWS, default
# "terraform-local terraform-http opentofu-local opentofu-http"), an apply of
# N subscriptions (BENCH_RECOVERY_SIZE, default 200) paced at R requests a
# second (BENCH_RECOVERY_RATE, 5: max_requests_per_second) at
# -parallelism=10, its CLI alone killed with SIGKILL at each moment
# (BENCH_RECOVERY_MOMENTS, seconds, default "10 25 38"). Once the killed
# run's provider has seen its creates through and exited: how many the
# service made, how many the state held, how many the kill left out. Then
# the next apply in the same working directory: its time, its requests by
# kind (list pages, single GETs, creates) from the emulator's log, and how
# many are at the service and in state after it (both must be N, or the
# run fails).
#
# The journal's cost: a clean apply of M subscriptions (BENCH_RECOVERY_CLEAN,
# default 1000), with the journal and without (MOBILEPLAN_JOURNAL=off), in
# BENCH_RECOVERY_ROUNDS (7) interleaved rounds, the provider's CPU from GNU
# time; and the journal's size after the apply, after the refreshing plan
# that follows it, and after one more plan (a journal is compacted when a
# process opens it with no other open). Apply to apply, the provider's CPU varies by 30% on
# 2 shared cores, more than the journal costs: the cost is the median of
# each round's ratio, with it to without it, the two applies side by side.
# The run fails when that is more than 5%.
#
# Prints the results; BENCH_OUT=FILE also writes them into FILE, in place of
# the section between its bench-recovery markers, or at its end (make
# bench-recovery-results: tools/bench/RESULTS.md).
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
begin_script recovery
export TF_IN_AUTOMATION=1
need go terraform awk pgrep
[ -x /usr/bin/time ] || { echo "tools/bench/recovery.sh needs GNU time at /usr/bin/time (Debian package: time)" >&2; exit 1; }
rows=${BENCH_RECOVERY_ROWS:-"terraform-local terraform-http opentofu-local opentofu-http"}
n=${BENCH_RECOVERY_SIZE:-200}
rate=${BENCH_RECOVERY_RATE:-5}
moments=${BENCH_RECOVERY_MOMENTS:-"10 25 38"}
clean=${BENCH_RECOVERY_CLEAN:-1000}
rounds=${BENCH_RECOVERY_ROUNDS:-7}
tofu=${TOFU:-bin/opentofu/tofu}
out=${BENCH_OUT:-}
case " $rows " in *" opentofu-"*) [ -x "$tofu" ] || { echo "no OpenTofu at $tofu: make $tofu builds it" >&2; exit 1; } ;; esac
tofu=$(cd "$(dirname "$tofu")" && pwd)/$(basename "$tofu")

step "Building"
rev="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo '+changes')"
build_binaries
go build -o "$work/httpstate" ./tools/bench/httpstate
provider="$work/bin/terraform-provider-mobileplan"
# The killed applies run the provider itself, whose watch of its parent
# must see the CLI die; the clean applies run it through GNU time, which
# appends its CPU time to rss.txt.
mkdir -p "$work/timed"
printf '#!/bin/sh\nexec /usr/bin/time -f "%%U %%S %%M" -a -o "%s/rss.txt" "%s" "$@"\n' "$work" "$provider" >"$work/timed/terraform-provider-mobileplan"
chmod +x "$work/timed/terraform-provider-mobileplan"
rc() { printf 'provider_installation {\n  dev_overrides {\n    "mobileplan/mobileplan" = "%s"\n  }\n  direct {}\n}\n' "$1"; }
rc "$work/bin" >"$work/plain.tfrc"
rc "$work/timed" >"$work/timed.tfrc"
# A backend needs terraform init, which installs the providers a
# configuration requires, dev_overrides or not: from a directory laid out
# as a mirror, offline.
platform="$(go env GOOS)_$(go env GOARCH)"
for host in registry.terraform.io registry.opentofu.org; do
  mkdir -p "$work/mirror/$host/mobileplan/mobileplan/0.0.1/$platform"
  cp "$provider" "$work/mirror/$host/mobileplan/mobileplan/0.0.1/$platform/terraform-provider-mobileplan_v0.0.1"
done

start_emulator -esims $((n + clean + 100))
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

cli() { case $1 in opentofu-*) echo "$tofu" ;; *) command -v terraform ;; esac; }
# seconds_of CMD...: the command's wall time (s); its output to last.log.
seconds_of() {
  local t0=$EPOCHREALTIME
  "$@" >"$work/last.log" 2>&1 || { tail -30 "$work/last.log" >&2; return 1; }
  awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }'
}
# config ROW NAME COUNT [SETTINGS]: COUNT subscriptions, with the row's
# backend (state NAME), and SETTINGS in the provider block.
config() {
  printf 'terraform {\n'
  case $1 in *-http) printf '  backend "http" {\n    address = "%s/%s"\n  }\n' "$state_url" "$2" ;; esac
  printf '  required_providers {\n    mobileplan = { source = "mobileplan/mobileplan" }\n  }\n}\n'
  printf 'provider "mobileplan" {\n%s}\nresource "mobileplan_subscription" "x" {\n  count   = %d\n  plan_id = "plan_004"\n}\n' "${4:-}" "$3"
}
# made: creates the emulator answered with a subscription so far.
made() { grep -c 'POST /v1/subscriptions 200' "$emulator_log" || true; }
# in_state DIR CLI: the subscriptions DIR's state holds.
in_state() { "$2" -chdir="$1" state list 2>/dev/null | grep -c '^mobileplan_subscription' || true; }
# since LINE PATTERN: requests of the emulator's log after LINE matching PATTERN.
since() { tail -n +$(($1 + 1)) "$emulator_log" | grep -cE "$2" || true; }
providers_running() { pgrep -f "^$provider" >/dev/null; }

killed_rows=()
for row in $rows; do
  bin=$(cli "$row")
  for at in $moments; do
    step "$row: $n creates at $rate/s, the CLI killed at ${at}s"
    dir="$work/$row-$at"
    mkdir -p "$dir"
    config "$row" "$row-$at" "$n" "  max_requests_per_second = $rate"$'\n' >"$dir/main.tf"
    export TF_CLI_CONFIG_FILE="$work/plain.tfrc"
    case $row in *-http) "$bin" -chdir="$dir" init -input=false -plugin-dir="$work/mirror" >/dev/null ;; esac
    emulator_control POST /_emulator/reset # every eSIM free again
    before=$(made)
    "$bin" -chdir="$dir" apply -auto-approve -input=false -parallelism=10 >"$dir/killed.log" 2>&1 &
    cli_pid=$!
    sleep "$at"
    kill -KILL "$cli_pid" 2>/dev/null || { cat "$dir/killed.log" >&2; echo "the apply ended before the kill" >&2; exit 1; }
    wait "$cli_pid" 2>/dev/null || true
    # The killed run's provider sees its creates in flight through.
    for _ in $(seq 1 600); do providers_running || break; sleep 0.1; done
    killed_made=$(($(made) - before))
    killed_state=$(in_state "$dir" "$bin")
    line=$(wc -l <"$emulator_log")
    t=$(seconds_of "$bin" -chdir="$dir" apply -auto-approve -input=false -parallelism=10)
    pages=$(since "$line" 'GET /v1/subscriptions [0-9]')
    gets=$(since "$line" 'GET /v1/subscriptions/[^ ]+ [0-9]')
    posts=$(since "$line" 'POST /v1/subscriptions 200')
    after_state=$(in_state "$dir" "$bin")
    total=$((killed_made + posts))
    if [ "$after_state" -ne "$n" ] || [ "$total" -ne "$n" ]; then
      echo "after the next apply: $after_state in state and $total made for $n" >&2
      exit 1
    fi
    killed_rows+=("| $row | ${at} | $killed_made | $killed_state | $((killed_made - killed_state)) | $t | $pages | $gets | $posts | $total / $after_state |")
    echo "${killed_rows[-1]}"
  done
done

# The journal's cost: clean applies, with it and without, interleaved.
export TF_CLI_CONFIG_FILE="$work/timed.tfrc"
mkdir -p "$work/m"
for r in $(seq 1 "$rounds"); do
  for mode in on off; do
    step "A clean apply of $clean, journal $mode, round $r of $rounds"
    dir="$work/clean-$mode-$r"
    mkdir -p "$dir"
    config local "" "$clean" >"$dir/main.tf"
    emulator_control POST /_emulator/reset
    : >"$work/rss.txt"
    journal=on
    [ "$mode" = off ] && journal=off
    MOBILEPLAN_JOURNAL=$journal terraform -chdir="$dir" apply -auto-approve -input=false >/dev/null
    awk '{ s += $1 + $2 } END { printf "%.2f\n", s }' "$work/rss.txt" >>"$work/m/cpu.$mode"
    if [ "$mode" = on ]; then
      wc -c <"$dir/.terraform/mobileplan/default.journal" >>"$work/m/size.apply"
      MOBILEPLAN_JOURNAL=$journal terraform -chdir="$dir" plan -input=false -detailed-exitcode >/dev/null
      wc -c <"$dir/.terraform/mobileplan/default.journal" >>"$work/m/size.plan"
      MOBILEPLAN_JOURNAL=$journal terraform -chdir="$dir" plan -input=false -detailed-exitcode >/dev/null
      wc -c <"$dir/.terraform/mobileplan/default.journal" >>"$work/m/size.next"
    fi
  done
done
median() {
  sort -n "$1" | awk -v f="$2" '{ v[NR] = $1 } END { if (NR) printf f "\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
cpu_on=$(median "$work/m/cpu.on" %.2f)
cpu_off=$(median "$work/m/cpu.off" %.2f)
paste -d' ' "$work/m/cpu.on" "$work/m/cpu.off" | awk '{ printf "%.4f\n", $1 / $2 }' >"$work/m/ratio"
overhead=$(median "$work/m/ratio" %.4f | awk '{ printf "%.1f", ($1 - 1) * 100 }')
more_or_less=$(awk -v o="$overhead" 'BEGIN { if (o < 0) printf "%.1f%% less", -o; else printf "%.1f%% more", o }')
ratios=$(sort -n "$work/m/ratio" | awk '{ printf "%s%.2f", (NR > 1 ? ", " : ""), $1 }')
verdict=$(awk -v o="$overhead" 'BEGIN { print (o <= 5) ? "met" : "missed" }')

section() {
  echo "<!-- bench-recovery -->"
  echo "## Recovery after a kill (make bench-recovery)"
  echo
  echo "Made by \`make bench-recovery-results\` (tools/bench/recovery.sh) on $(date -u +%Y-%m-%d) at $rev: $(nproc) cores,"
  echo "$(terraform version | head -1), $("$tofu" version | grep -m1 OpenTofu). $n subscriptions paced at $rate requests a"
  echo "second, -parallelism=10, the CLI alone killed with SIGKILL; once its provider had seen its creates through,"
  echo "the next apply in the same working directory."
  echo
  echo "| CLI and state | killed at (s) | made | in state | left out | next apply (s) | its list pages | its single GETs | its creates | made / in state after |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${killed_rows[@]}"
  echo
  echo "A clean apply of $clean subscriptions, provider CPU (s), medians of $rounds interleaved rounds: with the journal"
  echo "$cpu_on, without it (MOBILEPLAN_JOURNAL=off) $cpu_off; each round's ratio, with to without: $ratios; their median,"
  echo "$more_or_less. Goal: at most 5% more: **$verdict**."
  echo "The journal after that apply: $(median "$work/m/size.apply" %d) bytes; after the refreshing plan that follows, which"
  echo "records what the state held: $(median "$work/m/size.plan" %d) bytes; after the next plan, whose start compacts it"
  echo "to what is still needed: $(median "$work/m/size.next" %d) bytes."
  echo "<!-- /bench-recovery -->"
}
section >"$work/section.md"
step "Results"
cat "$work/section.md"
if [ -n "$out" ]; then
  if grep -q '^<!-- bench-recovery -->$' "$out" 2>/dev/null; then
    awk -v f="$work/section.md" '/^<!-- bench-recovery -->$/ { while ((getline l < f) > 0) print l; skip = 1; next }
      /^<!-- \/bench-recovery -->$/ { skip = 0; next } !skip' "$out" >"$work/out.md"
    cp "$work/out.md" "$out"
  else
    { echo; cat "$work/section.md"; } >>"$out"
  fi
  echo "(written to $out)"
fi
[ "$verdict" = met ]
