#!/usr/bin/env bash
# Trace-replay fidelity (the acceptance figure): a mooncake trace of
# RECORDS requests whose timestamps span SPAN_MS is replayed with
# --fixed-schedule against the mock server (--fast), client and server on
# their own cores, and the tool's own report of send time minus scheduled
# time (replay_sched_lag_p50/_p90/_p99, ms) is printed. Exits 1 when p99 is
# not under LIMIT_MS.
#
#   bench/replay.sh                         # 500 records over 10 s, limit 2 ms
#   RECORDS=100 SPAN_MS=2000 bench/replay.sh   # quick check
source "$(dirname "$0")/lib.sh"

RECORDS=${RECORDS:-500}
SPAN_MS=${SPAN_MS:-10000}
LIMIT_MS=${LIMIT_MS:-2}

build
machine
start_mock --fast
trace=$OUT/trace.jsonl
awk -v n="$RECORDS" -v span="$SPAN_MS" 'BEGIN {
	for (i = 0; i < n; i++) {
		ts = (n > 1) ? i * span / (n - 1) : 0
		printf "{\"timestamp\": %.3f, \"input_length\": 64, \"output_length\": 8, \"hash_ids\": [%d]}\n", ts, i
	}
}' >"$trace"
echo "# $RECORDS records over $SPAN_MS ms, --fixed-schedule, non-streaming"
dir=$OUT/replay
profile "$dir" --input-file "$trace" --custom-dataset-type mooncake_trace --fixed-schedule \
	--isl-block-size 64 --extra-inputs ignore_eos:true
read -r count p50 p90 p99 degraded < <(j "$dir/profile_export_aiperf.json" \
	request_count.avg replay_sched_lag_p50.avg replay_sched_lag_p90.avg replay_sched_lag_p99.avg replay_sched_degraded.avg)
read -r cpu rss < <(j "$dir/run.json" cpu_s peak_tree_rss_mb)
printf '%-9s %-9s %-9s %-9s %-9s %-10s %s\n' requests p50_ms p90_ms p99_ms degraded client_cpu rss_mb
printf '%-9s %-9.3f %-9.3f %-9.3f %-9s %-10.2f %.0f\n' "$count" "$p50" "$p90" "$p99" "$degraded" "$cpu" "$rss"
# The machine's own floor on the client's core right after: a process that
# only sleeps and spins to the same grid of deadlines.
pin=()
if can_pin; then pin=(taskset -c "$CLIENT_CPU"); fi
read -r f50 f90 f99 fmax _ < <("${pin[@]}" "$BIN/benchtool" wakefloor -n "$RECORDS" -gap "$((SPAN_MS / (RECORDS > 1 ? RECORDS - 1 : 1)))ms")
echo "# machine floor (bare sleep+spin on the same core, same grid): p50 $f50 p90 $f90 p99 $f99 max $fmax ms"
if awk -v p="$p99" -v l="$LIMIT_MS" 'BEGIN { exit !(p < l) }'; then
	echo "replay send-time error p99 $p99 ms < $LIMIT_MS ms: ok (artifacts: $OUT)"
else
	echo "replay send-time error p99 $p99 ms >= $LIMIT_MS ms: MISSED (artifacts: $OUT)" >&2
	exit 1
fi
