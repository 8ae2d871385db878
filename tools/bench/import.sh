#!/usr/bin/env bash
# make bench-import: importing the subscriptions an account already has, by
# each route the importing guide documents, per CLI: what each command sends
# against the bound (the list's pages and 10 more requests), and what it
# costs in CPU against the same-schema floor, measured in the same run.
#
# The account holds N subscriptions (BENCH_IMPORT_SIZE, default 2000),
# created through the service's API before the first route. With
# BENCH_IMPORT_SIZES="2000 10000 20000" the account grows through each size
# in turn, every route runs at each, and a last table gives each command's
# CPU at each size against the smallest, beside the items' own ratio: the
# curve, CLI by CLI, with the floor's beside ours. BENCH_IMPORT_COMMANDS=plan
# runs only each route's first plan (the one the curve is about; an apply
# of 20,000 costs an hour more). BENCH_IMPORT_ROUTES picks routes among
# "example identity query floor bare sliced sliced-floor creates"
# (default: the first four);
# bare is configurations with no provider at all, terraform_data over the
# same ids in three shapes (bare_config), its plan alone: what the CLI costs
# for N instances by itself; sliced is examples/bulk-import-sliced, the
# example with its resource in 256 module instances; sliced-floor is the
# same-schema floor (below) in that shape, its ids in a variable (the
# same-schema floor of the slices); creates is, once the
# account holds the largest N, an apply of 5 new subscriptions beside a
# mobileplan_esims data source, per CLI: what it reads of the eSIM
# inventory (BENCH_IMPORT_ESIMS eSIMs, default the largest N + 100), whose
# bound is one scan of it, its pages + 10.
# BENCH_IMPORT_WHOLE_UPTO=N runs the routes whose resource is one for_each
# of all the ids (all but the sliced ones) only at sizes up to N: past 10,000 their
# first plan takes each CLI tens of minutes. BENCH_IMPORT_ROUNDS=R (default
# 1) runs each plan that changes nothing R times and reports the median.
# Each route runs
# in a fresh working directory, the commands the guide gives, each under GNU
# time (CPU: the CLI's and the providers' it waited for):
#   by id        examples/bulk-import as shipped: plan, apply, plan again
#   by identity  the same with identity = { id = each.key } in its import
#                block (Terraform or OpenTofu 1.12 and newer): the same three
#   query        terraform query -generate-config-out over a list block with
#                limit = N (Terraform 1.14 and newer), then plan, apply, plan
#   floor        the same-schema floor (tools/bench/schemafloor: the
#                resource's schema and identity, answered from memory) taking
#                the same ids through a for_each import block by id, then by
#                identity where the CLI has it: the CPU any provider of this
#                schema costs the CLI and the framework. It has no data
#                source: its map is the ids, in a variable.
# The CLIs: terraform on PATH and OpenTofu (TOFU, as make builds it), and
# BENCH_IMPORT_TERRAFORM=PATH for another Terraform (1.14 or newer runs the
# query route). Every plan after an apply must be empty, and every command
# within the bound, or the run fails.
#
# Prints the results; BENCH_OUT=FILE also writes them into FILE, in place of
# the section between its bench-import markers, or at its end (make
# bench-import-results: tools/bench/RESULTS.md).
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
begin_script import
export TF_IN_AUTOMATION=1
need go terraform awk
[ -x /usr/bin/time ] || { echo "tools/bench/import.sh needs GNU time at /usr/bin/time (Debian package: time)" >&2; exit 1; }
read -ra sizes <<<"${BENCH_IMPORT_SIZES:-${BENCH_IMPORT_SIZE:-2000}}"
mapfile -t sizes < <(printf '%s\n' "${sizes[@]}" | sort -n)
commands=${BENCH_IMPORT_COMMANDS:-all}
rounds=${BENCH_IMPORT_ROUNDS:-1}
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "BENCH_IMPORT_ROUNDS is a count, not $rounds" >&2; exit 1; }
routes=" ${BENCH_IMPORT_ROUTES:-example identity query floor} "
# has ROUTE: the run takes ROUTE.
has() { [[ $routes == *" $1 "* ]]; }
[[ $commands == all || $commands == plan ]] || { echo "BENCH_IMPORT_COMMANDS is all or plan, not $commands" >&2; exit 1; }
tofu=${TOFU:-bin/opentofu/tofu}
out=${BENCH_OUT:-}
[ -x "$tofu" ] || { echo "no OpenTofu at $tofu: make $tofu builds it" >&2; exit 1; }
tofu=$(cd "$(dirname "$tofu")" && pwd)/$(basename "$tofu")
clis=("$(command -v terraform)" "$tofu")
[ -n "${BENCH_IMPORT_TERRAFORM:-}" ] && clis+=("$(cd "$(dirname "$BENCH_IMPORT_TERRAFORM")" && pwd)/$(basename "$BENCH_IMPORT_TERRAFORM")")
example=$PWD/examples/bulk-import/main.tf

