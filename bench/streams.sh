#!/usr/bin/env bash
# Concurrent streams held by one client process, and its peak memory. The
# mock server answers slowly (long TTFT and ITL) so every stream stays open
# while the client opens the rest; benchtool samples the mock's in-flight
# count (/health "active") and the client's resident memory.
#
#   bench/streams.sh                 # 10,000 streams
#   STREAMS=19000 bench/streams.sh   # about the most one process holds under a 20,000 open-file limit
#   STREAMS=100000 bench/streams.sh  # needs an open-file hard limit above 100,000 (aiperf raises
#                                    # its own soft limit, and the hard one when privileged)
#   STREAMS=500 bench/streams.sh     # quick check
#
# The client and the mock are separate processes, each with one socket per
# stream. Both print their memory: the client's from benchtool, the mock's
# peak (VmHWM) from /proc.
#
# Knobs: STREAMS, TTFT_MS (default 2000), ITL_MS (default 200), OSL (default 20); see lib.sh.
source "$(dirname "$0")/lib.sh"

STREAMS=${STREAMS:-10000}
TTFT_MS=${TTFT_MS:-2000}
ITL_MS=${ITL_MS:-200}
OSL=${OSL:-20}

build
machine
# One socket per stream on each side (client and mock are separate
# processes), plus files and slack.
raise_nofile $((STREAMS + 1024))
start_mock --ttft "$TTFT_MS" --itl "$ITL_MS"
echo "# $STREAMS streams, closed loop --concurrency $STREAMS, one request each; mock TTFT $TTFT_MS ms, ITL $ITL_MS ms, osl $OSL"
dir=$OUT/streams-$STREAMS
profile "$dir" --streaming --concurrency "$STREAMS" --request-count "$STREAMS" \
	--isl 16 --osl "$OSL" --extra-inputs ignore_eos:true
read -r peak rss maxrss cpu wall < <(j "$dir/run.json" peak_active peak_tree_rss_mb max_rss_mb cpu_s wall_s)
# The mock's own figures, before it stops: peak resident memory (VmHWM)
# and CPU (utime + stime) from /proc.
mock_rss=$(mock_rss_mb)
mock_cpu=$(mock_cpu)
mock_wait=$(mock_runq)
read -r cwait < <(j "$dir/run.json" run_queue_wait_s)
limit_note=$(grep -o 'open-file limit[^"]*' "$dir/console.log" | head -1 || true)
read -r done errs ttft99 < <(j "$dir/profile_export_aiperf.json" request_count.avg error_request_count.avg time_to_first_token.p99)
echo "streams requested:        $STREAMS"
echo "peak in flight (mock):    $peak"
echo "completed / errors:       $done / ${errs/NA/0}"
awk -v r="$rss" -v m="$maxrss" 'BEGIN { printf "client peak RSS:          %.0f MB (kernel max RSS %.0f MB)\n", r, m }'
awk -v r="$rss" -v n="$STREAMS" 'BEGIN { printf "client RSS per stream:    %.1f KB\n", r * 1024 / n }'
echo "client CPU:               ${cpu} s over ${wall} s wall (run-queue wait ${cwait} s)"
echo "TTFT p99 (client):        ${ttft99} ms (mock TTFT ${TTFT_MS} ms)"
echo "mock peak RSS:            ${mock_rss} MB"
awk -v r="$mock_rss" -v n="$STREAMS" 'BEGIN { printf "mock RSS per stream:      %.1f KB\n", r * 1024 / n }'
echo "mock CPU:                 ${mock_cpu} s (run-queue wait ${mock_wait} s)"
echo "open files (soft/hard):   $(ulimit -Sn)/$(ulimit -Hn)${limit_note:+; client: $limit_note}"
echo "artifacts: $OUT"
