# Shared helpers for the bench/ scripts; sourced, not run.
#
# Environment knobs (all optional):
#   BENCH_OUT   where binaries, logs and artifacts go (default: a new temp dir)
#   CLIENT_CPU  core the client (aiperf profile) is pinned to (default 0)
#   SERVER_CPU  core the mock server is pinned to (default 1)
#   PORT        mock server port (default 18871)
#   MOCK_BIN    the aiperf binary whose mock-server start_mock runs (default
#               this tree's build), e.g. an older build to compare with
#   NICE        when set (e.g. -10), the client, the mock and wrk run under
#               `nice -n $NICE`: on a machine shared with other work this
#               keeps their cores theirs for the run (negative needs root)
# Pinning needs taskset and at least two cores; otherwise both run unpinned
# and the scripts say so.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${BENCH_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/aiperf-bench.XXXXXX")}
mkdir -p "$OUT/bin"
BIN=$OUT/bin
CLIENT_CPU=${CLIENT_CPU:-0}
SERVER_CPU=${SERVER_CPU:-1}
PORT=${PORT:-18871}
NICE=${NICE:-}
URL=http://127.0.0.1:$PORT
MOCK_PID=

# build compiles aiperf and benchtool into $BIN.
build() {
	echo "# building into $BIN" >&2
	(cd "$ROOT" && GOTOOLCHAIN=${GOTOOLCHAIN:-local} go build -o "$BIN/aiperf" ./cmd/aiperf &&
		GOTOOLCHAIN=${GOTOOLCHAIN:-local} go build -o "$BIN/benchtool" ./bench/benchtool)
}

# can_pin: taskset exists and there are at least two cores.
can_pin() { command -v taskset >/dev/null && [ "$(nproc --all)" -ge 2 ]; }

# pin_to CPU: sets the array pin to the command prefix that runs a
# process on CPU (taskset, when can_pin) at $NICE (when set).
pin_to() {
	pin=()
	if can_pin; then pin=(taskset -c "$1"); fi
	if [ -n "$NICE" ]; then pin=(nice -n "$NICE" "${pin[@]}"); fi
}


# machine prints one line about where the figures come from.
machine() {
	local model
	model=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//')
	echo "# machine: $(nproc --all) cores (${model:-unknown CPU}), load average $(cut -d' ' -f1-3 /proc/loadavg), $(go version 2>/dev/null | cut -d' ' -f3)"
	if can_pin; then
		echo "# client pinned to core $CLIENT_CPU, mock server to core $SERVER_CPU${NICE:+, both at nice $NICE}"
	else
		echo "# WARNING: not pinned (needs taskset and 2 cores); client and server share the CPUs"
	fi
}

# raise_nofile N: raise the open-file limit to at least N (up to the hard limit).
raise_nofile() {
	local want=$1 hard
	hard=$(ulimit -Hn)
	if [ "$hard" != unlimited ] && [ "$hard" -lt "$want" ]; then
		echo "# WARNING: hard open-file limit $hard < $want; raise it (e.g. /etc/security/limits.conf) for this run" >&2
		want=$hard
	fi
	if [ "$(ulimit -Sn)" = unlimited ] || [ "$(ulimit -Sn)" -ge "$want" ]; then
		return 0 # never lower it
	fi
	ulimit -Sn "$want" # soft only: a plain ulimit -n would lower the hard limit too
}

# start_mock ARGS...: start `aiperf mock-server` on $PORT pinned to
# $SERVER_CPU and wait until it answers /health.
start_mock() {
	local pin
	pin_to "$SERVER_CPU"
	# Not through a shell function: $! must be the mock itself (taskset
	# execs it) so that stop_mock's signal reaches it.
	"${pin[@]}" "${MOCK_BIN:-$BIN/aiperf}" mock-server --port "$PORT" "$@" >"${MOCK_LOG:-$OUT/mock.log}" 2>&1 &
	MOCK_PID=$!
	for _ in $(seq 100); do
		if ! kill -0 "$MOCK_PID" 2>/dev/null; then
			break # exited (port in use?): do not mistake another server for ours
		fi
		if curl -sf "$URL/health" >/dev/null 2>&1; then
			return 0
		fi
		sleep 0.1
	done
	echo "mock server did not start; see ${MOCK_LOG:-$OUT/mock.log}" >&2
	cat "${MOCK_LOG:-$OUT/mock.log}" >&2
	return 1
}

