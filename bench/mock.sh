#!/usr/bin/env bash
# The mock's own cost: is `mock-server --fast` ever the
# bottleneck? wrk (one thread, $CONNECTIONS connections, on $CLIENT_CPU)
# posts bench/wrk-chat.lua's non-streaming chat to a mock on $SERVER_CPU.
#
# 1. Cold start, COLD times: a fresh mock (--record-requests) and a 1 s
#    wrk burst; from the mock's own record, for its first $CONNECTIONS
#    requests (one per new connection): when the last was received and
#    answered after the first was received, and the first request's
#    handler time.
# 2. Steady state: a fresh mock, wrk for DURATION s; the mock's CPU
#    (utime + stime from /proc) per request, the share of its core it
#    used, and so how many requests per second one core of it can serve.
#
#   bench/mock.sh
#   DURATION=3 COLD=5 bench/mock.sh
#   MOCK_BIN=/tmp/old/aiperf bench/mock.sh     # an older build's mock
#
# Needs wrk (apt-get install wrk). Knobs: DURATION (5), CONNECTIONS (64),
# COLD (3); see lib.sh.
source "$(dirname "$0")/lib.sh"

DURATION=${DURATION:-5}
CONNECTIONS=${CONNECTIONS:-64}
COLD=${COLD:-3}
export OSL=${OSL:-16} # bench/wrk-chat.lua reads it

command -v wrk >/dev/null || { echo "wrk not installed (apt-get install wrk)" >&2; exit 1; }
build
machine
raise_nofile 65536
pin_to "$CLIENT_CPU"

# cpu_ticks PID: the process's user + system CPU, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

echo "# cold start: fresh mock, wrk -t1 -c$CONNECTIONS for 1 s; the mock's first $CONNECTIONS requests, ms after the first receipt"
for i in $(seq "$COLD"); do
	rec=$OUT/cold-$i.jsonl
	start_mock --fast --record-requests "$rec"
	"${pin[@]}" wrk -t1 -c"$CONNECTIONS" -d1s -s "$ROOT/bench/wrk-chat.lua" "$URL" >"$OUT/cold-$i.txt" 2>&1
	stop_mock
	grep '"method":"POST"' "$rec" | awk -v n="$CONNECTIONS" '{
		match($0, /"received_ns":[0-9]+/); r = substr($0, RSTART + 14, RLENGTH - 14)
		match($0, /"end_ns":[0-9]+/); e = substr($0, RSTART + 9, RLENGTH - 9)
		print r, e
	}' | sort -n | awk -v n="$CONNECTIONS" -v run="$i" -v wrk="$(awk '/Latency/ { print $4 }' "$OUT/cold-$i.txt")" '
		NR > n { next }
		NR == 1 { t0 = $1; first = ($2 - $1) / 1e6 }
		{ last_r = $1; if ($2 > last_e) last_e = $2 }
		END { printf "run %d: last received %.1f ms, last answered %.1f ms, first request handled in %.2f ms (wrk max latency %s)\n",
			run, (last_r - t0) / 1e6, (last_e - t0) / 1e6, first, wrk }'
done

echo "# steady state: wrk -t1 -c$CONNECTIONS for $DURATION s against a fresh mock"
start_mock --fast
tick=$(getconf CLK_TCK)
c0=$(cpu_ticks "$MOCK_PID")
"${pin[@]}" wrk -t1 -c"$CONNECTIONS" -d"${DURATION}s" -s "$ROOT/bench/wrk-chat.lua" "$URL" >"$OUT/steady.txt" 2>&1
c1=$(cpu_ticks "$MOCK_PID")
stop_mock
awk -v n="$(awk '/requests in/ { print $1 }' "$OUT/steady.txt")" -v rps="$(awk '/^Requests\/sec:/ { print $2 }' "$OUT/steady.txt")" \
	-v c="$((c1 - c0))" -v t="$tick" -v d="$DURATION" 'BEGIN {
	cpu = c / t
	printf "wrk %.0f req/s (%d requests); mock CPU %.2f s = %.1f us per request, %.0f%% of its core; one core of it serves %.0f req/s\n",
		rps, n, cpu, cpu * 1e6 / n, 100 * cpu / d, n / cpu }'
echo "artifacts: $OUT"