step "Building"
rev="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo '+changes')"
build_binaries
release_build "$work/schemabin/terraform-provider-mobileplan" ./tools/bench/schemafloor
printf 'provider_installation {\n  dev_overrides {\n    "mobileplan/mobileplan" = "%s"\n    "bench/mobileplan" = "%s"\n  }\n  direct {}\n}\n' \
  "$work/bin" "$work/schemabin" >"$work/dev.tfrc"
export TF_CLI_CONFIG_FILE=$work/dev.tfrc

esims=${BENCH_IMPORT_ESIMS:-$((sizes[-1] + 100))}
[ "$esims" -ge $((sizes[-1] + 100)) ] || { echo "BENCH_IMPORT_ESIMS=$esims: at least the largest N + 100 ($((sizes[-1] + 100)))" >&2; exit 1; }
start_emulator -esims "$esims"
export MOBILEPLAN_BASE_URL=$base_url MOBILEPLAN_API_TOKEN=$token
# api_create: one create through the service's API, over bash's /dev/tcp;
# its id goes to $work/created.
api_create() {
  local hostport=${base_url#http://} body='{"planId":"plan_004"}' fd status answer
  hostport=${hostport%%/*}
  exec {fd}<>"/dev/tcp/${hostport%:*}/${hostport##*:}"
  printf 'POST /v1/subscriptions HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' \
    "$hostport" "$token" "${#body}" "$body" >&"$fd"
  IFS=' ' read -r _ status _ <&"$fd" || true
  answer=$(cat <&"$fd")
  exec {fd}<&-
  [[ $status == 2* ]] || { echo "create: HTTP ${status:-no answer}" >&2; return 1; }
  [[ $answer =~ \"id\":\"(sub_[0-9a-f]+)\" ]] || { echo "create: no id in the answer" >&2; return 1; }
  echo "${BASH_REMATCH[1]}" >>"$work/created"
}
: >"$work/created"

# cli_name BIN: "Terraform 1.11.4" or "OpenTofu 1.12.6".
# (awk reads to the end: head would leave the CLI to die of SIGPIPE while it
# writes its other lines, which pipefail turns into the script's end.)
cli_name() { "$1" version | awk '/^(Terraform|OpenTofu) v/ && !seen { print $1, substr($2, 2); seen = 1 }'; }
# at_least BIN VERSION: the CLI's version is VERSION or newer.
at_least() {
  local v
  v=$(cli_name "$1" | awk '{ print $2 }' | sed 's/-.*//')
  [ "$(printf '%s\n%s\n' "$2" "$v" | sort -V | head -1)" = "$2" ]
}
requests() { grep -cE ' (GET|POST|PUT|PATCH|DELETE) /v1/' "$emulator_log" || true; }

rows=()
failed=0

# bare_config SHAPE DIR: N terraform_data instances, no provider, over the
# ids in a variable: for_each over the set of them, over a map of them (the
# example's shape), or over that map in 256 module instances, by the ids'
# last two characters (sliced). Each CLI evaluates a resource's for_each
# once per instance it plans, each time over the whole collection, so a
# plan's CPU grows with the instances times the collection: the slices keep
# each collection small.
bare_config() {
  local shape=$1 dir=$2
  mkdir -p "$dir"
  printf 'variable "ids" {\n  type = set(string)\n}\n\n' >"$dir/main.tf"
  case $shape in
  set) printf 'resource "terraform_data" "each" {\n  for_each = var.ids\n  input    = each.key\n}\n' >>"$dir/main.tf" ;;
  map) printf 'locals {\n  adopt = { for id in var.ids : id => "plan_004" }\n}\n\nresource "terraform_data" "each" {\n  for_each = local.adopt\n  input    = each.value\n}\n' >>"$dir/main.tf" ;;
  sliced)
    printf 'locals {\n  slices = { for id in var.ids : substr(id, length(id) - 2, 2) => id... }\n}\n\nmodule "slice" {\n  source   = "./slice"\n  for_each = local.slices\n  ids      = each.value\n}\n' >>"$dir/main.tf"
    mkdir -p "$dir/slice"
    printf 'variable "ids" {\n  type = list(string)\n}\n\nlocals {\n  adopt = { for id in var.ids : id => "plan_004" }\n}\n\nresource "terraform_data" "each" {\n  for_each = local.adopt\n  input    = each.value\n}\n' >"$dir/slice/main.tf"
    ;;
  esac
}

