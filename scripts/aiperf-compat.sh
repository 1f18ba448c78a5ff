#!/usr/bin/env bash
# The drop-in compatibility harness: measures this implementation against
# NVIDIA AIPerf 0.13.0 (PyPI; a test reference only, the product never needs
# Python) and refreshes the references the Go tests pin.
#
#   scripts/aiperf-compat.sh                 # everything, references rewritten in place
#   AIPERF_VENV=/work/aip scripts/aiperf-compat.sh   # reuse a venv that has aiperf 0.13.0
#   COMPAT_STEPS="flags report" scripts/aiperf-compat.sh
#
# Steps (COMPAT_STEPS, default all, in this order):
#   flags      AIPerf's `profile --help` flag spellings by help group
#              -> internal/cli/testdata/aiperf013/profile_flags.json, and the
#              flags its parser accepts twice (repeat_flags.py)
#              -> internal/cli/testdata/aiperf013/repeatable_flags.json
#   artifacts  AIPerf runs against this repo's mock server (fixed cases, see
#              run_case below): the shape of each artifact directory (files,
#              keys, metric tags, units, statistics) and the inputs.json of
#              seeded synthetic runs
#              -> internal/benchmark/testdata/aiperf013/
#   configs    AIPerf's bundled `config init` templates
#              -> internal/configfile/testdata/aiperf013/templates/ (TestAIPerfTemplates
#              loads each one here) and `config expand -f json` of three of them
#              -> internal/cli/testdata/aiperf013/expand/, and reduced to their
#              configuration (strip_template.py) -> internal/configfile/templates/,
#              the ones `config init --template` writes; then our `config init -t`
#              output for every template (with --model/--url) and our `config init` starter and the
#              input_config of our runs against the mock (default, raw export
#              with warmup and outputs.json, summary level with a prefix) and the
#              run_config.json of a sweep's runs go through AIPerf's own loader
#              (validate_config.py)
#   runs       every template `config init -t` writes, run against the mock
#              with --model/--url and shortened by flags (template_runs.sh makes
#              the datasets they name; ~25 minutes on 2 shared cores)
#   report     the Go tests in report mode (AIPERF_COMPAT_REPORT=1): flags
#              accepted and missing per owning issue, artifact differences
#
# It creates a throwaway venv in $COMPAT_OUT (python3 -m venv; pip install
# aiperf==0.13.0) unless AIPERF_VENV already holds one. `git diff` after a run
# shows what changed in AIPerf's references.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
HERE=$ROOT/scripts/aiperf-compat
OUT=${COMPAT_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/aiperf-compat.XXXXXX")}
VENV=${AIPERF_VENV:-$OUT/venv}
AIPERF_VERSION=0.13.0
STEPS=${COMPAT_STEPS:-"flags artifacts configs runs report"}
TESTDATA=$ROOT/internal/benchmark/testdata/aiperf013
# The tokenizer of the artifact cases: Qwen3's tokenizer.json, as the Go
# tests fetch it (internal/tokenizer/testmodels).
TOKENIZER=${AIPERF_COMPAT_TOKENIZER:-${AIPERF_TEST_MODELS:-$HOME/.cache/aiperf-go/test-models}/qwen3-3.7.2}
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}
mkdir -p "$OUT"

step() { [[ " $STEPS " == *" $1 "* ]]; }

venv() {
	if [ ! -x "$VENV/bin/aiperf" ]; then
		echo "# installing aiperf==$AIPERF_VERSION into $VENV" >&2
		python3 -m venv "$VENV"
		"$VENV/bin/pip" install --quiet "aiperf==$AIPERF_VERSION"
	fi
	local v
	v=$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("aiperf"))')
	if [ "$v" != "$AIPERF_VERSION" ]; then
		echo "$VENV has aiperf $v, want $AIPERF_VERSION" >&2
		exit 1
	fi
	echo "# AIPerf $v in $VENV" >&2
}

if step flags; then
	venv
	COLUMNS=250 "$VENV/bin/aiperf" profile --help 2>/dev/null |
		python3 "$HERE/help_flags.py" >"$ROOT/internal/cli/testdata/aiperf013/profile_flags.json"
	echo "# flags: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(len(f) for g in d.values() for f in g), "spellings of", sum(len(g) for g in d.values()), "flags")' \
		"$ROOT/internal/cli/testdata/aiperf013/profile_flags.json")"
	"$VENV/bin/python" "$HERE/repeat_flags.py" <"$ROOT/internal/cli/testdata/aiperf013/profile_flags.json" \
		>"$ROOT/internal/cli/testdata/aiperf013/repeatable_flags.json"
