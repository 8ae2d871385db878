#!/usr/bin/env bash
# make bench, Terraform level: what the provider costs next to three anchors,
# Terraform's built-in terraform_data (no plugin at all), the plugin floor
# (tools/bench/floorprovider: a framework provider that does nothing) and the
# same-schema floor (tools/bench/schemafloor: mobileplan_subscription's schema,
# answered from memory), measured in interleaved rounds, medians reported,
# CPU split into the provider's, Terraform's own and the emulator's; list reads against ceil(N/25)
# requests, peak memory reading 10,000 eSIMs, a refreshing plan against a
# rate-limited emulator with and without paged refresh, start-up to a served
# schema, a CPU profile of a refreshing plan, and the emulator's persistence
# figures.
# Prints the results; writes them to tools/bench/RESULTS.md only when asked
# (make bench-results, or BENCH_OUT=FILE).
#
# Knobs: BENCH_SIZES (default "500 1000"), BENCH_ROUNDS (default 3: five took
# the default run past 10 minutes on 2 cores, for medians that moved little),
# BENCH_RATE_CLI=1 (`make bench-rate`: the applies under a rate limit, alone
# and as pipelines sharing a token, with and without the quota fields;
# 5.5 minutes on 2 cores),
# BENCH_LIST_SIZE (default 10000), BENCH_PERSIST_PATTERN and
# BENCH_PERSIST_FLAGS (the emulator's Go benchmarks to run, see below),
# BENCH_RATE_SIZE, BENCH_RATE_NEWER, BENCH_RATE_LIMIT and BENCH_RATE_ROUNDS
# (the refresh under a rate limit: defaults 500, 100, 20 and 3),
# BENCH_BASELINES (git revisions, such as "main" or a commit: each one's
# provider is built from that revision and measured in the same rounds, as
# one more row of a table comparing the builds), BENCH_TABLES_ONLY=1 (only
# the tables against the anchors, for comparing builds quickly),
# BENCH_SCHEMA_WITHOUT (groups of attributes, comma-separated within a
# group, such as "plan_details,purchased_allowance timeouts": for each, the
# same-schema floor without them is measured in the same rounds, which is
# what they cost Terraform and the framework).
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
begin_script bench
export TF_IN_AUTOMATION=1
need go terraform awk free nproc
[ -x /usr/bin/time ] || { echo "tools/bench/run.sh needs GNU time at /usr/bin/time (Debian package: time) to measure peak memory" >&2; exit 1; }
sizes=${BENCH_SIZES:-"500 1000"}
rounds=${BENCH_ROUNDS:-3}
list_size=${BENCH_LIST_SIZE:-10000}
# The emulator's persistence goals: acknowledged creates/s with 10
# clients after 100,000 subscriptions on 200,000 eSIMs, and the restart of
# that state, from internal/emulator/persist_bench_test.go.
persist_pattern=${BENCH_PERSIST_PATTERN:-BenchmarkPersistence}
persist_flags=${BENCH_PERSIST_FLAGS:-}
# The refresh under a rate limit: rate_n subscriptions in state,
# rate_newer newer ones in the account, the emulator at rate_limit
# requests/s per token; rate_rounds plans of each kind, medians reported.
rate_n=${BENCH_RATE_SIZE:-500}
rate_newer=${BENCH_RATE_NEWER:-100}
rate_limit=${BENCH_RATE_LIMIT:-20}
rate_rounds=${BENCH_RATE_ROUNDS:-3}
out=${BENCH_OUT:-$work/RESULTS.md}
largest=$(tr ' ' '\n' <<<"$sizes" | sort -n | tail -1)
most_esims=$largest

