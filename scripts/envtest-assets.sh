#!/usr/bin/env bash
# Builds the envtest control plane (kube-apiserver from k8s.io/kubernetes v1.37.2 and etcd from
# go.etcd.io/etcd/server/v3 v3.7.0) from the Go module proxy alone, and caches both binaries.
# Prints the directory to use as KUBEBUILDER_ASSETS. A second call only prints it.
#
#   KUBEBUILDER_ASSETS=$(scripts/envtest-assets.sh) AIPERF_ENVTEST=1 go test ./internal/kube/...
#
# ENVTEST_CACHE overrides the cache (default ~/.cache/aiperf-go/envtest). About 5 minutes on two
# cores; it runs under nice so it does not starve a shared machine.
set -euo pipefail
K8S_VERSION=v1.37.2
STAGING_VERSION=v0.37.2
ETCD_VERSION=v3.7.0
cache="${ENVTEST_CACHE:-$HOME/.cache/aiperf-go/envtest}/k8s-$K8S_VERSION-etcd-$ETCD_VERSION"
if [[ -x "$cache/kube-apiserver" && -x "$cache/etcd" ]]; then
  echo "$cache"
  exit 0
fi
export GOTOOLCHAIN=local GOFLAGS=-mod=mod
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
gomod="$(go list -m -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')"
# k8s.io/kubernetes points its staging modules at ./staging, which `go install pkg@version`
# refuses; a scratch module replaces each with its published release instead. The two sample
# modules are not served by the proxy and the binaries do not need them.
grep -oE 'k8s.io/[a-z0-9-]+ => ./staging' "$gomod" | awk '{print $1}' | sort -u \
  | grep -vE 'sample-cli-plugin|sample-controller' > staging.txt
{
  printf 'module example.com/k8sbin\n\ngo 1.26.8\n\nrequire k8s.io/kubernetes %s\nrequire go.etcd.io/etcd/server/v3 %s\n\nreplace (\n' "$K8S_VERSION" "$ETCD_VERSION"
  while read -r m; do printf '\t%s => %s %s\n' "$m" "$m" "$STAGING_VERSION"; done < staging.txt
  printf ')\n'
} > go.mod
printf '//go:build tools\n\npackage tools\n\nimport (\n\t_ "go.etcd.io/etcd/server/v3"\n\t_ "k8s.io/kubernetes/cmd/kube-apiserver"\n)\n' > tools.go
nice -n 19 go mod tidy >&2
mkdir -p "$cache.tmp"
nice -n 19 go build -p "${ENVTEST_BUILD_JOBS:-2}" -o "$cache.tmp/kube-apiserver" k8s.io/kubernetes/cmd/kube-apiserver >&2
nice -n 19 go build -p "${ENVTEST_BUILD_JOBS:-2}" -o "$cache.tmp/etcd" go.etcd.io/etcd/server/v3 >&2
rm -rf "$cache" && mv "$cache.tmp" "$cache"
echo "$cache"
