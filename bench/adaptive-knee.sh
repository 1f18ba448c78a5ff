#!/usr/bin/env bash
# Adaptive scale against the mock's capacity knee, this repository's client
# and NVIDIA AIPerf 0.13 (PyPI, a test reference) side by side: both run the
# same config file (AIPerf's YAML shape) against the same knee mock, RUNS
# times each, and the script prints each run's boundary, last passing and
# first failing values. A benchmark, not a test.
#
#   bench/adaptive-knee.sh                       # 3 runs each
#   RUNS=1 bench/adaptive-knee.sh
#   AIPERF=/path/to/venv/bin/aiperf bench/adaptive-knee.sh
#
# The mock: --batch-slots 4 --batch-step-ms 10 --batch-step-per-seq-ms 1,
# 64-token prompts, 32-token outputs. Its true knee for "TTFT p90 <= 80 ms"
# is concurrency 4 (docs/load-shapes.md): up to 4 in flight nobody queues
# (TTFT ~ 2 steps, < 30 ms), at 5 every new request waits for a slot
# (>= 32 x 14 ms / 4 = 112 ms). AIPerf needs a local tokenizer folder
# (TOKENIZER, default the llama3 test model); it runs without
# HF_HUB_OFFLINE, which 0.13 rejects local folders under.
source "$(dirname "$0")/lib.sh"

RUNS=${RUNS:-3}
AIPERF=${AIPERF:-/work/aip/bin/aiperf}
TOKENIZER=${TOKENIZER:-$HOME/.cache/aiperf-go/test-models/llama3-3.7.2}
unset HF_HUB_OFFLINE

build
machine
start_mock --batch-slots 4 --batch-step-ms 10 --batch-step-per-seq-ms 1

cat >"$OUT/knee.yaml" <<YAML
schemaVersion: "2.0"
benchmark:
  model: mock-model
  endpoint: {url: "$URL", type: chat, streaming: true}
  tokenizer: {name: "$TOKENIZER"}
  dataset:
    type: synthetic
    entries: 100
    prompts: {isl: 64, osl: 32}
  phases:
    type: concurrency
    concurrency: 12
    duration: 120
    adaptive_scale:
      control: {variable: concurrency, min: 1, max: 12}
      assessment_period: 2
      sustain_duration: 4
      strategy: {type: ramp_until_fail, step_policy: sla_margin, base_step: 1, max_step_multiplier: 1}
      sla: {time_to_first_token: {p90: {le: 80}}}
YAML
echo "# config: $OUT/knee.yaml (true knee: 4)"

# result NAME DIR: one line from DIR's adaptive_scale_summary.json.
result() {
	local s=$2/phases/profiling/adaptive_scale_summary.json
	echo "$1 boundary=$(j "$s" boundary_value) last_passing=$(j "$s" last_passing_value) first_failing=$(j "$s" first_failing_value) final=$(j "$s" control_value) status=$(j "$s" status) reason=$(j "$s" completed_reason)"
}

for i in $(seq "$RUNS"); do
	"$BIN/aiperf" profile -f "$OUT/knee.yaml" --ui none --artifact-dir "$OUT/go-$i" >"$OUT/go-$i.log" 2>&1
	result "aiperf-go run $i:" "$OUT/go-$i"
	if [ -x "$AIPERF" ]; then
		"$AIPERF" profile -f "$OUT/knee.yaml" --ui-type none --output-artifact-dir "$OUT/py-$i" >"$OUT/py-$i.log" 2>&1
		result "AIPerf 0.13 run $i:" "$OUT/py-$i"
	fi
done
