#!/usr/bin/env bash
# The machine's ceiling against the mock, and how close our closed loop
# gets to it, in one run: wrk (the reference HTTP load generator, one
# thread) and `aiperf profile --concurrency C` each send non-streaming chat
# completions to `mock-server --fast` for DURATION seconds, the client on
# $CLIENT_CPU and the mock on $SERVER_CPU. Prints req/s, client CPU per
# request and the ratio aiperf/wrk (issue 19's acceptance: >= 0.8).
#
#   bench/ceiling.sh                         # C=64, 5 s each
#   CONCURRENCY=16 DURATION=3 bench/ceiling.sh
#
# wrk must be installed (Debian: apt-get install wrk). Both clients send
# the same body (bench/wrk-chat.lua writes it for wrk); wrk does not read
# the JSON, so its per-request CPU is the floor for any HTTP client.
source "$(dirname "$0")/lib.sh"

CONCURRENCY=${CONCURRENCY:-64}
DURATION=${DURATION:-5}
OSL=${OSL:-16}
export OSL # bench/wrk-chat.lua reads it

command -v wrk >/dev/null || { echo "wrk not installed (apt-get install wrk)" >&2; exit 1; }
build
machine
raise_nofile 65536
start_mock --fast
read -r wrk_rps wrk_n wrk_cpu < <(wrk_ceiling "$OUT/wrk" "$CONCURRENCY" "$DURATION")

base=$(baseline_cpu --isl 16 --osl "$OSL" --extra-inputs ignore_eos:true)
dir=$OUT/closed
profile "$dir" --concurrency "$CONCURRENCY" --benchmark-duration "$DURATION" --benchmark-grace-period 0 \
	--isl 16 --osl "$OSL" --extra-inputs ignore_eos:true
read -r ai_rps ai_n < <(j "$dir/profile_export_aiperf.json" request_throughput.avg request_count.avg)
ai_cpu=$(j "$dir/run.json" cpu_s)

echo "# non-streaming chat, concurrency $CONCURRENCY, $DURATION s each, mock --fast"
printf '%-8s %-10s %-9s %-10s %s\n' client req/s requests cpu_s cpu_us/req
awk -v r="$wrk_rps" -v n="$wrk_n" -v c="$wrk_cpu" 'BEGIN { printf "%-8s %-10.0f %-9d %-10.2f %.1f\n", "wrk", r, n, c, c * 1e6 / n }'
awk -v r="$ai_rps" -v n="$ai_n" -v c="$ai_cpu" -v b="$base" 'BEGIN { printf "%-8s %-10.0f %-9d %-10.2f %.1f (start-up %.2f s subtracted)\n", "aiperf", r, n, c, (c - b) * 1e6 / n, b }'
awk -v a="$ai_rps" -v w="$wrk_rps" 'BEGIN { printf "aiperf / wrk = %.2f\n", a / w }'
echo "artifacts: $OUT"
