#!/usr/bin/env bash
# Checks a snapshot of the emulator's release (.goreleaser.emulator.yml) in
# DIR as a user's CI job would use it: every archive listed in the release's
# own checksums file and matching it, one archive per platform built, and the
# archive for this machine holding an emulator that runs. Which platforms
# those are is tools/releasecheck's test: the provider's, exactly.
set -euo pipefail
dir=${1:-dist-emulator}
cd "$dir"

shopt -s nullglob
sums=(mobileplan-emulator_*_SHA256SUMS)
archives=(mobileplan-emulator_*.tar.gz mobileplan-emulator_*.zip)
builds=(emulator_*/)
[ ${#sums[@]} -eq 1 ] || { echo "want one emulator checksums file in $dir, found ${#sums[@]}" >&2; exit 1; }
[ ${#archives[@]} -gt 0 ] && [ ${#archives[@]} -eq ${#builds[@]} ] ||
  { echo "${#archives[@]} emulator archives for ${#builds[@]} builds in $dir" >&2; exit 1; }

# The checksums file lists exactly the archives, and each matches.
listed=$(awk '{print $2}' "${sums[0]}" | sort)
present=$(printf '%s\n' "${archives[@]}" | sort)
[ "$listed" = "$present" ] || { echo "${sums[0]} lists:"$'\n'"$listed"$'\n'"the archives are:"$'\n'"$present" >&2; exit 1; }
sha256sum --check --quiet "${sums[0]}"
if grep -q terraform-provider "${sums[0]}"; then
  echo "${sums[0]} lists a provider file" >&2; exit 1
fi

# This machine's archive holds the emulator, and it runs.
platform=$(go env GOOS)_$(go env GOARCH)
archive=$(printf '%s\n' "${archives[@]}" | grep "_${platform}\.tar\.gz$")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$archive" -C "$tmp" mobileplan-emulator
usage=$("$tmp/mobileplan-emulator" -h 2>&1) || true
grep -q '^Usage of mobileplan-emulator' <<<"$usage" ||
  { echo "$archive: the emulator in it does not run:"$'\n'"$usage" >&2; exit 1; }
echo "emulator release snapshot: ${#archives[@]} archives, ${sums[0]} checked, $archive runs"
