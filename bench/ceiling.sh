#!/usr/bin/env bash
# The machine's ceiling against the mock, and how close our closed loop
# gets to it, in one run: wrk (the reference HTTP load generator, one
# thread) and `aiperf profile --concurrency C` each send non-streaming chat
# completions to `mock-server --fast` for DURATION seconds, the client on
# $CLIENT_CPU and the mock on $SERVER_CPU. Prints req/s, client CPU per
# request and the ratio aiperf/wrk (the acceptance target: >= 0.8).
#
#   bench/ceiling.sh                         # C=64, 5 s each
#   CONCURRENCY=16 DURATION=3 bench/ceiling.sh
#   ROUNDS=3 OLD_BIN=/tmp/old/aiperf ENGINES="lean old" bench/ceiling.sh   # A B A B A B
#
# STREAMING=1 makes every request a streamed one (wrk's body asks for
# "stream":true, aiperf runs with --streaming): wrk still reads each SSE
# answer to its end without parsing it.
#
# ENGINES (default "lean") are the aiperf clients run in turn in each of
# ROUNDS rounds (default 1), each round starting with wrk, so a comparison
# is interleaved in one run: "lean" is this build (its only HTTP/1.1
# engine), "old" is $OLD_BIN (an older build, e.g. main's before a change;
# OLD_ENGINE sets its AIPERF_HTTP_CLIENT, e.g. net/http in a build from
# before net/http was withdrawn for HTTP/1.1: BENCHMARKS.md, "Transport
# truth"). Each
# run's profile_export.jsonl is deleted once read (KEEP_RECORDS=1 keeps it).
#
# wrk must be installed (Debian: apt-get install wrk). Both clients send
# the same body (bench/wrk-chat.lua writes it for wrk); wrk does not read
# the JSON, so its per-request CPU is the floor for any HTTP client.
source "$(dirname "$0")/lib.sh"

CONCURRENCY=${CONCURRENCY:-64}
DURATION=${DURATION:-5}
OSL=${OSL:-16}
ROUNDS=${ROUNDS:-1}
ENGINES=${ENGINES:-lean}
export OSL STREAMING=${STREAMING:-0} # bench/wrk-chat.lua reads them
stream_flag=()
[ "$STREAMING" != 1 ] || stream_flag=(--streaming)

command -v wrk >/dev/null || { echo "wrk not installed (apt-get install wrk)" >&2; exit 1; }
build
machine
raise_nofile 65536
NEW_BIN=$BIN/aiperf.new
cp -f "$BIN/aiperf" "$NEW_BIN"
export MOCK_BIN=$NEW_BIN # the mock is this build's whatever the engine
start_mock --fast

# run_engine ENGINE DIR: one closed-loop run of ENGINE's client (profile,
# in lib.sh, runs $BIN/aiperf); prints "req/s requests cpu_s start-up_cpu_s".
run_engine() {
	local engine=$1 dir=$2
	case $engine in
	lean) unset AIPERF_HTTP_CLIENT && cp -f "$NEW_BIN" "$BIN/aiperf" ;;
	old)
		[ -x "${OLD_BIN:-}" ] || { echo "ENGINES has old but OLD_BIN is not an executable" >&2; exit 1; }
		if [ -n "${OLD_ENGINE:-}" ]; then export AIPERF_HTTP_CLIENT=$OLD_ENGINE; else unset AIPERF_HTTP_CLIENT; fi
		cp -f "$OLD_BIN" "$BIN/aiperf" ;;
	*) echo "unknown engine $engine (lean, old; net/http is no longer an HTTP/1.1 engine: OLD_BIN of an older build with OLD_ENGINE=net/http)" >&2; exit 1 ;;
	esac
	local base
	base=$(baseline_cpu "${stream_flag[@]}" --isl 16 --osl "$OSL" --extra-inputs ignore_eos:true)
	profile "$dir" "${stream_flag[@]}" --concurrency "$CONCURRENCY" --benchmark-duration "$DURATION" --benchmark-grace-period 0 \
		--isl 16 --osl "$OSL" --extra-inputs ignore_eos:true
	local rps n cpu
	read -r rps n < <(j "$dir/profile_export_aiperf.json" request_throughput.avg request_count.avg)
	cpu=$(j "$dir/run.json" cpu_s)
	# Each run's per-record export is ~100 MB; with ROUNDS a run fills a
	# shared disk. The summary files stay; KEEP_RECORDS=1 keeps them too.
	[ -n "${KEEP_RECORDS:-}" ] || rm -f "$dir"/profile_export*.jsonl "$OUT"/baseline/profile_export*.jsonl
	echo "$rps $n $cpu $base"
}
echo "# $([ "$STREAMING" = 1 ] && echo streaming || echo non-streaming) chat, concurrency $CONCURRENCY, $DURATION s each, mock --fast, engines: $ENGINES, rounds: $ROUNDS"
printf '%-6s %-9s %-10s %-9s %-10s %-12s %s\n' round client req/s requests cpu_s cpu_us/req "/wrk"
for round in $(seq 1 "$ROUNDS"); do
	read -r wrk_rps wrk_n wrk_cpu < <(wrk_ceiling "$OUT/wrk-$round" "$CONCURRENCY" "$DURATION")
	awk -v k="$round" -v r="$wrk_rps" -v n="$wrk_n" -v c="$wrk_cpu" 'BEGIN { printf "%-6s %-9s %-10.0f %-9d %-10.2f %-12.1f\n", k, "wrk", r, n, c, c * 1e6 / n }'
	for engine in $ENGINES; do
		read -r rps n cpu base < <(run_engine "$engine" "$OUT/$round-${engine//\//}")
		awk -v k="$round" -v e="$engine" -v r="$rps" -v n="$n" -v c="$cpu" -v b="$base" -v w="$wrk_rps" \
			'BEGIN { printf "%-6s %-9s %-10.0f %-9d %-10.2f %-12.1f %.2f (load %s)\n", k, e, r, n, c, (c - b) * 1e6 / n, r / w, "'"$(cut -d' ' -f1 /proc/loadavg)"'" }'
	done
done
echo "(cpu_us/req subtracts each client's start-up, a 10-request run; /wrk: req/s over the round's wrk)"
echo "artifacts: $OUT"
