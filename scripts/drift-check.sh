#!/bin/sh
# drift-check.sh: does the real infrastructure still match Terraform state?
#
#   scripts/drift-check.sh [DIR [PLAN_OPTION...]]
#
# Runs a refresh-only plan in DIR (default: the current directory), which
# must be initialised already (terraform init), and reads the saved plan's
# JSON form. Exit status:
#
#   0  no drift: every object read back as Terraform state records it
#   2  drift: the plan lists the objects that changed outside Terraform
#   1  error: the plan or the JSON could not be made
#
# Why not `terraform plan -refresh-only -detailed-exitcode`? Terraform before
# 1.15.0 exits 2 from it, with "No changes", for any resource that has a
# number attribute (hashicorp/terraform#36403). The "resource_drift" list of
# the saved plan's JSON is right on every version: it is absent or empty
# when nothing drifted.
#
# TERRAFORM names the CLI to run (default: terraform; tofu for OpenTofu).
# Options after DIR go to the plan, e.g. -var-file=prod.tfvars or -lock=false.
# Needs only a POSIX shell, grep and mktemp. jq, when on PATH, reads the
# JSON exactly; JQ names another jq, and JQ= (empty) does without it.
set -u

dir=${1:-.}
[ $# -gt 0 ] && shift
tf=${TERRAFORM:-terraform}
jq=${JQ-jq}
if [ -n "$jq" ] && ! command -v "$jq" >/dev/null 2>&1; then
  jq=""
fi

if [ ! -d "$dir" ]; then
  echo "drift-check: no directory $dir" >&2
  exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/drift-check.XXXXXX") || exit 1
# The saved plan holds the refreshed state, secrets included: remove it
# whatever happens.
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# The plan prints the drift for people ("Objects have changed outside of
# Terraform"); its exit status only says whether it ran.
if ! "$tf" -chdir="$dir" plan -refresh-only -input=false -out="$tmp/plan" "$@"; then
  echo "drift-check: the refresh-only plan failed" >&2
  exit 1
fi
if ! "$tf" -chdir="$dir" show -json "$tmp/plan" >"$tmp/plan.json"; then
  echo "drift-check: $tf show -json could not read the plan" >&2
  exit 1
fi

if ! grep -q '"format_version"' "$tmp/plan.json"; then
  echo "drift-check: $tf show -json printed no plan" >&2
  exit 1
fi

# "resource_drift" is left out when nothing drifted ([] in some versions):
# drift is a list with at least one object in it.
if [ -n "$jq" ]; then
  "$jq" -e '(.resource_drift // []) | length > 0' "$tmp/plan.json" >/dev/null
  case $? in
    0) drifted=yes ;;
    1) drifted=no ;;
    *)
      echo "drift-check: $jq could not read the plan's JSON" >&2
      exit 1
      ;;
  esac
# Without jq: a key ends in an unescaped quote and a colon, which text inside
# a string value never does (its quotes are escaped). Only an attribute of
# some resource that is itself named resource_drift and holds objects could
# match too.
elif grep -Eq '"resource_drift"[[:space:]]*:[[:space:]]*\[[[:space:]]*\{' "$tmp/plan.json"; then
  drifted=yes
else
  drifted=no
fi
if [ "$drifted" = yes ]; then
  echo "drift-check: drift found in $dir" >&2
  exit 2
fi
echo "drift-check: no drift in $dir"
exit 0
