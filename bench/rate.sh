#!/usr/bin/env bash
# Maximum sustained open-loop request rate (non-streaming) whose schedule
# lag p99 stays under 1 ms, with the client on one core and the mock server
# (--fast, zero latency) on the other. Steps the rate up and stops at the
# first rate that misses (lag p99 >= 1 ms or achieved rate < 99 % of target).
#
#   bench/rate.sh                      # full run: 5 s per step
#   RATES="500 1000" DURATION=1 bench/rate.sh   # quick check
#
# Knobs: RATES (req/s steps), DURATION (s per step), ARRIVAL (constant|poisson),
# ISL/OSL (tokens), KEEP_GOING=1 (do not stop at the first miss),
# PACERS="wake spin" (each rate with each pacer, side by side: wake is the
# default timerfd pacer, spin the earlier timer-then-spin one, through
# AIPERF_PACER), NICE (see lib.sh).
# With wrk installed, the run first measures the ceiling: wrk (one thread,
# 64 connections, on the client's core) against the same mock, the most
# any client could get from it here (WRK=0 skips it).
# After aiperf at each rate, the open-loop reference runs the same rate on
# the same core against the same mock (pacer column "ref"; REF=0 skips it):
# `benchtool openloop`, one OS thread with epoll and a timerfd writing
# pre-built requests on REF_CONNS (64) pre-opened connections, the leanest
# open-loop client this machine allows. Its lag and CPU per request are
# the floor beside ours (its cpu_us/req is its own getrusage over the run,
# no start-up to subtract; its late column is "-").
# QUANTUM (default 100us, aiperf's own) is the pacer's batching quantum for
# both aiperf (AIPERF_PACER_QUANTUM) and the reference (-quantum).
# mock_us is the mock's CPU µs per request over each row's run (its utime +
# stime, 10 ms resolution): whether its core, not the client, is the limit.
# OLD_BIN=/path/to/aiperf adds, at each rate right after this build's row,
# the same run of an older build (pacer column "old", its own start-up
# subtracted): a before/after comparison in one run. ROUNDS=N (default 1)
# repeats the whole rate list N times, so every row is interleaved with its
# reference's and the old build's.
# CLOSED=64 adds, at each rate, the same request count in a closed loop at
# that concurrency (pacer "closed"): the same work never idle, so open
# loop's extra cost per request reads off user_us and sys_us.
source "$(dirname "$0")/lib.sh"

RATES=${RATES:-"1000 2000 5000 7500 10000 12500 15000 20000 25000 30000"}
DURATION=${DURATION:-5}
ARRIVAL=${ARRIVAL:-constant}
ISL=${ISL:-16}
OSL=${OSL:-16}
PACERS=${PACERS:-wake}
export OSL # bench/wrk-chat.lua reads it

build
machine
raise_nofile 65536
start_mock --fast
if [ "${WRK:-1}" != 0 ] && command -v wrk >/dev/null; then
	read -r wrk_rps wrk_n wrk_cpu < <(wrk_ceiling "$OUT/wrk" 64 "$DURATION")
	awk -v r="$wrk_rps" -v n="$wrk_n" -v c="$wrk_cpu" 'BEGIN { printf "# ceiling: wrk -t1 -c64 %.0f req/s, %.1f CPU-us per request\n", r, c * 1e6 / n }'
