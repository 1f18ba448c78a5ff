#!/bin/sh
# Runs AIPerf 0.13 against our mock server (vLLM-style /metrics and the fake
# DCGM exporter) and keeps its telemetry artifacts as the golden references
# that internal/benchmark/telemetry_test.go compares our artifacts' shapes
# with. Test reference only. Needs aiperf==0.13.0 (AIPERF, default
# /work/aip/bin/aiperf) and a local tokenizer directory (TOKENIZER, default
# the Qwen3 test model under ~/.cache/aiperf-go/test-models).
set -eu
cd "$(dirname "$0")/.."
AIPERF=${AIPERF:-/work/aip/bin/aiperf}
PY=${AIPERF_PYTHON:-$(dirname "$AIPERF")/python}
TOKENIZER=${TOKENIZER:-$HOME/.cache/aiperf-go/test-models/qwen3-3.7.2}
OUT=internal/benchmark/testdata/aiperf013
tmp=$(mktemp -d)
trap 'kill $mock 2>/dev/null || true; rm -rf "$tmp"' EXIT
GOTOOLCHAIN=local go build -o "$tmp/aiperf-go" ./cmd/aiperf
"$tmp/aiperf-go" mock-server --port 0 --dcgm-port 0 --ttft 30 --itl 4 >"$tmp/mock.log" 2>&1 &
mock=$!
for _ in 1 2 3 4 5 6 7 8 9 10; do grep -q DCGM "$tmp/mock.log" && break; sleep 0.5; done
url=$(sed -n 's/.*listening on \(http:[^ ]*\).*/\1/p' "$tmp/mock.log")
dcgm=$(sed -n 's/.*at \(http:[^ ]*\)\/metrics.*/\1/p' "$tmp/mock.log")
"$AIPERF" profile -m mock-model -u "$url" --streaming --concurrency 4 --request-count 40 \
  --isl 100 --osl 50 --extra-inputs ignore_eos:true --tokenizer "$TOKENIZER" \
  --gpu-telemetry "$dcgm" --server-metrics-formats json csv parquet jsonl \
  --output-artifact-dir "$tmp/run" --ui-type none >"$tmp/aiperf.log" 2>&1
mkdir -p "$OUT"
for f in server_metrics_export.json server_metrics_export.csv profile_export_aiperf.json profile_export_aiperf.csv; do
  cp "$tmp/run/$f" "$OUT/$f"
done
head -n 4 "$tmp/run/gpu_telemetry_export.jsonl" >"$OUT/gpu_telemetry_export.jsonl"
head -n 2 "$tmp/run/server_metrics_export.jsonl" >"$OUT/server_metrics_export.jsonl"
# The same run after a warmup of 8 requests: the per-phase files.
"$AIPERF" profile -m mock-model -u "$url" --streaming --concurrency 4 --request-count 40 \
  --warmup-request-count 8 --isl 100 --osl 50 --extra-inputs ignore_eos:true --tokenizer "$TOKENIZER" \
  --gpu-telemetry "$dcgm" --output-artifact-dir "$tmp/phased" --ui-type none >"$tmp/aiperf-phased.log" 2>&1
for ph in warmup profiling; do
  mkdir -p "$OUT/phases/$ph"
  cp "$tmp/phased/phases/$ph/server_metrics.json" "$tmp/phased/phases/$ph/gpu_telemetry.json" "$OUT/phases/$ph/"
done
cp "$tmp/phased/phase_manifest.json" "$OUT/phases/"
"$PY" - "$tmp/run/server_metrics_export.parquet" internal/telemetry/servermetrics/testdata/aiperf013_parquet_schema.json <<'PYEOF'
import json, sys
import pyarrow.parquet as pq
t = pq.read_table(sys.argv[1])
meta = {k.decode(): v.decode() for k, v in (t.schema.metadata or {}).items() if not k.startswith(b"ARROW:")}
json.dump({"columns": [[f.name, str(f.type), f.nullable] for f in t.schema],
           "metadata_keys": sorted(meta), "metric_types": sorted(set(t.column("metric_type").to_pylist())),
           "rows_per_histogram_sample": len([1 for le in t.column("bucket_le").to_pylist() if le == "+Inf"])},
          open(sys.argv[2], "w"), indent=1)
PYEOF
echo "references written to $OUT"
