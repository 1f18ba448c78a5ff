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
#   STREAMS=100000 MOCKS=6 WORKERS=6 TTFT_MS=120000 bench/streams.sh
#                                    # under a 20,000 open-file limit: 6 mocks and 6 load
#                                    # worker processes (--workers) of ~16,700 streams each
#
# The client and the mock are separate processes, each with one socket per
# stream. Both print their memory: the client's from benchtool, the mock's
# peak (VmHWM) from /proc.
#
# Knobs: STREAMS, MOCKS (mock processes on PORT, PORT+1, ...; default 1),
# WORKERS (--workers load-worker processes; default 0, one process),
# TTFT_MS (default 2000), ITL_MS (default 200), OSL (default 20); see lib.sh.
source "$(dirname "$0")/lib.sh"

STREAMS=${STREAMS:-10000}
TTFT_MS=${TTFT_MS:-2000}
ITL_MS=${ITL_MS:-200}
OSL=${OSL:-20}

MOCKS=${MOCKS:-1}
WORKERS=${WORKERS:-0}

build
machine
# One socket per stream on each side, plus files and slack, in each
# process: the streams are spread over MOCKS mocks and, with WORKERS, over
# that many client processes.
raise_nofile $((STREAMS / (MOCKS > WORKERS ? MOCKS : (WORKERS > 0 ? WORKERS : 1)) + 1024))
start_mock --ttft "$TTFT_MS" --itl "$ITL_MS"
mock_pids=("$MOCK_PID")
urls=() # the first mock's -u is profile's own
HEALTH_URLS=$URL
first_port=$PORT
for i in $(seq 1 $((MOCKS - 1))); do
	PORT=$((first_port + i)) URL=http://127.0.0.1:$((first_port + i)) MOCK_LOG=$OUT/mock-$i.log start_mock --ttft "$TTFT_MS" --itl "$ITL_MS"
	mock_pids+=("$MOCK_PID")
	urls+=(-u "127.0.0.1:$((first_port + i))")
	HEALTH_URLS+=,http://127.0.0.1:$((first_port + i))
done
MOCK_PID=${mock_pids[0]}
stop_mocks() {
	for p in "${mock_pids[@]:1}"; do kill -TERM "$p" 2>/dev/null || true; done
	stop_mock
}
trap stop_mocks EXIT
workers=()
if [ "$WORKERS" -gt 0 ]; then workers=(--workers "$WORKERS"); fi
echo "# $STREAMS streams, closed loop --concurrency $STREAMS, one request each; mock TTFT $TTFT_MS ms, ITL $ITL_MS ms, osl $OSL; $MOCKS mock(s), ${WORKERS} load worker(s)"
dir=$OUT/streams-$STREAMS
profile "$dir" --streaming --concurrency "$STREAMS" --request-count "$STREAMS" \
	--isl 16 --osl "$OSL" --extra-inputs ignore_eos:true "${urls[@]}" "${workers[@]}"
read -r peak rss maxrss cpu wall < <(j "$dir/run.json" peak_active peak_tree_rss_mb max_rss_mb cpu_s wall_s)
# The mocks' own figures, before they stop: peak resident memory (VmHWM)
# and CPU (utime + stime) from /proc, summed over the mocks.
mock_rss=0 mock_cpu=0 mock_wait=0
for p in "${mock_pids[@]}"; do
	mock_rss=$(awk -v a="$mock_rss" -v b="$(MOCK_PID=$p mock_rss_mb)" 'BEGIN { print a + b }')
	mock_cpu=$(awk -v a="$mock_cpu" -v b="$(MOCK_PID=$p mock_cpu)" 'BEGIN { print a + b }')
	mock_wait=$(awk -v a="$mock_wait" -v b="$(MOCK_PID=$p mock_runq)" 'BEGIN { print a + b }')
done
read -r cwait < <(j "$dir/run.json" run_queue_wait_s)
limit_note=$(grep -o 'open-file limit[^"]*' "$dir/console.log" | head -1 || true)
read -r done errs ttft99 < <(j "$dir/profile_export_aiperf.json" request_count.avg error_request_count.avg time_to_first_token.p99)
# From the records themselves: when the latest request started before the
# earliest one ended, every one of them was in flight at once.
overlap=$(grep -o '"request_\(start\|end\)_ns":[0-9]*' "$dir/profile_export.jsonl" | awk -F: '
	/start/ { if ($2 > s) s = $2; n++ }
	/end/ { if (e == "" || $2 < e) e = $2 }
	END { printf "%d records; the latest start %.1f s before the earliest end%s", n, (e - s) / 1e9, (e > s ? " (all in flight at once)" : " (NOT all at once)") }')
echo "streams requested:        $STREAMS"
echo "peak in flight (mock):    $peak"
echo "in flight (records):      $overlap"
echo "completed / errors:       $done / ${errs/NA/0}"
awk -v r="$rss" -v m="$maxrss" 'BEGIN { printf "client peak RSS:          %.0f MB (largest process %.0f MB)\n", r, m }'
awk -v r="$rss" -v n="$STREAMS" 'BEGIN { printf "client RSS per stream:    %.1f KB\n", r * 1024 / n }'
echo "client CPU:               ${cpu} s over ${wall} s wall (run-queue wait ${cwait} s)"
echo "TTFT p99 (client):        ${ttft99} ms (mock TTFT ${TTFT_MS} ms)"
echo "mock peak RSS:            ${mock_rss} MB"
awk -v r="$mock_rss" -v n="$STREAMS" 'BEGIN { printf "mock RSS per stream:      %.1f KB\n", r * 1024 / n }'
echo "mock CPU:                 ${mock_cpu} s (run-queue wait ${mock_wait} s)"
echo "open files (soft/hard):   $(ulimit -Sn)/$(ulimit -Hn)${limit_note:+; client: $limit_note}"
echo "artifacts: $OUT"