# floor_provider: the same-schema floor's required_providers, for a
# module of a floor configuration; floor_head: that and the ids variable,
# for its root module.
floor_provider() {
  printf 'terraform {\n  required_providers {\n    mobileplan = { source = "bench/mobileplan" }\n  }\n}\n\n'
}
floor_head() {
  floor_provider
  printf 'variable "ids" {\n  type = set(string)\n}\n\n'
}

# run ROW COMMAND BIN DIR ARGS...: one command, timed; a row of the table.
# A plan that changes nothing (the first plan of an import, a plan without
# a provider) runs BENCH_IMPORT_ROUNDS times, and its row is the run of
# median CPU, with the most requests any run sent.
run() {
  local row=$1 what=$2 bin=$3 dir=$4 before sent code most=0 repeat=1 r
  shift 4
  [[ $what == "import plan" || $what == "plan, no provider" ]] && repeat=$rounds
  : >"$work/runs"
  for ((r = 0; r < repeat; r++)); do
    before=$(requests)
    code=0
    /usr/bin/time -f "%e %U %S" -o "$work/time" "$bin" -chdir="$dir" "$@" >"$work/last.log" 2>&1 || code=$?
    sent=$(($(requests) - before))
    [ "$sent" -gt "$most" ] && most=$sent
    if [ "$what" = "plan after" ] && [ "$code" != 0 ]; then
      tail -30 "$work/last.log" >&2
      echo "$row: the plan after the import is not empty (exit $code)" >&2
      failed=1
    elif [ "$what" != "plan after" ] && [ "$code" != 0 ]; then
      tail -30 "$work/last.log" >&2
      echo "$row: $what failed (exit $code)" >&2
      exit 1
    fi
    if grep -qi deprecat "$work/last.log"; then
      echo "$row: $what printed a deprecation warning" >&2
      failed=1
    fi
    local want=""
    case $what in
    "import plan") want="$n to import, 0 to add, 0 to change, 0 to destroy" ;;
    "plan, no provider") want="$n to add, 0 to change, 0 to destroy" ;;
    apply) want="$n imported, 0 added, 0 changed, 0 destroyed" ;;
    "apply of 5 creates") want="5 added, 0 changed, 0 destroyed" ;;
    esac
    if [ -n "$want" ] && ! grep -q "$want" "$work/last.log"; then
      tail -30 "$work/last.log" >&2
      echo "$row: $what did not say \"$want\"" >&2
      exit 1
    fi
    awk '{ printf "%.1f %s\n", $2 + $3, $1 }' "$work/time" >>"$work/runs"
  done
  local verdict="within"
  if [ "$most" -gt "$bound" ]; then
    verdict="**over**"
    failed=1
  fi
  local cpu wall
  read -r cpu wall < <(sort -n "$work/runs" | sed -n "$(((repeat + 1) / 2))p")
  rows+=("| $n | $row | $what | $wall | $cpu | $most ($verdict) |")
  printf '%s\n' "${rows[-1]}"
  printf '%s\t%s\t%s\t%s\n' "$n" "$row" "$what" "$cpu" >>"$work/cpu.tsv"
}

