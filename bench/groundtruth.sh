#!/usr/bin/env bash
# The client's timing error against ground truth. The mock server records,
# per request, when it received it and when it wrote each chunk
# (--record-requests); benchtool joins that with the client's
# profile_export.jsonl by X-Request-ID and prints client-minus-server errors
# for TTFT, every inter-chunk gap and request latency (p50/p90/p99/max, µs),
# at each concurrency level. Client and mock are pinned to different cores.
#
# What an error contains: the kernel and loopback path in both directions
# (socket buffers, wake-ups, scheduling of both processes), the client's
# HTTP/SSE reading up to the moment it stamps a chunk, and the mock's own
# time between starting a write and the bytes reaching the socket. Both
# sides stamp the same machine's wall clock; the client derives its wall
# stamps from one monotonic start, so one-way "legs" can be off by the
# wall clock's slew during the run, while the TTFT, gap and latency errors
# (differences of durations) cannot.
#
#   bench/groundtruth.sh                                    # concurrency 1, 100, 1000
#   LEVELS="1 10" REQUESTS_PER_LEVEL=20 bench/groundtruth.sh   # quick check
#   PRECONNECT="off on" bench/groundtruth.sh               # with and without --pre-connect
#
# Each level runs once per PRECONNECT mode (default "off"): "on" adds
# --pre-connect, so no request pays a TCP handshake inside its TTFT; "off"
# lets the first request on each connection dial it, and the report's
# "TTFT - http_req_connecting" row shows the error once that connect time
# (reported separately per request) is taken out.
#
# A closed loop starts every stream at once: at 1,000 streams the mock
# receives 1,000 requests in one burst and the last waits for the other
# 999 to be parsed, which is the mock's queue, not the client's error.
# RAMP_S=2 passes --concurrency-ramp-duration 2, so streams start over 2 s
# and the figures are the steady state's.
#
# Knobs: LEVELS, REQUESTS_PER_LEVEL (default max(50, 3 x concurrency)), RAMP_S,
# TTFT_MS (default 20), ITL_MS (default 10), OSL (default 20); see lib.sh.
source "$(dirname "$0")/lib.sh"

LEVELS=${LEVELS:-"1 100 1000"}
TTFT_MS=${TTFT_MS:-20}
ITL_MS=${ITL_MS:-10}
OSL=${OSL:-20}

build
machine
echo "# streaming chat, mock TTFT $TTFT_MS ms, ITL $ITL_MS ms, osl $OSL (ignore_eos)"
PRECONNECT=${PRECONNECT:-off}
for c in $LEVELS; do
	for pc in $PRECONNECT; do
	n=${REQUESTS_PER_LEVEL:-$((c * 3 > 50 ? c * 3 : 50))}
	raise_nofile $((c + 1024))
	dir=$OUT/gt-c$c-preconnect-$pc
	extra=()
	if [ "$pc" = on ]; then extra=(--pre-connect); fi
	if [ -n "${RAMP_S:-}" ]; then extra+=(--concurrency-ramp-duration "$RAMP_S"); fi
	mkdir -p "$dir"
	start_mock --ttft "$TTFT_MS" --itl "$ITL_MS" --record-requests "$dir/server_requests.jsonl"
	profile "$dir" --streaming --concurrency "$c" --request-count "$n" --isl 16 --osl "$OSL" \
		--extra-inputs ignore_eos:true "${extra[@]}"
	mcpu=$(mock_cpu) mwait=$(mock_runq)
	stop_mock
	read -r ccpu cwait wall peak < <(j "$dir/run.json" cpu_s run_queue_wait_s wall_s peak_active)
	echo
	echo "## concurrency $c, $n requests, pre-connect $pc"
	# CPU used and time spent runnable but waiting for a CPU (the machine
	# gave it to other processes), each side, over the client's wall time.
	echo "client: CPU ${ccpu} s, run-queue wait ${cwait} s over ${wall} s; mock: CPU ${mcpu} s, run-queue wait ${mwait} s; mock peak in flight ${peak}"
	"$BIN/benchtool" groundtruth -server "$dir/server_requests.jsonl" -client "$dir/profile_export.jsonl" |
		tee "$dir/groundtruth.txt"
	"$BIN/benchtool" groundtruth -json -server "$dir/server_requests.jsonl" \
		-client "$dir/profile_export.jsonl" >"$dir/groundtruth.json"
	done
done
echo "artifacts: $OUT"
