#!/usr/bin/env bash
# Streamed tokens per second the client ingests, and its CPU cost per
# request and per token, against the mock server in --fast mode (tokens as
# fast as it can write them) on its own core. Client CPU comes from the
# kernel's rusage of the client process; a 10-request run measures the
# start-up cost, which is subtracted.
#
#   bench/tokens.sh                          # 2,000 requests x 1,000 tokens, concurrency 64
#   REQUESTS=100 OSL=200 bench/tokens.sh     # quick check
#
# Knobs: REQUESTS, OSL, CONCURRENCY, ISL; see lib.sh.
source "$(dirname "$0")/lib.sh"

REQUESTS=${REQUESTS:-2000}
OSL=${OSL:-1000}
CONCURRENCY=${CONCURRENCY:-64}
ISL=${ISL:-100}

build
machine
raise_nofile $((CONCURRENCY + 1024))
start_mock --fast
args=(--streaming --concurrency "$CONCURRENCY" --isl "$ISL" --osl "$OSL" --extra-inputs ignore_eos:true)
base=$(baseline_cpu "${args[@]}")
echo "# streaming, concurrency $CONCURRENCY, $REQUESTS requests, isl $ISL, osl $OSL (ignore_eos); start-up CPU ${base} s subtracted"
dir=$OUT/tokens
profile "$dir" "${args[@]}" --request-count "$REQUESTS"
read -r tps rps tokens dur < <(j "$dir/profile_export_aiperf.json" \
	output_token_throughput.avg request_throughput.avg total_output_tokens.avg benchmark_duration.avg)
read -r cpu user sys rss < <(j "$dir/run.json" cpu_s user_s sys_s peak_tree_rss_mb)
awk -v tps="$tps" -v rps="$rps" -v tok="$tokens" -v d="$dur" -v c="$cpu" -v u="$user" -v s="$sys" -v b="$base" \
	-v n="$REQUESTS" -v rss="$rss" 'BEGIN {
	steady = c - b
	printf "streamed tokens/s ingested:  %.0f (%d tokens in %.2f s)\n", tps, tok, d
	printf "requests/s:                  %.1f\n", rps
	printf "client CPU:                  %.2f s (user %.2f, sys %.2f), %.2f s after start-up\n", c, u, s, steady
	printf "client CPU per request:      %.1f us\n", steady * 1e6 / (n - 10 > 0 ? n - 10 : 1)
	printf "client CPU per token:        %.3f us\n", steady * 1e6 / (tok > 0 ? tok : 1)
	printf "client CPU utilisation:      %.0f %% of one core over the run\n", 100 * steady / (d > 0 ? d : 1)
	printf "client peak RSS:             %.0f MB\n", rss
}'
echo "artifacts: $OUT"
