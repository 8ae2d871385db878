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
trap 'rm -rf "$schema" "${rendered:-}"' EXIT
rendered=$(mktemp -d bin/docs-check.XXXXXX) # relative: tfplugindocs joins it to the provider's directory
"$GO" run ./tools/providerschema >"$schema"
echo "tfplugindocs generate/validate --provider-name mobileplan --providers-schema SCHEMA --rendered-website-dir DIR"
"$GO" tool tfplugindocs generate --provider-name mobileplan --providers-schema "$schema" --rendered-website-dir "$rendered" >/dev/null
# The schema file's time marks the start of the rendering: a file of docs/
# modified since was written over, and Go's test cache would run its
# readers again.
if [ -n "$(find docs -newer "$schema" -print -quit)" ]; then
  echo "a file of docs/ changed while docs-check ran (it must render elsewhere):"
  find docs -newer "$schema"
  exit 1
fi
# validate logs dozens of [DEBUG] lines to stderr with no switch to turn
# them off: keep its errors, drop the rest.
"$GO" tool tfplugindocs validate --provider-name mobileplan --providers-schema "$schema" 2>&1 >/dev/null | sed '/\[DEBUG\]/d' >&2
if ! diff -r docs "$rendered" >/dev/null; then
  echo "docs/ differs from what 'make generate' writes; run it and commit:"
  diff -ru docs "$rendered" | head -40 || true
  exit 1
fi
if [ -n "$(git status --porcelain -- docs)" ]; then
  echo "docs/ has changes not committed; commit them:"
  git status --porcelain -- docs
  exit 1
fi
