#!/usr/bin/env bash
# kube-image.sh OUT.tar [NAME:TAG]: the aiperf image without a registry or a container engine.
# Builds the static binaries (CGO_ENABLED=0) of every command under cmd/ (aiperf, and the
# Kubernetes companion when the tree has one) and writes a docker-save archive FROM scratch:
# /aiperf (the entrypoint) and its companions, /tmp, and an /etc/passwd naming the nonroot user
# 65532 the generated pods run as. NAME:TAG defaults to aiperf:dev.
#
# Load it into a cluster's container runtime:
#   containerd (localkube, k3s, a node):  ctr -n k8s.io images import OUT.tar
#     (localkube: ctr -a $LOCALKUBE_DIR/run/containerd/containerd.sock -n k8s.io images import OUT.tar)
#   kind:                                 kind load image-archive OUT.tar
#   a registry:                           crane push OUT.tar REGISTRY/aiperf:TAG (or docker load + push)
# and run the benchmark with --image NAME:TAG (and imagePullPolicy Never when it was imported).
set -euo pipefail
out="${1:?usage: kube-image.sh OUT.tar [NAME:TAG]}"; ref="${2:-aiperf:dev}"
root="$(cd "$(dirname "$0")/.." && pwd)"
out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
w="$(mktemp -d)"; trap 'rm -rf "$w"' EXIT
mkdir -p "$w/rootfs/tmp" "$w/rootfs/etc"
for d in "$root"/cmd/*/; do
	name="$(basename "$d")"
	(cd "$root" && CGO_ENABLED=0 GOTOOLCHAIN=local go build -trimpath -ldflags "-s -w" -o "$w/rootfs/$name" "./cmd/$name")
done
chmod 1777 "$w/rootfs/tmp"
printf 'root:x:0:0:root:/:/nonexistent\nnonroot:x:65532:65532:nonroot:/:/nonexistent\n' > "$w/rootfs/etc/passwd"
tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$w/rootfs" -cf "$w/layer.tar" .
diff="$(sha256sum "$w/layer.tar" | cut -d' ' -f1)"
printf '{"architecture":"amd64","os":"linux","config":{"Entrypoint":["/aiperf"],"Env":["PATH=/"],"User":"65532:65532","WorkingDir":"/"},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]},"history":[{"created_by":"scripts/kube-image.sh"}]}\n' "$diff" > "$w/config.json"
cfg="$(sha256sum "$w/config.json" | cut -d' ' -f1)"
mkdir -p "$w/out/$diff"
mv "$w/layer.tar" "$w/out/$diff/layer.tar"
mv "$w/config.json" "$w/out/$cfg.json"
printf '[{"Config":"%s.json","RepoTags":["%s"],"Layers":["%s/layer.tar"]}]\n' "$cfg" "$ref" "$diff" > "$w/out/manifest.json"
tar --sort=name --mtime=@0 --owner=0 --group=0 -C "$w/out" -cf "$out" .
echo "$out: $ref ($(du -h "$out" | cut -f1))"
