#!/usr/bin/env bash
# Start-up latency: from the moment `aiperf profile` is exec'd to the first
# request the mock server receives (its --record-requests received_ns,
# same machine clock), for the builtin tokenizer and for a HuggingFace
# tokenizer.json, RUNS times each; prints every run and the median.
#
#   bench/startup.sh
#   RUNS=3 HF_TOKENIZER=~/.cache/aiperf-go/test-models/qwen3-3.7.2 bench/startup.sh
#   BASE_BIN=/tmp/old/aiperf bench/startup.sh   # also rows for another build, runs interleaved
#
# Knobs: RUNS (default 5), HF_TOKENIZER (a local tokenizer directory; the
# HF row is skipped when it does not exist), BASE_BIN (an aiperf binary to
# compare with, e.g. built from an older commit: its runs alternate with
# this tree's so both see the same machine load); see lib.sh.
source "$(dirname "$0")/lib.sh"

RUNS=${RUNS:-5}
HF_TOKENIZER=${HF_TOKENIZER:-$HOME/.cache/aiperf-go/test-models/qwen3-3.7.2}

build
machine
pin=()
if can_pin; then pin=(taskset -c "$CLIENT_CPU"); fi

# one TOKENIZER BINARY: µs from exec to the mock's first receipt, for one run.
one() {
	local tok=$1 bin=$2 dir=$OUT/startup-$RANDOM
	mkdir -p "$dir"
	start_mock --fast --record-requests "$dir/server.jsonl"
	local t0
	t0=$(date +%s%N)
	"${pin[@]}" "$bin" profile -m mock-model -u "127.0.0.1:$PORT" --ui none --artifact-dir "$dir" \
		--tokenizer "$tok" --request-count 1 --isl 16 --osl 4 --no-server-metrics --no-gpu-telemetry >"$dir/console.log" 2>&1
	stop_mock
	local first
	first=$(grep '"method":"POST"' "$dir/server.jsonl" | grep -o '"received_ns":[0-9]*' | cut -d: -f2 | sort -n | head -1)
	echo $(((first - t0) / 1000)) # µs
}

# median and runs of a list of µs figures, in ms.
summary() {
	local med
	med=$(printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
	printf 'median %7.1f ms   runs (ms): %s' "$(awk -v m="$med" 'BEGIN { print m / 1000 }')" \
		"$(printf '%s\n' "$@" | awk '{ printf "%.1f ", $1 / 1000 }')"
}

# row LABEL TOKENIZER: RUNS runs of this tree's build (and of BASE_BIN's,
# alternating, when set).
row() {
	local label=$1 tok=$2 all=() base=()
	for _ in $(seq "$RUNS"); do
		all+=("$(one "$tok" "$BIN/aiperf")")
		if [ -n "${BASE_BIN:-}" ]; then base+=("$(one "$tok" "$BASE_BIN")"); fi
	done
	printf '%-10s %s\n' "$label" "$(summary "${all[@]}")"
	if [ -n "${BASE_BIN:-}" ]; then printf '%-10s %s\n' "$label-base" "$(summary "${base[@]}")"; fi
}

echo "# exec of aiperf profile -> first request received by the mock (--request-count 1, telemetry off)"
if [ -n "${BASE_BIN:-}" ]; then echo "# *-base rows: $BASE_BIN"; fi
row builtin builtin
if [ -d "$HF_TOKENIZER" ]; then row hf "$HF_TOKENIZER"; else echo "hf: $HF_TOKENIZER not found, skipped"; fi
echo "artifacts: $OUT"