fi

# mock_start: this repo's mock server with the cases' latencies and
# prediction-token usage, on a free port ($MOCK_URL).
mock_start() {
	(cd "$ROOT" && go build -o "$OUT/aiperf-go" ./cmd/aiperf)
	local port
	port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	"$OUT/aiperf-go" mock-server --port "$port" --ttft 10 --itl 2 --prediction-accept-rate 0.75 --random-seed 1 \
		>"$OUT/mock.log" 2>&1 &
	MOCK_PID=$!
	trap 'kill "$MOCK_PID" 2>/dev/null || true' EXIT
	MOCK_URL=http://127.0.0.1:$port
	for _ in $(seq 100); do
		curl -sf "$MOCK_URL/health" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	echo "mock server did not start: $(cat "$OUT/mock.log")" >&2
	exit 1
}

# run_case NAME ARGS...: one AIPerf run against the mock; its shape goes to
# $TESTDATA/NAME.shape.json. The Go golden test runs the same case (keep
# the two lists in step: internal/benchmark/compat_golden_test.go).
run_case() {
	local name=$1
	shift
	local dir=$OUT/aiperf-$name
	rm -rf "$dir"
	"$VENV/bin/aiperf" profile -m mock-model -u "$MOCK_URL" --endpoint-type chat --tokenizer "$TOKENIZER" \
		--ui-type none --output-artifact-dir "$dir" "$@" >"$OUT/aiperf-$name.log" 2>&1 || {
		echo "AIPerf failed on case $name; see $OUT/aiperf-$name.log" >&2
		tail -20 "$OUT/aiperf-$name.log" >&2
		exit 1
	}
	python3 "$HERE/artifact_shapes.py" "$dir" >"$TESTDATA/$name.shape.json"
	echo "# case $name: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(len(d["files"]), "files,", len(d.get("profile_export_aiperf.json",{}).get("metrics",{})), "metric tags")' "$TESTDATA/$name.shape.json")"
}

if step artifacts; then
	venv
	[ -f "$TOKENIZER/tokenizer.json" ] || {
		echo "no tokenizer.json in $TOKENIZER: run the Go tests once (they fetch it) or set AIPERF_COMPAT_TOKENIZER" >&2
		exit 1
	}
	mkdir -p "$TESTDATA"
	mock_start
	run_case stream --streaming --isl 128 --isl-stddev 32 --osl 16 --random-seed 42 --request-count 20 --concurrency 2
	cp "$OUT/aiperf-stream/inputs.json" "$TESTDATA/inputs_qwen3_isl128_seed42.json"
	for seed in 1 123; do
		run_case "seed$seed" --streaming --isl 128 --isl-stddev 32 --osl 16 --random-seed "$seed" --request-count 20 --concurrency 2
		cp "$OUT/aiperf-seed$seed/inputs.json" "$TESTDATA/inputs_qwen3_isl128_seed$seed.json"
		rm "$TESTDATA/seed$seed.shape.json"
	done
	run_case raw --streaming --isl 32 --osl 8 --random-seed 1 --request-count 4 --concurrency 2 \
		--warmup-request-count 2 --export-level raw --export-outputs-json
	run_case nonstream --isl 64 --osl 8 --random-seed 7 --request-count 6 --concurrency 2
fi