fi
pin_to "$CLIENT_CPU"
echo "# wake floor on the client core (benchtool wakefloor -n 300 -gap 5ms; lateness p50 p90 p99 max, ms): $("${pin[@]}" "$BIN/benchtool" wakefloor -n 300 -gap 5ms | cut -d' ' -f1-4)"
echo "# one idle wake-up every 1 ms (benchtool wakefloor -gap 1ms -n 2000; lateness p50 p90 p99 max ms, CPU µs per wake-up): pacer $("${pin[@]}" "$BIN/benchtool" wakefloor -sleeper wake -gap 1ms -n 2000), raw timerfd $("${pin[@]}" "$BIN/benchtool" wakefloor -sleeper raw -gap 1ms -n 2000)"
base=$(baseline_cpu --isl "$ISL" --osl "$OSL" --extra-inputs ignore_eos:true)
read -r base_user base_sys < <(j "$OUT/baseline/run.json" user_s sys_s)
if [ -n "${OLD_BIN:-}" ]; then
	[ -x "$OLD_BIN" ] || { echo "OLD_BIN=$OLD_BIN is not an executable" >&2; exit 1; }
	PROFILE_BIN=$OLD_BIN profile "$OUT/baseline-old" --request-count 10 --isl "$ISL" --osl "$OSL" --extra-inputs ignore_eos:true
	read -r old_base old_user old_sys < <(j "$OUT/baseline-old/run.json" cpu_s user_s sys_s)
	echo "# OLD_BIN $OLD_BIN: start-up CPU ${old_base} s (user ${old_user}, sys ${old_sys}), subtracted in its rows"
