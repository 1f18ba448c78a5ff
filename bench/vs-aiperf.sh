#!/usr/bin/env bash
# Side by side with NVIDIA AIPerf (Python, from PyPI): both clients run the
# same workload against the same mock server (this repo's `aiperf
# mock-server --fast`, on its own core) and the script prints each one's
# achieved rate, client CPU-seconds, peak RSS (summed over AIPerf's
# processes), reported TTFT/ITL, and the ratios. A benchmark, not a test.
#
#   bench/vs-aiperf.sh                                   # streaming, concurrency 100, 2,000 requests, osl 100
#   REQUESTS=200 CONCURRENCY=10 bench/vs-aiperf.sh       # quick check
#   AIPERF_VENV=/path/to/venv bench/vs-aiperf.sh         # reuse a venv that has aiperf
#
# It creates a throwaway venv in $BENCH_OUT (python3 -m venv; pip install
# aiperf==$AIPERF_VERSION, default 0.13.0) unless AIPERF_VENV already holds
# one. AIPerf's built-in tokenizer (tiktoken o200k_base) is written into
# TIKTOKEN_CACHE_DIR from this repository's embedded o200k_base tables (no
# download; tiktoken checks the file's SHA-256), and AIPerf runs offline
# (HF_HUB_OFFLINE=1). Both clients are pinned to the same core
# (CLIENT_CPU) unless AIPERF_UNPINNED=1, which lets AIPerf's processes use
# every core.
#
# Knobs: REQUESTS, CONCURRENCY, ISL, OSL, AIPERF_VERSION, AIPERF_VENV,
# AIPERF_UNPINNED; see lib.sh.
source "$(dirname "$0")/lib.sh"

REQUESTS=${REQUESTS:-2000}
CONCURRENCY=${CONCURRENCY:-100}
ISL=${ISL:-100}
OSL=${OSL:-100}
AIPERF_VERSION=${AIPERF_VERSION:-0.13.0}
VENV=${AIPERF_VENV:-$OUT/venv}
export TIKTOKEN_CACHE_DIR=${TIKTOKEN_CACHE_DIR:-$OUT/tiktoken-cache}

build
if [ ! -x "$VENV/bin/aiperf" ]; then
	echo "# installing aiperf==$AIPERF_VERSION into $VENV" >&2
	python3 -m venv "$VENV"
	"$VENV/bin/pip" install --quiet "aiperf==$AIPERF_VERSION"
fi
mkdir -p "$TIKTOKEN_CACHE_DIR"
# Seed tiktoken's cache with o200k_base.tiktoken rebuilt from this repo's
# embedded tables (internal/tokenizer/o200k), so no download is needed:
# tiktoken names the file by the SHA-1 of its URL and checks its SHA-256.
python3 - "$ROOT/internal/tokenizer/o200k" "$TIKTOKEN_CACHE_DIR" <<'PY'
import base64, hashlib, os, struct, sys
src, cache = sys.argv[1], sys.argv[2]
url = "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken"
path = os.path.join(cache, hashlib.sha1(url.encode()).hexdigest())
if not os.path.exists(path):
    blob = open(os.path.join(src, "o200k_base.tokens"), "rb").read()
    ends = open(os.path.join(src, "o200k_base.ends"), "rb").read()
    lines, start = [], 0
    for rank, (end,) in enumerate(struct.iter_unpack("<I", ends)):
        lines.append(base64.b64encode(blob[start:end]) + b" %d\n" % rank)
        start = end
    data = b"".join(lines)
    want = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
    if hashlib.sha256(data).hexdigest() != want:
        sys.exit("rebuilt o200k_base.tiktoken does not have tiktoken's expected SHA-256")
    with open(path + ".tmp", "wb") as f:
        f.write(data)
    os.replace(path + ".tmp", path)
PY
"$VENV/bin/python" -c 'import tiktoken; tiktoken.get_encoding("o200k_base")'
machine
echo "# AIPerf: $("$VENV/bin/pip" show aiperf 2>/dev/null | awk '/^Version:/ { print $2 }') in $VENV"
raise_nofile $((CONCURRENCY + 4096))
start_mock --fast

workload=(-m mock-model -u "127.0.0.1:$PORT" --endpoint-type chat --streaming
	--concurrency "$CONCURRENCY" --request-count "$REQUESTS" --isl "$ISL" --osl "$OSL"
	--extra-inputs ignore_eos:true --tokenizer builtin --random-seed 1 --ui none)
