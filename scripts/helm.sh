#!/usr/bin/env bash
# Builds helm (helm.sh/helm/v3, pinned) from the Go module proxy and caches the binary; prints its
# path. A second call only prints it. The real-cluster test installs deploy/helm/aiperf-operator
# with it, and compares the chart's objects with `aiperf kube install --dry-run`:
#
#   AIPERF_TEST_HELM=$(scripts/helm.sh) AIPERF_TEST_KUBECONFIG=... go test ./internal/kube/realcluster/
#
# HELM_CACHE overrides the cache (default ~/.cache/aiperf-go/helm). A few minutes on two cores, under nice.
set -euo pipefail
HELM_VERSION=v3.22.1
bin="${HELM_CACHE:-$HOME/.cache/aiperf-go/helm}/$HELM_VERSION/helm"
if [[ -x "$bin" ]]; then
  echo "$bin"
  exit 0
fi
mkdir -p "$(dirname "$bin")"
GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0 GOBIN="$(dirname "$bin").tmp" \
  nice -n 19 go install -p "${HELM_BUILD_JOBS:-2}" -trimpath -ldflags "-s -w" "helm.sh/helm/v3/cmd/helm@$HELM_VERSION" >&2
mv "$(dirname "$bin").tmp/helm" "$bin" && rmdir "$(dirname "$bin").tmp"
echo "$bin"