# stop_mock: stop the mock with SIGTERM (it shuts down cleanly and flushes a
# request record; SIGINT is ignored by background jobs of a script) and wait.
stop_mock() {
	if [ -n "$MOCK_PID" ]; then
		kill -TERM "$MOCK_PID" 2>/dev/null || true
		wait "$MOCK_PID" 2>/dev/null || true
		MOCK_PID=
	fi
}
trap stop_mock EXIT

# mock_cpu: the running mock's CPU seconds (utime + stime) so far.
mock_cpu() {
	awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$MOCK_PID/stat"
}

# mock_runq: seconds the running mock's threads have been runnable but
# waiting for a CPU (schedstat): time the shared machine gave to others.
mock_runq() {
	cat /proc/"$MOCK_PID"/task/*/schedstat 2>/dev/null | awk '{ w += $2 } END { printf "%.2f", w / 1e9 }'
}

# mock_rss_mb: the running mock's peak resident memory (VmHWM), MB.
mock_rss_mb() {
	awk '/^VmHWM:/ { printf "%.0f", $2 / 1024 }' "/proc/$MOCK_PID/status"
}

# profile DIR ARGS...: run `aiperf profile` ($PROFILE_BIN when set, else
# this build) against the mock, pinned to
# $CLIENT_CPU, under benchtool run (CPU, peak RSS, peak in-flight, summed
# over HEALTH_URLS (comma-separated) when set, into
# DIR/run.json); the console output goes to DIR/console.log.
profile() {
	local dir=$1
	shift
	mkdir -p "$dir"
	local pin
	pin_to "$CLIENT_CPU"
	"$BIN/benchtool" run -health "${HEALTH_URLS:-$URL}" -o "$dir/run.json" -- \
		"${pin[@]}" "${PROFILE_BIN:-$BIN/aiperf}" profile -m mock-model -u "127.0.0.1:$PORT" --ui none \
		--artifact-dir "$dir" "$@" >"$dir/console.log" 2>&1 || {
		echo "aiperf profile failed; see $dir/console.log" >&2
		tail -20 "$dir/console.log" >&2
		return 1
	}
}

# baseline_cpu ARGS...: client CPU seconds of a 10-request run with ARGS
# (start-up: tokenizer, prompts, artifacts), subtracted from larger runs so
# per-request figures are the steady-state cost.
baseline_cpu() {
	profile "$OUT/baseline" --request-count 10 "$@"
	j "$OUT/baseline/run.json" cpu_s
}

# j FILE PATH...: values from a JSON file (NA when missing).
j() { "$BIN/benchtool" json "$@"; }

# wrk_ceiling DIR CONNECTIONS SECONDS: wrk (one thread, pinned to
# $CLIENT_CPU) posting bench/wrk-chat.lua's non-streaming chat to the mock;
# prints "req/s requests cpu_s". Needs wrk (apt-get install wrk).
wrk_ceiling() {
	local dir=$1 conns=$2 secs=$3 pin
	mkdir -p "$dir"
	pin_to "$CLIENT_CPU"
	"$BIN/benchtool" run -o "$dir/run.json" -- \
		"${pin[@]}" wrk -t1 -c"$conns" -d"${secs}s" -s "$ROOT/bench/wrk-chat.lua" "$URL" >"$dir/wrk.txt" 2>&1
	echo "$(awk '/^Requests\/sec:/ { print $2 }' "$dir/wrk.txt") $(awk '/requests in/ { print $1 }' "$dir/wrk.txt") $(j "$dir/run.json" cpu_s)"
}
