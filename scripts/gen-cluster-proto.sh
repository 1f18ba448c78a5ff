#!/usr/bin/env bash
# Regenerates internal/cluster/clusterpb from cluster.proto. Needs protoc
# (Debian: apt-get install protobuf-compiler) and the two Go plugins, which
# this script installs from the Go module proxy into a cache directory:
# protoc-gen-go (google.golang.org/protobuf, the version go.mod pins) and
# protoc-gen-go-grpc v1.6.2.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local
bin="${PROTOC_PLUGINS:-$HOME/.cache/aiperf-go/protoc-bin}"
pbver="$(go list -m -f '{{.Version}}' google.golang.org/protobuf)"
[[ -x "$bin/protoc-gen-go" ]] || GOBIN="$bin" go install "google.golang.org/protobuf/cmd/protoc-gen-go@$pbver"
[[ -x "$bin/protoc-gen-go-grpc" ]] || GOBIN="$bin" go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
PATH="$bin:$PATH" protoc -I internal/cluster/clusterpb \
  --go_out=internal/cluster/clusterpb --go_opt=paths=source_relative \
  --go-grpc_out=internal/cluster/clusterpb --go-grpc_opt=paths=source_relative \
  internal/cluster/clusterpb/cluster.proto