if step configs; then
	venv
	tdir=$ROOT/internal/configfile/testdata/aiperf013/templates
	mkdir -p "$tdir"
	rm -f "$tdir"/*.yaml
	cp "$("$VENV/bin/python" -c 'import aiperf.config, os; print(os.path.dirname(aiperf.config.__file__))')"/templates/*.yaml "$tdir/"
	echo "# configs: $(ls "$tdir" | wc -l) AIPerf templates"
	# the templates our `config init --template` writes: AIPerf's configuration without its prose
	rm -f "$ROOT"/internal/configfile/templates/*.yaml
	for t in "$tdir"/*.yaml; do
		"$VENV/bin/python" "$HERE/strip_template.py" "$t" "$ROOT/internal/configfile/templates/$(basename "$t")"
	done
	# AIPerf's `config expand -f json` of a few templates (TestConfigExpandMatchesAIPerf)
	for t in sweep_with_plot speed_bench_sweep minimal; do
		"$VENV/bin/aiperf" config expand -f json "$tdir/$t.yaml" >"$ROOT/internal/cli/testdata/aiperf013/expand/$t.json"
	done
	[ -n "${MOCK_URL:-}" ] || mock_start
	(cd "$ROOT" && go build -o "$OUT/aiperf-go" ./cmd/aiperf)
	"$OUT/aiperf-go" config init --force "$OUT/starter.yaml" >/dev/null
	checks=("$OUT/starter.yaml")
	i=0
	for args in "--streaming" "--streaming --export-level raw --export-outputs-json --warmup-request-count 2" \
		"--export-level summary --profile-export-prefix ours --request-rate 20"; do
		i=$((i + 1))
		rm -rf "$OUT/ours-$i"
		# shellcheck disable=SC2086 # the cases' flags split on purpose
		"$OUT/aiperf-go" profile -m mock-model -u "$MOCK_URL" --endpoint-type chat --tokenizer "$TOKENIZER" --ui-type none \
			--isl 32 --osl 8 --request-count 4 --output-artifact-dir "$OUT/ours-$i" $args >"$OUT/ours-$i.log" 2>&1
		for f in "$OUT/ours-$i"/profile_export_aiperf.json "$OUT/ours-$i"/ours.json; do
			[ ! -f "$f" ] || checks+=("$f")
		done
	done
	# our `config init --template X --model --url --output` for every template, through AIPerf's loader
	mkdir -p "$OUT/init"
	for t in "$tdir"/*.yaml; do
		"$OUT/aiperf-go" config init -t "$(basename "$t" .yaml)" -m mock-model -u "$MOCK_URL" -o "$OUT/init/$(basename "$t")" >/dev/null
	done
	"$VENV/bin/python" "$HERE/validate_config.py" yaml "${checks[0]}" "$OUT"/init/*.yaml | grep -v '^OK' || true
	echo "# configs: AIPerf's loader accepts $("$VENV/bin/python" "$HERE/validate_config.py" yaml "$OUT"/init/*.yaml | grep -c '^OK') of $(ls "$OUT"/init/*.yaml | wc -l) of our config init templates"
	"$VENV/bin/python" "$HERE/validate_config.py" yaml "${checks[0]}"
	"$VENV/bin/python" "$HERE/validate_config.py" input "${checks[@]:1}"
	# a sweep's run_config.json files, as AIPerf's BenchmarkRun
	rm -rf "$OUT/ours-sweep"
	"$OUT/aiperf-go" profile -m mock-model -u "$MOCK_URL" --endpoint-type chat --tokenizer "$TOKENIZER" --ui-type none \
		--isl 32 --osl 8 --request-count 2 --concurrency 1,2 --output-artifact-dir "$OUT/ours-sweep" >"$OUT/ours-sweep.log" 2>&1
	"$VENV/bin/python" "$HERE/validate_config.py" run "$OUT"/ours-sweep/*/run_config.json
fi

if step runs; then
	[ -n "${MOCK_URL:-}" ] || mock_start
	(cd "$ROOT" && go build -o "$OUT/aiperf-go" ./cmd/aiperf)
	"$HERE/template_runs.sh" "$OUT/aiperf-go" "$MOCK_URL" "$TOKENIZER" "$OUT/template-runs"
fi

if step report; then
	(cd "$ROOT" && AIPERF_COMPAT_REPORT=1 go test ./internal/cli/ -count=1 -run 'TestAIPerfProfileFlagsAccepted' -v) |
		grep -E '^\s+compat_|accepted|missing' | sed 's/^ *compat_[a-z_]*_test.go:[0-9]*: //'
	(cd "$ROOT" && AIPERF_COMPAT_REPORT=1 go test ./internal/benchmark/ -count=1 -run 'TestAIPerfGolden' -v) |
		grep -E '^\s+compat_golden' | sed 's/^ *compat_golden_test.go:[0-9]*: //'
fi
echo "# work files in $OUT" >&2
