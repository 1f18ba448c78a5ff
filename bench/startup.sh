#!/usr/bin/env bash
# Start-up latency: from the moment `aiperf profile` is exec'd to the first
# request the mock server receives (its --record-requests received_ns,
# same machine clock), for the builtin tokenizer and for a HuggingFace
# tokenizer.json, RUNS times each; prints every run and the median, and the
# same for the CPU time of each whole 1-request run (what load cannot
# inflate).
#
#   bench/startup.sh
#   RUNS=3 HF_TOKENIZER=~/.cache/aiperf-go/test-models/qwen3-3.7.2 bench/startup.sh
#   BASE_BIN=/tmp/old/aiperf bench/startup.sh   # also rows for another build, runs interleaved
#   COUNT=20000 ISL=550 CONCURRENCY=64 RUNS=3 bench/startup.sh   # does a long run's first request wait?
#
# Knobs: RUNS (default 5), HF_TOKENIZER (a local tokenizer directory; the
# HF row is skipped when it does not exist), BASE_BIN (an aiperf binary to
# compare with, e.g. built from an older commit: its runs alternate with
# this tree's so both see the same machine load), COUNT (--request-count,
# default 1), ISL (--isl, default 16) and CONCURRENCY (default 1); see
# lib.sh.
source "$(dirname "$0")/lib.sh"

RUNS=${RUNS:-5}
COUNT=${COUNT:-1}
ISL=${ISL:-16}
CONCURRENCY=${CONCURRENCY:-1}
HF_TOKENIZER=${HF_TOKENIZER:-$HOME/.cache/aiperf-go/test-models/qwen3-3.7.2}

build
machine
pin=()
if can_pin; then pin=(taskset -c "$CLIENT_CPU"); fi

# one TOKENIZER BINARY: for one run, "WALL CPU": µs from exec to the mock's
# first receipt, and the CPU-µs (user + system, bash's time) of the whole
# 1-request run, which the machine's load does not inflate.
one() {
	local tok=$1 bin=$2 dir=$OUT/startup-$RANDOM
	mkdir -p "$dir"
	start_mock --fast --record-requests "$dir/server.jsonl"
	local t0 cpu TIMEFORMAT='%3U %3S'
	t0=$(date +%s%N)
	cpu=$({ time "${pin[@]}" "$bin" profile -m mock-model -u "127.0.0.1:$PORT" --ui none --artifact-dir "$dir" \
		--tokenizer "$tok" --request-count "$COUNT" --concurrency "$CONCURRENCY" --isl "$ISL" --osl 4 --no-server-metrics --no-gpu-telemetry >"$dir/console.log" 2>&1; } 2>&1)
	stop_mock
	local first
	first=$(grep '"method":"POST"' "$dir/server.jsonl" | grep -o '"received_ns":[0-9]*' | cut -d: -f2 | sort -n | head -1)
	echo "$(((first - t0) / 1000)) $(awk -v u="${cpu% *}" -v s="${cpu#* }" 'BEGIN { printf "%d", (u + s) * 1e6 }')"
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
	local label=$1 tok=$2 w c all=() cpu=() base=() bcpu=()
	for _ in $(seq "$RUNS"); do
		read -r w c < <(one "$tok" "$BIN/aiperf")
		all+=("$w") cpu+=("$c")
		if [ -n "${BASE_BIN:-}" ]; then
			read -r w c < <(one "$tok" "$BASE_BIN")
			base+=("$w") bcpu+=("$c")
		fi
	done
	printf '%-12s %s\n' "$label" "$(summary "${all[@]}")"
	printf '%-12s %s\n' "  cpu" "$(summary "${cpu[@]}")"
	if [ -n "${BASE_BIN:-}" ]; then
		printf '%-12s %s\n' "$label-base" "$(summary "${base[@]}")"
		printf '%-12s %s\n' "  cpu" "$(summary "${bcpu[@]}")"
	fi
}

echo "# exec of aiperf profile -> first request received by the mock (--request-count $COUNT --concurrency $CONCURRENCY --isl $ISL, telemetry off);"
echo "# cpu: user + system CPU of the whole run (start-up, the requests, the exports)"
if [ -n "${BASE_BIN:-}" ]; then echo "# *-base rows: $BASE_BIN"; fi
row builtin builtin
if [ -d "$HF_TOKENIZER" ]; then row hf "$HF_TOKENIZER"; else echo "hf: $HF_TOKENIZER not found, skipped"; fi
echo "artifacts: $OUT"
