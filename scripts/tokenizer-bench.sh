#!/usr/bin/env bash
# Times HuggingFace's Rust tokenizer (npm tokenizers@0.23.2) encoding the
# tokenizer test corpus on one core, then the Go reader on the same corpus
# and core, for BENCHMARKS.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
echo "== reference: HF tokenizers (Rust) via Node, one thread"
"$root/scripts/tokenizer-goldens.sh" bench
echo "== internal/tokenizer/hf, GOMAXPROCS=1"
cd "$root" && GOTOOLCHAIN=local GOMAXPROCS=1 taskset -c 0 go test -run '^$' -bench 'BenchmarkEncode(Cold)?/' -benchtime 3x ./internal/tokenizer/hf/
