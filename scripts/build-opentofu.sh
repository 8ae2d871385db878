#!/usr/bin/env bash
# Builds OpenTofu, at the version pinned in tools/opentofu/go.mod, from
# source through the Go module proxy into OUT (default bin/opentofu/tofu):
# a module of its own, as OpenTofu's go.mod has a replace directive, which
# `go install pkg@version` refuses. The Go build cache makes a rebuild
# cheap.
#
# The packages the tests never run (state backends in the clouds, their
# SDKs and gRPC's xDS, the Kubernetes client, HCP Terraform's API client,
# OCI registries, signature checks of registry packages) are compiled
# without optimisation, and the
# binary without debug information: 307 CPU-seconds on a cold build cache
# instead of 368, for the same speed where the tests spend it. Optimising
# nothing was measured too: half the build, but a slower acceptance pass
# and a slower `make test`.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-bin/opentofu/tofu}"
case "$out" in /*) ;; *) out="$PWD/$out" ;; esac
unused=(cloud.google.com/... google.golang.org/api/... github.com/aws/... github.com/Azure/...
  github.com/aliyun/... github.com/tencentcloud/... github.com/hashicorp/consul/... k8s.io/...
  github.com/opentofu/opentofu/internal/backend/remote-state/...
  google.golang.org/grpc/xds/... github.com/envoyproxy/... github.com/cncf/...
  github.com/hashicorp/go-tfe/... oras.land/... github.com/ProtonMail/... github.com/cloudflare/circl/...
  github.com/prometheus/...)
gcflags=()
for p in "${unused[@]}"; do
  gcflags+=("-gcflags=$p=-N -l")
done
cd tools/opentofu
set -x
"${GO:-go}" build -ldflags='-s -w' "${gcflags[@]}" -o "$out" github.com/opentofu/opentofu/cmd/tofu
