#!/usr/bin/env bash
# Fails when docs/ differ from what `make generate` writes, or the examples
# and the mock kit are not formatted. docs/ is generated from the
# provider's schema, templates/ and examples/: edit those, never docs/.
set -euo pipefail
cd "$(dirname "$0")/.."
GO="${GO:-go}"
terraform fmt -check -recursive examples mocks
# tfplugindocs reads the schema from the provider itself, not from the
# terraform on PATH (tools/providerschema).
schema=$(mktemp)
trap 'rm -f "$schema"' EXIT
"$GO" run ./tools/providerschema >"$schema"
echo "tfplugindocs generate/validate --provider-name mobileplan --providers-schema SCHEMA"
"$GO" tool tfplugindocs generate --provider-name mobileplan --providers-schema "$schema"
# validate logs dozens of [DEBUG] lines to stderr with no switch to turn
# them off: keep its errors, drop the rest.
"$GO" tool tfplugindocs validate --provider-name mobileplan --providers-schema "$schema" 2>&1 >/dev/null | sed '/\[DEBUG\]/d' >&2
if [ -n "$(git status --porcelain -- docs)" ]; then
  echo "docs/ differs from what 'make generate' writes; run it and commit:"
  git status --porcelain -- docs
  git --no-pager diff --stat -- docs
  exit 1
fi
