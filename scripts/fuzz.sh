#!/usr/bin/env bash
# Every fuzz target for FUZZTIME each (a duration, or a count of inputs such
# as 20000x), two packages at a time: `make fuzz`, which the hosted CI
# runs.
#
# Targets are found in the sources: listing them with go test -list links a
# test binary of every package, half of the smoke run's time. A package's
# targets run one after the other, so that its fuzzing build (every
# package it imports, instrumented) is compiled once, not once per target
# at the same time; two packages at a time, as the store's targets wait on
# its disk, the others on the CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${FUZZTIME:=60s}" "${GO:=go}"
export FUZZTIME GO

grep -rl --include='*_test.go' '^func Fuzz' internal cmd webhook tools \
  | while read -r file; do
      sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$file" | while read -r target; do
        echo "./$(dirname "$file") $target"
      done
    done \
  | awk '!($1 in targets) { order[n++] = $1 } { targets[$1] = targets[$1] " " $2 } END { for (i = 0; i < n; i++) print order[i] targets[order[i]] }' \
  | xargs -P 2 -L 1 bash -c 'pkg=$0; for target in "$@"; do echo "fuzz $pkg $target ($FUZZTIME)"; \
      out=$($GO test -run "^$" -fuzz "^$target\$" -fuzztime "$FUZZTIME" "$pkg" 2>&1) || { echo "$out"; exit 255; }; done'