# route ROW BIN DIR: the three commands of a for_each import (the first
# alone with BENCH_IMPORT_COMMANDS=plan).
route() {
  run "$1" "import plan" "$2" "$3" plan -input=false
  [ "$commands" = plan ] && return
  run "$1" "apply" "$2" "$3" apply -auto-approve -input=false
  run "$1" "plan after" "$2" "$3" plan -input=false -detailed-exitcode
}

: >"$work/cpu.tsv"
for n in "${sizes[@]}"; do
step "An account of $n subscriptions"
for _ in $(seq $(($(wc -l <"$work/created") + 1)) "$n"); do api_create; done
sleep 1 # created_before is exclusive, to the second
cutoff=$(date -u +%Y-%m-%dT%H:%M:%SZ)
pages=$(((n + 24) / 25))
bound=$((pages + 10))
ids_file=$work/ids-$n.json
sed 's/.*/"&"/' "$work/created" | paste -sd, | sed 's/^/{"ids": [/; s/$/]}/' >"$ids_file"
# whole: the routes whose resource is one for_each of all N run at this size
# (BENCH_IMPORT_WHOLE_UPTO): their plans grow with the square of N.
whole=yes
[ -n "${BENCH_IMPORT_WHOLE_UPTO:-}" ] && [ "$n" -gt "$BENCH_IMPORT_WHOLE_UPTO" ] && whole=""
for bin in "${clis[@]}"; do
  name=$(cli_name "$bin")
  step "$name"
  identity=""
  at_least "$bin" 1.12.0 && has identity && identity=yes
  query=""
  [[ $name == Terraform* ]] && at_least "$bin" 1.14.0 && has query && query=yes

  if has example && [ -n "$whole" ]; then
    dir=$work/$RANDOM-by-id
    mkdir -p "$dir"
    cp "$example" "$dir/main.tf"
    printf 'adopt_created_before = "%s"\n' "$cutoff" >"$dir/terraform.tfvars"
    route "$name, by id" "$bin" "$dir"
  fi

  if has bare; then
    for shape in set map sliced; do
      [ "$shape" = sliced ] || [ -n "$whole" ] || continue
      dir=$work/$RANDOM-bare-$shape
      bare_config "$shape" "$dir"
      cp "$ids_file" "$dir/ids.auto.tfvars.json"
      [ "$shape" = sliced ] && "$bin" -chdir="$dir" get >/dev/null
      run "$name, no provider (terraform_data), $shape" "plan, no provider" "$bin" "$dir" plan -input=false
    done
  fi

  if has sliced; then
    dir=$work/$RANDOM-sliced
    cp -r examples/bulk-import-sliced "$dir"
    printf 'adopt_created_before = "%s"\n' "$cutoff" >"$dir/terraform.tfvars"
    "$bin" -chdir="$dir" get >/dev/null
    route "$name, by id in 256 slices" "$bin" "$dir"
  fi

  if has sliced-floor; then
    dir=$work/$RANDOM-sliced-floor
    mkdir -p "$dir/slice"
    { floor_head; cat <<'TF'; } >"$dir/main.tf"
locals {
  adopt    = { for id in var.ids : id => "plan_004" }
  slice_of = { for id in keys(local.adopt) : id => substr(id, length(id) - 2, 2) }
  slices   = { for id, slice in local.slice_of : slice => id... }
}

import {
  for_each = local.slice_of
  to       = module.slice[each.value].mobileplan_subscription.adopted[each.key]
  id       = each.key
}

module "slice" {
  source   = "./slice"
  for_each = local.slices
  adopt    = { for id in each.value : id => local.adopt[id] }
}
TF
    { floor_provider; cat <<'TF'; } >"$dir/slice/main.tf"