fi
QUANTUM=${QUANTUM:-100us}
echo "# start-up CPU (10-request run) ${base} s (user ${base_user}, sys ${base_sys}), subtracted in cpu_us/req, user_us and sys_us"
echo "# non-streaming, --arrival-pattern $ARRIVAL, isl $ISL, osl $OSL, $DURATION s per step, pacer quantum $QUANTUM"
printf '%-8s %-6s %-10s %-9s %-9s %-9s %-8s %-9s %-10s %-8s %-8s %-8s %-8s %s\n' target pacer achieved lag_p50 lag_p99 lag_max late client_cpu cpu_us/req user_us sys_us mock_us rss_mb ok
# row DIR RATE PACER N: one aiperf row from DIR's artifacts; sets ok. The
# start-up subtracted is this build's, or the old build's for pacer old.
row() {
	local dir=$1 rate=$2 pacer=$3 n=$4 achieved p50 p99 lmax late cpu user sys rss
	local base=$base base_user=$base_user base_sys=$base_sys
	if [ "$pacer" = old ]; then base=$old_base base_user=$old_user base_sys=$old_sys; fi
	read -r achieved p50 p99 lmax late < <(j "$dir/profile_export_aiperf.json" \
		request_throughput.avg schedule_lag.p50 schedule_lag.p99 schedule_lag.max late_request_count.avg)
	read -r cpu user sys rss < <(j "$dir/run.json" cpu_s user_s sys_s peak_tree_rss_mb)
	ok=$(awk -v a="$achieved" -v r="$rate" -v p="$p99" 'BEGIN { print (p < 1 && a >= 0.99 * r) ? "yes" : "no" }')
	if [ "$pacer" = closed ]; then ok=-; fi
	awk -v r="$rate" -v pc="$pacer" -v a="$achieved" -v p50="$p50" -v p99="$p99" -v m="$lmax" -v l="$late" -v c="$cpu" -v n="$n" -v rss="$rss" -v ok="$ok" \
		-v b="$base" -v u="$user" -v s="$sys" -v bu="$base_user" -v bs="$base_sys" -v mu="$mock_us" \
		'BEGIN { k = n > 10 ? n - 10 : 1; printf "%-8d %-6s %-10.1f %-9.3f %-9.3f %-9.3f %-8d %-9.2f %-10.1f %-8.1f %-8.1f %-8.1f %-8.0f %s\n", r, pc, a, p50, p99, m, l, c, (c - b) * 1e6 / k, (u - bu) * 1e6 / k, (s - bs) * 1e6 / k, mu, rss, ok }'
}
# mock_since M0 N: the mock's CPU µs per request since it had used M0 s (mock_cpu).
mock_since() { awk -v a="$1" -v b="$(mock_cpu)" -v n="$2" 'BEGIN { printf "%.1f", (b - a) * 1e6 / n }'; }
best=0
ref_best=0
for round in $(seq 1 "${ROUNDS:-1}"); do
[ "${ROUNDS:-1}" = 1 ] || echo "# round $round (load $(cut -d' ' -f1-3 /proc/loadavg))"
for rate in $RATES; do
	n=$((rate * DURATION))
	rate_ok=no
	for pacer in $PACERS; do
		dir=$OUT/rate-$rate-$pacer-r$round
		m0=$(mock_cpu)
		AIPERF_PACER=$pacer AIPERF_PACER_QUANTUM=$QUANTUM profile "$dir" --request-rate "$rate" --arrival-pattern "$ARRIVAL" --request-count "$n" \
			--isl "$ISL" --osl "$OSL" --extra-inputs ignore_eos:true
		mock_us=$(mock_since "$m0" "$n")
		row "$dir" "$rate" "$pacer" "$n"
		if [ "$ok" = yes ]; then rate_ok=yes; fi
	done
	if [ -n "${OLD_BIN:-}" ]; then
		dir=$OUT/rate-$rate-old-r$round
		m0=$(mock_cpu)
		PROFILE_BIN=$OLD_BIN AIPERF_PACER_QUANTUM=$QUANTUM profile "$dir" --request-rate "$rate" --arrival-pattern "$ARRIVAL" --request-count "$n" \
			--isl "$ISL" --osl "$OSL" --extra-inputs ignore_eos:true
		mock_us=$(mock_since "$m0" "$n")
		row "$dir" "$rate" old "$n"
	fi
	if [ -n "${CLOSED:-}" ]; then
		# The same requests in a closed loop (--concurrency CLOSED): what
		# the same work costs per request when it is never idle.
		dir=$OUT/rate-$rate-closed-r$round
		m0=$(mock_cpu)
		profile "$dir" --concurrency "$CLOSED" --request-count "$n" --isl "$ISL" --osl "$OSL" --extra-inputs ignore_eos:true
		mock_us=$(mock_since "$m0" "$n")
		row "$dir" "$rate" closed "$n"
	fi
	if [ "${REF:-1}" != 0 ]; then
		dir=$OUT/rate-$rate-ref-r$round
		mkdir -p "$dir"
		m0=$(mock_cpu)
		"$BIN/benchtool" run -o "$dir/run.json" -- "${pin[@]}" "$BIN/benchtool" openloop -url "$URL/v1/chat/completions" \
			-rate "$rate" -duration "${DURATION}s" -conns "${REF_CONNS:-64}" -osl "$OSL" -quantum "$QUANTUM" -arrival "$ARRIVAL" >"$dir/openloop.txt" 2>"$dir/openloop.log" || {
			echo "benchtool openloop failed; see $dir/openloop.log" >&2
			cat "$dir/openloop.log" >&2
			exit 1
		}
		mock_us=$(mock_since "$m0" "$n")
		read -r _ achieved p50 p99 lmax cpureq useq sysq okn errs waited _ <"$dir/openloop.txt"
		read -r cpu rss < <(j "$dir/run.json" cpu_s peak_tree_rss_mb)
		ok=$(awk -v a="$achieved" -v r="$rate" -v p="$p99" -v e="$errs" 'BEGIN { print (p < 1 && a >= 0.99 * r && e == 0) ? "yes" : "no" }')
		awk -v r="$rate" -v a="$achieved" -v p50="$p50" -v p99="$p99" -v m="$lmax" -v c="$cpu" -v cr="$cpureq" -v uq="$useq" -v sq="$sysq" -v mu="$mock_us" -v rss="$rss" -v ok="$ok" -v w="$waited" -v e="$errs" \
			'BEGIN { printf "%-8d %-6s %-10.1f %-9.3f %-9.3f %-9.3f %-8s %-9.2f %-10.1f %-8.1f %-8.1f %-8.1f %-8.0f %s (errors %d, waited for a connection %d)\n", r, "ref", a, p50, p99, m, "-", c, cr, uq, sq, mu, rss, ok, e, w }'
		if [ "$ok" = yes ]; then ref_best=$rate; fi
	fi
	if [ "$rate_ok" = yes ]; then
		best=$rate
	elif [ -z "${KEEP_GOING:-}" ]; then
		break
	fi
done
done
if [ "${REF:-1}" != 0 ]; then
	echo "the open-loop reference's highest rate with lag p99 < 1 ms among those run: $ref_best req/s"
fi
echo "max sustained rate with schedule-lag p99 < 1 ms: $best req/s (artifacts: $OUT)"