echo "# workload: ${workload[*]}"

# measure NAME PIN CMD...: run one client under benchtool into $OUT/NAME.
measure() {
	local name=$1 pin=$2
	shift 2
	local dir=$OUT/$name prefix=()
	mkdir -p "$dir"
	if [ "$pin" = 1 ] && can_pin; then prefix=(taskset -c "$CLIENT_CPU"); fi
	"$BIN/benchtool" run -o "$dir/run.json" -- "${prefix[@]}" "$@" --artifact-dir "$dir" \
		>"$dir/console.log" 2>&1 || {
		echo "$name failed; see $dir/console.log" >&2
		tail -20 "$dir/console.log" >&2
		return 1
	}
}

aiperf_pin=1
[ -n "${AIPERF_UNPINNED:-}" ] && aiperf_pin=0
measure go 1 "$BIN/aiperf" profile "${workload[@]}"
HF_HUB_OFFLINE=1 measure python "$aiperf_pin" "$VENV/bin/aiperf" profile "${workload[@]}" \
	--no-server-metrics --no-gpu-telemetry

# Start-up (Python imports, worker processes, tokenizer, prompts) is a
# fixed cost per run; a 10-request run of each tool measures it so the
# steady-state CPU per request can be shown too.
base=("${workload[@]}")
for i in "${!base[@]}"; do
	if [ "${base[$i]}" = --request-count ]; then base[i + 1]=10; fi
done
measure go-base 1 "$BIN/aiperf" profile "${base[@]}"
HF_HUB_OFFLINE=1 measure python-base "$aiperf_pin" "$VENV/bin/aiperf" profile "${base[@]}" \
	--no-server-metrics --no-gpu-telemetry
gb=$(j "$OUT/go-base/run.json" cpu_s)
pb=$(j "$OUT/python-base/run.json" cpu_s)

row() { # NAME: the figures of one client, space-separated
	read -r rps tps ttft50 ttft99 itl50 itl99 < <(j "$OUT/$1/profile_export_aiperf.json" \
		request_throughput.avg output_token_throughput.avg time_to_first_token.p50 \
		time_to_first_token.p99 inter_token_latency.p50 inter_token_latency.p99)
	read -r cpu wall rss procs < <(j "$OUT/$1/run.json" cpu_s wall_s peak_tree_rss_mb peak_processes)
	echo "$rps $tps $ttft50 $ttft99 $itl50 $itl99 $cpu $wall $rss $procs"
}
read -r -a g < <(row go)
read -r -a p < <(row python)
awk -v n="$REQUESTS" -v G="${g[*]}" -v P="${p[*]}" -v gb="$gb" -v pb="$pb" 'BEGIN {
	split(G, g, " "); split(P, p, " ")
	split("request rate (req/s)|output tokens/s|TTFT p50 (ms)|TTFT p99 (ms)|ITL p50 (ms)|ITL p99 (ms)|client CPU (s)|wall (s)|peak RSS, all processes (MB)|processes", name, "|")
	printf "%-32s %14s %14s %12s\n", "", "aiperf (Go)", "AIPerf (Py)", "Py / Go"
	for (i = 1; i <= 10; i++)
		printf "%-32s %14.3f %14.3f %12s\n", name[i], g[i], p[i], (g[i] + 0 != 0) ? sprintf("%.2f", p[i] / g[i]) : "NA"
	printf "%-32s %14.1f %14.1f %12s\n", "client CPU per request (us)", g[7] * 1e6 / n, p[7] * 1e6 / n,
		(g[7] + 0 != 0) ? sprintf("%.1f", p[7] / g[7]) : "NA"
	m = (n > 10) ? n - 10 : 1
	gs = (g[7] - gb) * 1e6 / m; ps = (p[7] - pb) * 1e6 / m
	printf "%-32s %14.3f %14.3f %12s\n", "start-up CPU, 10-request run (s)", gb, pb, (gb + 0 != 0) ? sprintf("%.1f", pb / gb) : "NA"
	printf "%-32s %14.1f %14.1f %12s\n", "CPU per request after start-up (us)", gs, ps, (gs > 0) ? sprintf("%.1f", ps / gs) : "NA"
}'
echo "(rows above the last two include each tool's start-up; artifacts: $OUT)"