variable "adopt" {
  type = map(string)
}

resource "mobileplan_subscription" "adopted" {
  for_each = var.adopt
  plan_id  = each.value
}
TF
    cp "$ids_file" "$dir/ids.auto.tfvars.json"
    "$bin" -chdir="$dir" get >/dev/null
    route "$name, same-schema floor in 256 slices" "$bin" "$dir"
  fi

  if [ -n "$identity" ] && [ -n "$whole" ]; then
    dir=$work/$RANDOM-by-identity
    mkdir -p "$dir"
    sed 's/^  id       = each.key$/  identity = { id = each.key }/' "$example" >"$dir/main.tf"
    grep -q 'identity = { id = each.key }' "$dir/main.tf" || { echo "the example's import block changed: update import.sh" >&2; exit 1; }
    printf 'adopt_created_before = "%s"\n' "$cutoff" >"$dir/terraform.tfvars"
    route "$name, by identity" "$bin" "$dir"
  fi

  if [ -n "$query" ]; then
    dir=$work/$RANDOM-query
    mkdir -p "$dir"
    printf 'terraform {\n  required_providers {\n    mobileplan = { source = "mobileplan/mobileplan" }\n  }\n}\nprovider "mobileplan" {}\n' >"$dir/main.tf"
    printf 'list "mobileplan_subscription" "all" {\n  provider = mobileplan\n  limit    = %d\n}\n' "$n" >"$dir/all.tfquery.hcl"
    run "$name, query" "query" "$bin" "$dir" query -generate-config-out=generated.tf
    [ "$commands" = plan ] || route "$name, query" "$bin" "$dir"
  fi

  for how in id identity; do
    has floor && [ -n "$whole" ] || continue
    [ "$how" = identity ] && ! at_least "$bin" 1.12.0 && continue
    dir=$work/$RANDOM-floor-$how
    mkdir -p "$dir"
    key="id       = each.key"
    [ "$how" = identity ] && key="identity = { id = each.key }"
    { floor_head; cat <<TF; } >"$dir/main.tf"
locals {
  adopt = { for id in var.ids : id => "plan_004" }
}

import {
  for_each = local.adopt
  to       = mobileplan_subscription.adopted[each.key]
  $key
}

resource "mobileplan_subscription" "adopted" {
  for_each = local.adopt
  plan_id  = each.value
}
TF
    cp "$ids_file" "$dir/ids.auto.tfvars.json"
    route "$name, same-schema floor by $how" "$bin" "$dir"
  done
done
done

# One scan of the eSIM inventory an apply: 5 creates, whose plan-time
# check reads the inventory, beside a data source that lists it all; the
# account's subscriptions have taken the first eSIMs, so the free ones lie
# at the inventory's end.
if has creates; then
  step "5 creates against $esims eSIMs"
  n=${sizes[-1]}
  bound=$(((esims + 24) / 25 + 10))
  for bin in "${clis[@]}"; do
    name=$(cli_name "$bin")
    dir=$work/$RANDOM-creates
    mkdir -p "$dir"
    cat >"$dir/main.tf" <<'TF'
terraform {
  required_providers {
    mobileplan = { source = "mobileplan/mobileplan" }
  }
}

provider "mobileplan" {}

resource "mobileplan_subscription" "new" {
  count   = 5
  plan_id = "plan_004"
}

data "mobileplan_esims" "inventory" {}

output "esims" {
  value = length(data.mobileplan_esims.inventory.esims)
}
TF
    run "$name, 5 creates beside a list of $esims eSIMs" "apply of 5 creates" "$bin" "$dir" apply -auto-approve -input=false
  done
fi

