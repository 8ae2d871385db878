#!/usr/bin/env bash
# Fails when docs/ differ from what `make generate` writes, or the examples
# and the mock kit are not formatted. docs/ is generated from the
# provider's schema, templates/ and examples/: edit those, never docs/.
set -euo pipefail
cd "$(dirname "$0")/.."
GO="${GO:-go}"
terraform fmt -check -recursive examples mocks
# tfplugindocs reads the schema from the provider itself, not from the
# terraform on PATH (tools/providerschema). It renders into a directory of
# its own, compared with docs/: rendering over docs/ would give every file
# there a new modification time each run, and Go's test cache, which keys a
# result on the files a test opened, would run the tests that read docs/
# again every time (make test's cached packages).
mkdir -p bin
schema=$(mktemp)
rendered=$(mktemp -d bin/docs-check.XXXXXX) # relative: tfplugindocs joins it to the provider's directory
trap 'rm -rf "$schema" "$rendered"' EXIT
"$GO" run ./tools/providerschema >"$schema" # and no file of docs/ newer than it at the end
echo "tfplugindocs generate/validate --provider-name mobileplan --providers-schema SCHEMA"
"$GO" tool tfplugindocs generate --provider-name mobileplan --providers-schema "$schema" --rendered-website-dir "$rendered" >/dev/null
# validate logs dozens of [DEBUG] lines to stderr with no switch to turn
# them off: keep its errors, drop the rest.
"$GO" tool tfplugindocs validate --provider-name mobileplan --providers-schema "$schema" 2>&1 >/dev/null | sed '/\[DEBUG\]/d' >&2
if ! diff -r docs "$rendered" >/dev/null; then
  echo "docs/ differs from what 'make generate' writes; run it and commit:"
  diff -ru docs "$rendered" | head -40
  exit 1
fi
if [ -n "$(find docs -newer "$schema" -print -quit)" ]; then
  echo "docs-check wrote into docs/ (it must render elsewhere):"
  find docs -newer "$schema"
  exit 1
fi
if [ -n "$(git status --porcelain -- docs)" ]; then
  echo "docs/ has changes not committed; commit them:"
  git status --porcelain -- docs
  exit 1
fi
