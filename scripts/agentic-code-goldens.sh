#!/usr/bin/env bash
# Regenerates internal/dataset/agenticcode/testdata/aiperf/: AIPerf 0.13's
# `aiperf synthesize agentic-code` run on each case of cases.tsv, its
# text artifacts kept (cache_structure.json as its SHA-256), for
# TestSynthesizeMatchesAIPerf.
#
#   AIPERF=/work/aip/bin/aiperf scripts/agentic-code-goldens.sh
set -euo pipefail
AIPERF=${AIPERF:-/work/aip/bin/aiperf}
here=$(cd "$(dirname "$0")/.." && pwd)
td=$here/internal/dataset/agenticcode/testdata/aiperf
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# name, sessions, seed, extra arguments (paths relative to $td)
while IFS=$'\t' read -r name n seed args; do
  [[ -z $name || $name == \#* ]] && continue
  (cd "$td" && "$AIPERF" synthesize agentic-code --num-sessions "$n" --seed "$seed" --output "$tmp/$name" $args >/dev/null)
  run=$(ls -d "$tmp/$name"/*/)
  mkdir -p "$td/$name"
  for f in dataset.jsonl manifest.json quality.json comparison.txt; do cp "$run/$f" "$td/$name/$f"; done
  sha256sum <"$run/cache_structure.json" | cut -d' ' -f1 >"$td/$name/cache_structure.sha256"
  basename "$run" | sed 's/_[0-9]\{8\}-[0-9]\{6\}$//' >"$td/$name/run_prefix"
done <"$td/cases.tsv"