step "Building"
# The revision ours is built from, read before the run writes any file.
ours_rev="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo '+changes')"
build_binaries
release_build "$work/floorbin/terraform-provider-floor" ./tools/bench/floorprovider
release_build "$work/schemabin/terraform-provider-mobileplan" ./tools/bench/schemafloor
# Each baseline, from its revision's tree (git archive: no worktree, no
# checkout), built against the module cache as the current tree is.
baselines=()
for rev in ${BENCH_BASELINES:-}; do
  i=$((${#baselines[@]} + 1))
  mkdir -p "$work/base$i-src"
  git archive "$rev" | tar -x -C "$work/base$i-src"
  (cd "$work/base$i-src" && release_build "$work/base${i}bin/terraform-provider-mobileplan" .)
  baselines+=("$rev")
done
# Wrappers that append the provider's CPU time (user and system, s) and
# peak RSS (KiB) to rss.txt when it exits, one line per provider process.
# Every measured provider runs through one, so all pay its exec.
rss_wrapper() { # rss_wrapper DIR BINARY [VAR=VALUE...]: the binary run with those variables set
  local dir=$1 binary=$2
  shift 2
  mkdir -p "$work/$dir"
  printf '#!/bin/sh\nexec env %s /usr/bin/time -f "%%U %%S %%M" -a -o "%s" "%s" "$@"\n' "$*" "$work/rss.txt" "$binary" >"$work/$dir/$(basename "$binary")"
  chmod +x "$work/$dir/$(basename "$binary")"
}
rss_wrapper rssbin "$work/bin/terraform-provider-mobileplan"
rss_wrapper rssfloor "$work/floorbin/terraform-provider-floor"
rss_wrapper rssschema "$work/schemabin/terraform-provider-mobileplan"
for i in $(seq 1 ${#baselines[@]}); do rss_wrapper "rssbase$i" "$work/base${i}bin/terraform-provider-mobileplan"; done
read -r -a without <<<"${BENCH_SCHEMA_WITHOUT:-}"
for i in $(seq 1 ${#without[@]}); do
  rss_wrapper "rssminus$i" "$work/schemabin/terraform-provider-mobileplan" "MOBILEPLAN_FLOOR_WITHOUT=${without[$((i - 1))]}"
done
# The timed runs reach every provider through its wrapper; the profile
# run reaches ours directly.
{
  printf 'provider_installation {\n  dev_overrides {\n'
  printf '    "mobileplan/mobileplan" = "%s"\n    "bench/floor" = "%s"\n    "bench/mobileplan" = "%s"\n' "$work/rssbin" "$work/rssfloor" "$work/rssschema"
  for i in $(seq 1 ${#baselines[@]}); do printf '    "baseline%d/mobileplan" = "%s"\n' "$i" "$work/rssbase$i"; done
  for i in $(seq 1 ${#without[@]}); do printf '    "benchminus%d/mobileplan" = "%s"\n' "$i" "$work/rssminus$i"; done
  printf '  }\n  direct {}\n}\n'
} >"$work/timed.tfrc"
printf 'provider_installation {\n  dev_overrides {\n    "mobileplan/mobileplan" = "%s"\n  }\n  direct {}\n}\n' "$work/bin" >"$work/bin.tfrc"

# seconds CMD...: wall time of a command, its output discarded; its CPU
# time and its children's (the providers') go to cpu.txt.
seconds() {
  local t0=$EPOCHREALTIME
  /usr/bin/time -f "%U %S" -o "$work/cpu.txt" "$@" >"$work/last.log" 2>&1 || { cat "$work/last.log" >&2; return 1; }
  awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "" || b == 0) print "–"; else printf "%.2f", a / b }'; }
# median FILE FORMAT: the median of the numbers in FILE (one a line), printed
# with the awk FORMAT.
median() {
  sort -n "$1" | awk -v f="$2" '{ v[NR] = $1 }
    END { if (NR) printf f "\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
mb() { awk -v k="$1" 'BEGIN { if (k == "") print ""; else printf "%.1f", k / 1024 }'; }
verdict() { awk -v v="$1" -v goal="$2" 'BEGIN { print (v != "" && v <= goal) ? "met" : "missed" }'; }
# requests METHOD PATH: how many the emulator logged for exactly that path.
requests() { grep -c " $1 $2 [0-9]" "$emulator_log" || true; }
peak_rss() { awk '$3 > m { m = $3 } END { if (NR) print m }' "$work/rss.txt"; }
# CPU seconds the run's provider processes used, and Terraform itself (the
# run's CPU time less theirs): unlike wall times, these hardly move when
# other work shares the machine.
provider_cpu() { awk '{ s += $1 + $2 } END { printf "%.2f\n", s }' "$work/rss.txt"; }
terraform_cpu() { awk -v p="$(provider_cpu)" '{ printf "%.2f\n", $1 + $2 - p }' "$work/cpu.txt"; }

export TF_CLI_CONFIG_FILE="$work/timed.tfrc"
# One emulator for every size, emptied before each of our applies.
start_emulator -esims $((most_esims + 100)) -quiet
export MOBILEPLAN_BASE_URL="$base_url" MOBILEPLAN_API_TOKEN="$token"

# ours and each baseline (base1, base2, ...) are the provider; schema is
# the same-schema floor, whose configuration is ours with its source. Ours
# comes last: the profile below plans what it applied, which the emulator
# keeps until the next reset.
systems="data floor schema"
for i in $(seq 1 ${#without[@]}); do systems+=" minus$i"; done
for i in $(seq 1 ${#baselines[@]}); do systems+=" base$i"; done
systems+=" ours"
# config SYSTEM N: the configuration of N resources of SYSTEM.
config() {
  local source=mobileplan/mobileplan
  case $1 in
    data) printf 'resource "terraform_data" "x" {\n  count = %d\n  input = count.index\n}\n' "$2"; return ;;
    floor) printf 'terraform {\n  required_providers {\n    floor = { source = "bench/floor" }\n  }\n}\nresource "floor_resource" "x" {\n  count    = %d\n  triggers = { index = count.index }\n}\n' "$2"; return ;;
    schema) source=bench/mobileplan ;;
    base*) source=baseline${1#base}/mobileplan ;;
    minus*) source=benchminus${1#minus}/mobileplan ;;
  esac
  printf 'terraform {\n  required_providers {\n    mobileplan = { source = "%s" }\n  }\n}\nprovider "mobileplan" {}\nresource "mobileplan_subscription" "x" {\n  count   = %d\n  plan_id = "plan_004"\n}\n' "$source" "$2"
}
# label SYSTEM: how the tables name it.
label() {
  case $1 in
    data) echo terraform_data ;;
    floor) echo "plugin floor" ;;
    schema) echo "same-schema floor" ;;
    ours) echo "ours ($ours_rev)" ;;
    base*) echo "ours at ${baselines[$((${1#base} - 1))]}" ;;
    minus*) echo "same-schema floor without ${without[$((${1#minus} - 1))]//,/, }" ;;
  esac
}
# emulator_cpu: CPU seconds the emulator has used so far, user and system.
clk_tck=$(getconf CLK_TCK)
emulator_cpu() { awk -v hz="$clk_tck" '{ printf "%.2f\n", ($14 + $15) / hz }' "/proc/$emulator_pid/stat"; }

# One round of SYSTEM at N: an apply from empty state, then a refreshing
# plan of what it applied, which must find nothing to change
# (-detailed-exitcode fails the run otherwise). Times, CPU, peak RSS and
# state size go to files under $work/m, one value a line per round.
round() {
  local sys=$1 n=$2 dir="$work/$1$2" m="$work/m/$1.$2" emu
  mkdir -p "$dir" "$work/m"
  [ -f "$dir/main.tf" ] || config "$sys" "$n" >"$dir/main.tf"
  rm -f "$dir/terraform.tfstate" "$dir/terraform.tfstate.backup"
  case $sys in ours | base*) emulator_control POST /_emulator/reset ;; esac
  : >"$work/rss.txt"
  emu=$(emulator_cpu)
  seconds terraform -chdir="$dir" apply -auto-approve -input=false >>"$m.apply"
  echo >>"$m.apply"
  terraform_cpu >>"$m.apply-tfcpu"
  awk -v a="$emu" -v b="$(emulator_cpu)" 'BEGIN { printf "%.2f\n", b - a }' >>"$m.apply-emucpu"
  [ "$sys" = data ] || { peak_rss >>"$m.apply-rss"; provider_cpu >>"$m.apply-cpu"; : >"$work/rss.txt"; }
  emu=$(emulator_cpu)
  seconds terraform -chdir="$dir" plan -input=false -detailed-exitcode >>"$m.plan"
  echo >>"$m.plan"
  terraform_cpu >>"$m.plan-tfcpu"
  awk -v a="$emu" -v b="$(emulator_cpu)" 'BEGIN { printf "%.2f\n", b - a }' >>"$m.plan-emucpu"
  [ "$sys" = data ] || { peak_rss >>"$m.plan-rss"; provider_cpu >>"$m.plan-cpu"; }
  echo $(($(wc -c <"$dir/terraform.tfstate") / n)) >>"$m.state"
}

# row LABEL DATA FLOOR SCHEMA OURS: a table row with ours' ratios to both
# floors, and the same-schema floor's to the plugin floor.
row() {
  printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$1" "${2:-–}" "${3:-–}" "${4:-–}" "${5:-–}" \
    "$(ratio "$5" "$3")" "$(ratio "$5" "$4")" "$(ratio "$4" "$3")"
}
# sum A B: A + B, empty when either is.
sum() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "" || b == "") print ""; else printf "%.2f", a + b }'; }
diff_s() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.2f", a - b }'; }

tables=()
builds=()
for n in $sizes; do
  for r in $(seq 1 "$rounds"); do
    step "N=$n, round $r of $rounds: $systems"
    for sys in $systems; do round "$sys" "$n"; done
  done
  if [ "$n" = "$largest" ]; then
    step "N=$n: CPU profile of the provider during a refreshing plan"
    TF_CLI_CONFIG_FILE="$work/bin.tfrc" MOBILEPLAN_CPU_PROFILE="$work/cpu.pprof" terraform -chdir="$work/ours$n" plan -input=false >/dev/null
    go tool pprof -top -nodecount=20 "$work/bin/terraform-provider-mobileplan" "$work/cpu.pprof" 2>/dev/null >"$work/pprof.txt" || true
    go tool pprof -top -cum "$work/bin/terraform-provider-mobileplan" "$work/cpu.pprof" 2>/dev/null >"$work/pprof-cum.txt" || true
  fi
  declare -A med=()
  for sys in $systems; do
    for k in plan apply plan-cpu apply-cpu plan-tfcpu apply-tfcpu plan-emucpu apply-emucpu plan-rss apply-rss state; do
      f="$work/m/$sys.$n.$k"
      [ -f "$f" ] || continue
      case $k in *rss | state) med[$sys.$k]=$(median "$f" %d) ;; *) med[$sys.$k]=$(median "$f" %.2f) ;; esac
    done
  done
  plan_ratio=$(ratio "${med[ours.plan]}" "${med[floor.plan]}")
  apply_ratio=$(ratio "${med[ours.apply]}" "${med[floor.apply]}")
  plan_schema_ratio=$(ratio "${med[ours.plan]}" "${med[schema.plan]}")
  apply_schema_ratio=$(ratio "${med[ours.apply]}" "${med[schema.apply]}")
  tables+=("$(
    echo "| N=$n | terraform_data | plugin floor | same-schema floor | ours | ours / plugin floor | ours / same-schema floor | same-schema floor / plugin floor |"
    echo "|---|---|---|---|---|---|---|---|"
    row "refreshing plan (s)" "${med[data.plan]}" "${med[floor.plan]}" "${med[schema.plan]}" "${med[ours.plan]}"
    row "apply (s)" "${med[data.apply]}" "${med[floor.apply]}" "${med[schema.apply]}" "${med[ours.apply]}"
    row "provider CPU, refreshing plan (s)" "" "${med[floor.plan-cpu]}" "${med[schema.plan-cpu]}" "${med[ours.plan-cpu]}"
    row "provider CPU, apply (s)" "" "${med[floor.apply-cpu]}" "${med[schema.apply-cpu]}" "${med[ours.apply-cpu]}"
    row "Terraform's own CPU, refreshing plan (s)" "${med[data.plan-tfcpu]}" "${med[floor.plan-tfcpu]}" "${med[schema.plan-tfcpu]}" "${med[ours.plan-tfcpu]}"
    row "Terraform's own CPU, apply (s)" "${med[data.apply-tfcpu]}" "${med[floor.apply-tfcpu]}" "${med[schema.apply-tfcpu]}" "${med[ours.apply-tfcpu]}"
    row "emulator CPU, refreshing plan (s)" "" "" "" "${med[ours.plan-emucpu]}"
    row "emulator CPU, apply (s)" "" "" "" "${med[ours.apply-emucpu]}"
    row "provider peak RSS, refreshing plan (MB)" "" "$(mb "${med[floor.plan-rss]}")" "$(mb "${med[schema.plan-rss]}")" "$(mb "${med[ours.plan-rss]}")"
    row "provider peak RSS, apply (MB)" "" "$(mb "${med[floor.apply-rss]}")" "$(mb "${med[schema.apply-rss]}")" "$(mb "${med[ours.apply-rss]}")"
    row "state per resource (B)" "${med[data.state]}" "${med[floor.state]}" "${med[schema.state]}" "${med[ours.state]}"
    echo
    for op in plan apply; do
      name="refreshing plan"
      [ $op = apply ] && name=apply
      echo "CPU over the plugin floor, $name: the schema $(diff_s "$(sum "${med[schema.$op-cpu]}" "${med[schema.$op-tfcpu]}")" "$(sum "${med[floor.$op-cpu]}" "${med[floor.$op-tfcpu]}")") s" \
        "(Terraform $(diff_s "${med[schema.$op-tfcpu]}" "${med[floor.$op-tfcpu]}"), framework $(diff_s "${med[schema.$op-cpu]}" "${med[floor.$op-cpu]}"));" \
        "ours over the same-schema floor $(diff_s "$(sum "${med[ours.$op-cpu]}" "${med[ours.$op-tfcpu]}")" "$(sum "${med[schema.$op-cpu]}" "${med[schema.$op-tfcpu]}")") s" \
        "(Terraform $(diff_s "${med[ours.$op-tfcpu]}" "${med[schema.$op-tfcpu]}"), provider $(diff_s "${med[ours.$op-cpu]}" "${med[schema.$op-cpu]}"))," \
        "and the emulator's ${med[ours.$op-emucpu]} s."
      echo
    done
    echo "Goals at N=$n: refreshing plan at most 1.6x the plugin floor: **$(verdict "$plan_ratio" 1.6)** (${plan_ratio}x);" \
      "apply at most 1.8x the plugin floor: **$(verdict "$apply_ratio" 1.8)** (${apply_ratio}x);" \
      "both at most 1.15x the same-schema floor: plan **$(verdict "$plan_schema_ratio" 1.15)** (${plan_schema_ratio}x)," \
      "apply **$(verdict "$apply_schema_ratio" 1.15)** (${apply_schema_ratio}x)."
    if [ "$n" = "$largest" ]; then
      rss=$(mb "$(printf '%s\n%s\n' "${med[ours.plan-rss]}" "${med[ours.apply-rss]}" | sort -n | tail -1)")
      echo "Provider peak RSS at most 120 MB at N=$n: **$(verdict "$rss" 120)** ($rss MB)."
    fi
  )")
  if [ ${#baselines[@]} -gt 0 ] || [ ${#without[@]} -gt 0 ]; then
    builds+=("$(
      echo "| N=$n | refreshing plan (s) | apply (s) | plan / plugin floor | apply / plugin floor | plan / same-schema floor | apply / same-schema floor | provider CPU, plan / apply (s) | Terraform's own CPU, plan / apply (s) | emulator CPU, plan / apply (s) | state per resource (B) |"
      echo "|---|---|---|---|---|---|---|---|---|---|---|"
      for sys in $systems; do
        [ "$sys" = data ] && continue
        echo "| $(label "$sys") | ${med[$sys.plan]} | ${med[$sys.apply]} | $(ratio "${med[$sys.plan]}" "${med[floor.plan]}") | $(ratio "${med[$sys.apply]}" "${med[floor.apply]}") |" \
          "$(ratio "${med[$sys.plan]}" "${med[schema.plan]}") | $(ratio "${med[$sys.apply]}" "${med[schema.apply]}") |" \
          "${med[$sys.plan-cpu]} / ${med[$sys.apply-cpu]} | ${med[$sys.plan-tfcpu]} / ${med[$sys.apply-tfcpu]} | ${med[$sys.plan-emucpu]:-–} / ${med[$sys.apply-emucpu]:-–} | ${med[$sys.state]} |"
      done
    )")
  fi
  unset med
done

# anchor_tables: the results' heading and the tables against the anchors.
anchor_tables() {
  local cpu
  cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
  echo "# Benchmark results"
  echo
  echo "Made by \`make bench-results\` (tools/bench/run.sh) on $(date -u +%Y-%m-%d): $(nproc) cores ($cpu), $(free -g | awk '/Mem:/ {print $2}') GiB,"
  echo "$(terraform version | head -1), $(go version | cut -d' ' -f3). Wall times in seconds, medians of $rounds"
  echo "interleaved rounds (each round: $(for sys in $systems; do label "$sys"; done | paste -sd';' - | sed 's/;/; /g'); an apply from empty state, then a"
  echo "refreshing plan of it). Peak RSS and CPU time are the provider processes', as GNU time reports them;"
  echo "Terraform's own CPU is the run's less its providers'; the emulator's is read from /proc. CPU times hardly"
  echo "change with other load on the machine, wall times do: load average when this run ended: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "Every provider, the floors and baselines too, is built as our releases build (scripts/lib.sh release_build)."
  if [ ${#baselines[@]} -gt 0 ] || [ ${#without[@]} -gt 0 ]; then
    echo
    echo "Knobs of this run: BENCH_BASELINES=\"${baselines[*]}\" BENCH_SCHEMA_WITHOUT=\"${without[*]}\"."
  fi
  echo
  echo "## mobileplan_subscription against terraform_data and the two floors"
  echo
  echo "terraform_data is built into Terraform: no plugin, no RPC. The plugin floor (tools/bench/floorprovider) is a"
  echo "provider on the same plugin framework that does nothing: one resource with an id and a triggers map, like"
  echo "null_resource, no network, SDK loggers off as ours are. The same-schema floor (tools/bench/schemafloor) is"
  echo "the same on mobileplan_subscription's schema, taken from the provider: every attribute, plan modifier,"
  echo "validator and the identity, state values as large as ours (from a recorded subscription), answered from"
  echo "memory, without package fastpath's short cuts or the provider's GC settings: what any framework provider of"
  echo "this schema costs. The plugin floor to the same-schema floor is what the schema costs Terraform and the"
  echo "framework; the same-schema floor to ours is ours, the emulator's work for our requests included in wall times."
  for t in "${tables[@]}"; do
    echo
    echo "$t"
  done
  if [ ${#builds[@]} -gt 0 ]; then
    echo
    echo "## Builds and floors compared in the same rounds"
    echo
    echo "Each \"ours at\" is the provider built from that revision (BENCH_BASELINES); each \"without\" the same-schema"
    echo "floor with those attributes left out (BENCH_SCHEMA_WITHOUT), what they cost Terraform and the framework;"
    echo "all measured in the rounds above."
    for t in "${builds[@]}"; do
      echo
      echo "$t"
    done
  fi
}

if [ "${BENCH_TABLES_ONLY:-}" = 1 ]; then
  anchor_tables >"$out"
  step "Results"
  cat "$out"
  [ -n "${BENCH_OUT:-}" ] && echo "(written to $out)"
  exit 0
fi

step "Reading $list_size eSIMs through terraform plan"
stop_emulator
start_emulator -esims "$list_size" # not -quiet: its request log is counted
export MOBILEPLAN_BASE_URL="$base_url" MOBILEPLAN_API_TOKEN="$token"
mkdir -p "$work/list"
printf '%s\ndata "mobileplan_esims" "all" {}\noutput "n" { value = length(data.mobileplan_esims.all.iccids) }\n' \
  "$(config ours 0 | sed '/^resource/,$d')" >"$work/list/main.tf"
: >"$work/rss.txt"
list_time=$(seconds terraform -chdir="$work/list" plan -input=false)
list_requests=$(requests GET /v1/esims)
list_expected=$(((list_size + 24) / 25))
peak_mb=$(mb "$(peak_rss)")
stop_emulator

# A refreshing plan of rate_n subscriptions whose account holds rate_newer
# newer ones made outside the configuration, against the emulator unlimited
# and then limited to rate_limit requests/s per token: paged_refresh on
# (the default) and off. The state is made once, with the emulator
# unlimited and keeping it in a file, which the limited emulator then
# starts from.
step "Refresh of $rate_n subscriptions under $rate_newer newer ones, unlimited and at $rate_limit requests/s"
stop_emulator
start_emulator -esims $((rate_n + rate_newer)) -state "$work/rate.db"
export MOBILEPLAN_BASE_URL="$base_url" MOBILEPLAN_API_TOKEN="$token"
mkdir -p "$work/rate-on" "$work/rate-off" "$work/rate-newer"
config ours "$rate_n" >"$work/rate-on/main.tf"
config ours "$rate_n" | sed 's/^provider "mobileplan" {}$/provider "mobileplan" {\n  paged_refresh = false\n}/' >"$work/rate-off/main.tf"
config ours "$rate_newer" >"$work/rate-newer/main.tf"
terraform -chdir="$work/rate-on" apply -auto-approve -input=false >/dev/null
cp "$work/rate-on/terraform.tfstate" "$work/rate-off/"
terraform -chdir="$work/rate-newer" apply -auto-approve -input=false >/dev/null
# rate_plan MODE LIMIT: one refreshing plan of rate-MODE, which must find
# nothing to change; its wall time, /v1 requests and 429 answers, from the
# emulator's request log, go to $work/m/rate.MODE.LIMIT.*. A plan that
# fails (retries used up on 429s) is recorded as such, not fatal.
rate_plan() {
  local m="$work/m/rate.$1.$2" before t
  before=$(wc -l <"$emulator_log")
  sleep 1.1 # a full bucket for each plan
  if t=$(seconds terraform -chdir="$work/rate-$1" plan -input=false -detailed-exitcode); then
    echo "$t" >>"$m.time"
  else
    echo "failed" >>"$m.failed"
  fi
  tail -n +$((before + 1)) "$emulator_log" | grep -c ' /v1/' >>"$m.requests" || true
  tail -n +$((before + 1)) "$emulator_log" | grep -c ' /v1/[^ ]* 429 ' >>"$m.limited" || true
}
mkdir -p "$work/m"
for r in $(seq 1 "$rate_rounds"); do
  step "unlimited, round $r of $rate_rounds"
  for mode in on off; do rate_plan "$mode" unlimited; done
done
stop_emulator
start_emulator -state "$work/rate.db" -rate-limit "$rate_limit"
export MOBILEPLAN_BASE_URL="$base_url" MOBILEPLAN_API_TOKEN="$token"
for r in $(seq 1 "$rate_rounds"); do
  step "$rate_limit requests/s, round $r of $rate_rounds"
  for mode in on off; do rate_plan "$mode" limited; done
done
stop_emulator
# rate_cell MODE LIMIT KIND: the median of a measure, "failed" when a plan
# of that kind failed.
rate_cell() {
  local f="$work/m/rate.$1.$2.$3"
  if [ "$3" = time ] && [ -s "$work/m/rate.$1.$2.failed" ]; then
    echo "failed ($(wc -l <"$work/m/rate.$1.$2.failed") of $rate_rounds)"
  elif [ -s "$f" ]; then
    case $3 in time) median "$f" %.2f ;; *) median "$f" %d ;; esac
  fi
}
rate_goal_requests=$(((rate_n + rate_newer + 24) / 25 + 10))
rate_on_time=$(rate_cell on limited time)
rate_base_time=$(rate_cell on unlimited time)
rate_time_ratio=$(ratio "$rate_on_time" "$rate_base_time")
rate_on_requests=$(rate_cell on limited requests)

# Applies of creates under a rate limit the provider is not told of: the
# emulator at LIMIT requests/s per token, Terraform at -parallelism PAR.
# Requests and 429 answers come from the emulator's log; the floor is the
# least time the limit allows for the requests that succeeded (plan and
# apply both), less the first second's burst.
# quota_floor OK LIMIT [WINDOW]: the least time the quota allows for OK
# requests that succeeded. A bucket of LIMIT a second: all but its first
# burst wait for the refill. A fixed window of LIMIT × WINDOW: the last
# window they need starts that many windows after the first.
quota_floor() {
  awk -v ok="$1" -v r="$2" -v w="${3%s}" 'BEGIN {
    if (w != "") { q = int(r * w + 0.5); printf "%.2f", int((ok - 1) / q) * w; exit }
    b = int(r); if (b < r) b++; printf "%.2f", (ok - b) / r }'
}
limited_rows=()
limited_apply() { # limited_apply N LIMIT PAR [FIELDS [WINDOW]]
  local n=$1 limit=$2 par=$3 fields=${4:-} window=${5:-} dir="$work/limited-$1-$2-${4:-none}-${5:-bucket}" t requests limited floor result=ok shape
  shape=${window:+, a fixed window of $window}
  step "Apply of $n creates at $limit requests/s$shape, -parallelism=$par${fields:+, quota fields $fields}"
  stop_emulator
  # the default data set assigns some eSIMs
  start_emulator -esims $((n * 2 + 20)) -rate-limit "$limit" ${window:+-rate-limit-window "$window"} ${fields:+-quota-fields "$fields"}
  export MOBILEPLAN_BASE_URL="$base_url" MOBILEPLAN_API_TOKEN="$token"
  mkdir -p "$dir"
  config ours "$n" >"$dir/main.tf"
  if ! t=$(seconds terraform -chdir="$dir" apply -auto-approve -input=false -parallelism="$par"); then
    result=failed
  fi
  requests=$(grep -c ' /v1/' "$emulator_log" || true)
  limited=$(grep -c ' /v1/[^ ]* 429 ' "$emulator_log" || true)
  floor=$(quota_floor $((requests - limited)) "$limit" "$window")
  limited_rows+=("| $n creates at $limit requests/s$shape, -parallelism=$par${fields:+, quota fields $fields} | $result | $requests | $limited | $t | $floor | $(ratio "$t" "$floor") |")
  stop_emulator
}
# Each again with the quota fields the service may send (the emulator's
# -quota-fields): the provider then never needs a refusal to find the limit.
# And a fixed window of 50 per 10 s, as many APIs count, with each form of
# the fields and none.
if [ "${BENCH_RATE_CLI:-}" = 1 ]; then
  for fields in "" ietf; do
    limited_apply 200 20 10 "$fields"
    limited_apply 100 5 30 "$fields"
    limited_apply 40 1 10 "$fields"
  done
  for fields in "" ietf x-ratelimit; do
    limited_apply 100 5 10 "$fields" 10s
  done
fi

# Pipelines sharing one token: P applies of N creates each, started
# together against the emulator at LIMIT requests/s, each with its own
# provider processes and so its own pace, as CI pipelines of one account
# are; CEILING, when given, is each one's max_requests_per_second. The
# floor is the least time the limit allows for every pipeline's requests
# that succeeded; the spread is how much later the last pipeline finished
# than the first.
pipeline_rows=()
pipelines_apply() { # pipelines_apply P N LIMIT [CEILING [FIELDS [WINDOW]]]
  local p=$1 n=$2 limit=$3 ceiling=${4:-} fields=${5:-} window=${6:-} i dir t0 requests limited floor failed=0 first last pids=() shape
  shape=${window:+, a fixed window of $window}
  step "$p pipelines of $n creates at $limit requests/s$shape${ceiling:+, max_requests_per_second = $ceiling}${fields:+, quota fields $fields}"
  stop_emulator
  start_emulator -esims $((p * n * 2 + 20)) -rate-limit "$limit" ${window:+-rate-limit-window "$window"} ${fields:+-quota-fields "$fields"}
  export MOBILEPLAN_BASE_URL="$base_url" MOBILEPLAN_API_TOKEN="$token"
  t0=$EPOCHREALTIME
  for i in $(seq 1 "$p"); do
    dir="$work/pipelines-$p-$n-$limit-${ceiling:-none}-${fields:-none}-${window:-bucket}-$i"
    mkdir -p "$dir"
    config ours "$n" | sed "s/^provider \"mobileplan\" {}$/provider \"mobileplan\" {${ceiling:+\\n  max_requests_per_second = $ceiling\\n}}/" >"$dir/main.tf"
    (
      result=ok
      terraform -chdir="$dir" apply -auto-approve -input=false >"$dir/apply.log" 2>&1 || result=failed
      awk -v a="$t0" -v b="$EPOCHREALTIME" -v r="$result" 'BEGIN { printf "%.2f %s\n", b - a, r }' >"$dir/finished"
    ) &
    pids+=($!)
  done
  wait "${pids[@]}" # not the emulator, also a child
  for i in $(seq 1 "$p"); do
    read -r t result <"$work/pipelines-$p-$n-$limit-${ceiling:-none}-${fields:-none}-${window:-bucket}-$i/finished"
    [ "$result" = ok ] || failed=$((failed + 1))
    first=$(awk -v a="${first:-$t}" -v b="$t" 'BEGIN { print (b < a) ? b : a }')
    last=$(awk -v a="${last:-$t}" -v b="$t" 'BEGIN { print (b > a) ? b : a }')
  done
  requests=$(grep -c ' /v1/' "$emulator_log" || true)
  limited=$(grep -c ' /v1/[^ ]* 429 ' "$emulator_log" || true)
  floor=$(quota_floor $((requests - limited)) "$limit" "$window")
  pipeline_rows+=("| $p × $n creates at $limit requests/s$shape${ceiling:+, max_requests_per_second = $ceiling}${fields:+, quota fields $fields} | $failed | $requests | $limited ($(awk -v l="$limited" -v r="$requests" 'BEGIN { printf "%.0f%%", 100 * l / r }')) | $first | $last | $floor | $(ratio "$last" "$floor") | $(awk -v a="$last" -v b="$first" 'BEGIN { printf "%.0f%%", 100 * (a / b - 1) }') |")
  stop_emulator
}
if [ "${BENCH_RATE_CLI:-}" = 1 ]; then
  pipelines_apply 3 40 5
  pipelines_apply 3 10 1
  pipelines_apply 3 40 5 1.6
  pipelines_apply 3 40 5 "" ietf
  pipelines_apply 3 40 5 "" x-ratelimit
  for fields in "" ietf x-ratelimit; do
    pipelines_apply 3 40 5 "" "$fields" 10s
  done
fi

step "Provider start-up to a served schema"
startup=$(go run ./tools/bench/startup -provider "$work/bin/terraform-provider-mobileplan" -n 20)
schema_ms=$(sed -n 's/.*schema_ms=\([0-9.]*\).*/\1/p' <<<"$startup")

persist_rows=()
if [ -n "$persist_pattern" ]; then
  step "Emulator persistence: go test -bench '$persist_pattern' ./internal/emulator/"
  # shellcheck disable=SC2086 # the flags are words on purpose
  go test -run '^$' -bench "$persist_pattern" $persist_flags ./internal/emulator/ >"$work/persist.txt"
  # Every value and unit a matching benchmark reports (ns/op, creates/s,
  # s/restart, ...), one row each; the iteration count is left out.
  mapfile -t persist_rows < <(awk '/^Benchmark/ { name = $1; sub(/-[0-9]+$/, "", name)
    for (i = 3; i < NF; i += 2) printf "| %s | %s %s |\n", name, $i, $(i + 1) }' "$work/persist.txt")
  [ ${#persist_rows[@]} -gt 0 ] || persist_rows=("| no benchmark matched \`$persist_pattern\` in internal/emulator | – |")
else
  persist_rows=(
    "| creates/s at 100k subscriptions, 10 clients | not measured: BENCH_PERSIST_PATTERN is empty |"
    "| restart with 100k subscriptions (s) | not measured: BENCH_PERSIST_PATTERN is empty |"
  )
fi

# kept_section NAME TITLE SCRIPT: the section between NAME's markers in
# tools/bench/RESULTS.md, which SCRIPT (make NAME-results) writes, kept as
# it is; a placeholder before it ran.
kept_section() {
  local section
  section=$(awk "/^<!-- $1 -->\$/,/^<!-- \\/$1 -->\$/" tools/bench/RESULTS.md 2>/dev/null || true)
  if [ -n "$section" ]; then
    printf '%s\n' "$section"
  else
    echo "<!-- $1 -->"
    echo "## $2"
    echo
    echo "Not measured yet: \`make $1-results\` ($3) measures it and writes it here."
    echo "<!-- /$1 -->"
  fi
}
growth_section=$(kept_section bench-growth "One workspace, growing, per CLI and state backend" tools/bench/growth.sh)
recovery_section=$(kept_section bench-recovery "Recovery after a kill (make bench-recovery)" tools/bench/recovery.sh)
{
  anchor_tables
  echo
  printf '%s\n\n%s\n' "$growth_section" "$recovery_section"
  echo
  echo "## List data sources and start-up"
  echo
  echo "| measure | value | goal | verdict |"
  echo "|---|---|---|---|"
  echo "| requests to read $list_size eSIMs | $list_requests | ceil($list_size/25) = $list_expected | $([ "$list_requests" = "$list_expected" ] && echo met || echo missed) |"
  echo "| wall time of \`terraform plan\` reading them | ${list_time} s | under 5 s | $(verdict "$list_time" 5) |"
  echo "| provider peak RSS during that plan | ${peak_mb} MB | under 100 MB | $(verdict "$peak_mb" 100) |"
  echo "| provider start-up to schema served (median of 20) | ${schema_ms} ms | under 50 ms | $(verdict "$schema_ms" 50) |"
  echo
  echo "## Refresh under a rate limit"
  echo
  echo "A refreshing plan (\`terraform plan\`, which must find nothing to change) of $rate_n subscriptions in state, with"
  echo "$rate_newer newer subscriptions in the account that the configuration does not manage, against the emulator"
  echo "unlimited and limited to $rate_limit requests/s (\`-rate-limit $rate_limit\`: a token bucket of $rate_limit, answering 429 with"
  echo "Retry-After). \`paged_refresh\` on (the default: the list's pages, 25 subscriptions each, and a GET for what they"
  echo "did not bring) and off (one GET each). Medians of $rate_rounds rounds; requests are every /v1 request of the plan,"
  echo "429 answers and their retries included. The working directories remember the state's size from the apply that"
  echo "made it (.terraform/mobileplan), so the scan pays in advance for its pages; without that, Reads that Terraform"
  echo "sends from deep in the newest-first list may take their own GETs before the pages reach them, up to 10 more."
  echo
  echo "| emulator | paged_refresh | wall time (s) | requests | answered 429 |"
  echo "|---|---|---|---|---|"
  for limit in unlimited limited; do
    label=unlimited
    [ "$limit" = limited ] && label="$rate_limit requests/s"
    for mode in on off; do
      echo "| $label | $mode | $(rate_cell "$mode" "$limit" time) | $(rate_cell "$mode" "$limit" requests) | $(rate_cell "$mode" "$limit" limited) |"
    done
  done
  echo
  echo "Goals at $rate_limit requests/s with paged_refresh on: at most ceil($((rate_n + rate_newer))/25) + 10 = $rate_goal_requests requests:" \
    "**$(verdict "$rate_on_requests" "$rate_goal_requests")** ($rate_on_requests); at most 3x the unlimited plan's time:" \
    "**$(verdict "$rate_time_ratio" 3)** (${rate_time_ratio}x)."
  echo
  if [ "${BENCH_RATE_CLI:-}" != 1 ]; then
    echo "## Applies under a rate limit, and pipelines sharing one token"
    echo
    echo "Not measured in this run: \`make bench-rate\` (or BENCH_RATE_CLI=1) measures them."
    echo
  else
    echo "## Applies under a rate limit"
    echo
    echo "An apply from empty state against the emulator limited to a rate the provider is not told of (\`-rate-limit\`,"
    echo "a token bucket whose burst is its rate). Requests are every /v1 request of the run, plan and apply, 429 answers"
    echo "included; the floor is the least time the limit allows: requests that succeeded, less the burst, divided by the rate."
    echo "One run each. The same workloads on a clock the tests control: internal/client/pace_test.go."
    echo
    echo "| workload | result | requests | answered 429 | wall time (s) | floor (s) | wall / floor |"
    echo "|---|---|---|---|---|---|---|"
    printf '%s\n' "${limited_rows[@]}"
    echo
    echo "## Pipelines sharing one token"
    echo
    echo "Three applies started together, each its own Terraform and provider processes (so its own pace), one token,"
    echo "the emulator limited as above. Requests and 429s are all of them; the floor is the least time the limit allows"
    echo "for all the requests that succeeded; the spread is how much later the last pipeline finished than the first."
    echo "One run each. The goals: no pipeline fails; at 5 requests/s the slowest within 1.2x the floor, the spread at most"
    echo "15%, at most 10% of requests answered 429; at 1 request/s at most 25% answered 429, the slowest within 1.3x;"
    echo "ceilings summing under the limit (3 × 1.6 under 5), no 429; with the quota fields (ietf or x-ratelimit), at most"
    echo "5% answered 429, the slowest within 1.12x the floor, the spread at most 20%. A fixed window of 50 per 10 s: no"
    echo "pipeline fails, at most 5% answered 429 with the fields, the slowest within two windows and 20% (24 s), and the"
    echo "fields never slower than none; alone, within two windows and 10% (22 s). Its floor is when the last window needed"
    echo "begins."
    echo
    echo "| workload | pipelines failed | requests | answered 429 | first done (s) | last done (s) | floor (s) | last / floor | spread |"
    echo "|---|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${pipeline_rows[@]}"
    echo
  fi
  echo "## Emulator persistence"
  echo
  echo "| benchmark | value |"
  echo "|---|---|"
  printf '%s\n' "${persist_rows[@]}"
  echo
  echo "## Where the provider's CPU time goes (refreshing plan, N=$largest)"
  echo
  echo '```'
  head -30 "$work/pprof.txt" 2>/dev/null || echo "(no profile)"
  echo '```'
  echo
  echo "Share of the provider's CPU in its own packages (cumulative):"
  echo
  echo '```'
  grep -E 'terraform-provider-mobileplan/internal/(provider|provider/fastpath|client)\.' "$work/pprof-cum.txt" | head -8 || true
  echo '```'
  [ -f tools/bench/ANALYSIS.md ] && { echo; cat tools/bench/ANALYSIS.md; }
} >"$out"
step "Results"
cat "$out"
[ -n "${BENCH_OUT:-}" ] && echo "(written to $out)" || echo "(not saved: make bench-results writes them to tools/bench/RESULTS.md)"