marker=bench-import
[ "${#sizes[@]}" -gt 1 ] || [ "$commands" != all ] && marker=bench-import-curve
# Each set of two or more sizes, and each set of chosen routes, has a
# section of its own: a run at 2,000 and 20,000 leaves the one at 2,000
# and 10,000 in place (other settings, such as the rounds, do not).
[ "${#sizes[@]}" -gt 1 ] && marker=$marker-$(IFS=-; printf '%s' "${sizes[*]}")
chosen=$(printf '%s' "${BENCH_IMPORT_ROUTES:-}" | tr -s ' ' '-')
[ -n "$chosen" ] && marker=$marker-$chosen
settings="BENCH_IMPORT_SIZES=\"${sizes[*]}\" BENCH_IMPORT_COMMANDS=$commands${BENCH_IMPORT_ROUTES:+ BENCH_IMPORT_ROUTES=\"$BENCH_IMPORT_ROUTES\"}${BENCH_IMPORT_WHOLE_UPTO:+ BENCH_IMPORT_WHOLE_UPTO=$BENCH_IMPORT_WHOLE_UPTO}${BENCH_IMPORT_ESIMS:+ BENCH_IMPORT_ESIMS=$BENCH_IMPORT_ESIMS}${BENCH_IMPORT_ROUNDS:+ BENCH_IMPORT_ROUNDS=$BENCH_IMPORT_ROUNDS}"
section() {
  local list
  list=$(printf '%s, ' "${sizes[@]}")
  echo "<!-- $marker -->"
  if [ "$marker" = bench-import ]; then
    echo "## Importing an account (make bench-import)"
  else
    echo "## Importing an account, the curve (make bench-import $settings)"
  fi
  echo
  echo "Made by tools/bench/import.sh on $(date -u +%Y-%m-%d) at $rev: $(nproc) cores, no rate limit."
  echo "${list%, } existing subscriptions (N pages of 25 each: the bound is N/25 + 10 requests a command), imported by each route of the"
  echo "importing guide in a fresh working directory, each command under GNU time (CPU: the CLI's and its providers')."
  echo "The same-schema floor takes the same ids into a provider of the same schema that answers from memory, by a"
  echo "for_each import block over a variable (it has no data source): what any provider of this schema costs."
  if [ "$rounds" -gt 1 ]; then
    echo "Each plan that changes nothing ran $rounds times: its row is the run of median CPU, with the most requests any sent."
  fi
  if has creates; then
    echo "The creates rows: with the largest account in place, an apply of 5 creates beside a mobileplan_esims data"
    echo "source, against $esims eSIMs; its bound is one scan of the inventory, ceil($esims/25) + 10 requests."
  fi
  echo
  echo "| N | CLI, route | command | wall (s) | CPU (s) | requests |"
  echo "|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  if [ "${#sizes[@]}" -gt 1 ]; then
    echo
    echo "Each command's CPU against its CPU at ${sizes[0]}, beside the ratio of the items: linear is at most 1.2 times"
    echo "the items' ratio (6x for 5x)."
    echo
    echo "| CLI, route | command | N | CPU (s) | at ${sizes[0]} (s) | ratio | items' ratio | |"
    echo "|---|---|---|---|---|---|---|---|"
    awk -F'\t' -v first="${sizes[0]}" '$1 == first { base[$2 FS $3] = $4; next }
      { k = $2 FS $3; if (!(k in base) || base[k] == 0) next
        r = $4 / base[k]; items = $1 / first
        printf "| %s | %s | %d | %s | %s | %.1fx | %.1fx | %s |\n", $2, $3, $1, $4, base[k], r, items, (r <= 1.2 * items ? "linear" : "**superlinear**") }' "$work/cpu.tsv"
  fi
  echo "<!-- /$marker -->"
}
section >"$work/section.md"
step "Results"
cat "$work/section.md"
if [ -n "$out" ]; then
  if grep -q "^<!-- $marker -->\$" "$out" 2>/dev/null; then
    awk -v f="$work/section.md" -v m="$marker" '$0 == "<!-- " m " -->" { while ((getline l < f) > 0) print l; skip = 1; next }
      $0 == "<!-- /" m " -->" { skip = 0; next } !skip' "$out" >"$work/out.md"
    cp "$work/out.md" "$out"
  else
    { echo; cat "$work/section.md"; } >>"$out"
  fi
  echo "(written to $out)"
fi
[ "$failed" = 0 ]
