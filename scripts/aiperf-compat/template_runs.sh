#!/usr/bin/env bash
# Runs every config template `aiperf config init` offers (AIPerf 0.13's 27)
# against this repo's mock server, the model and URL overridden with --model
# and --url as a user would, shortened with command-line flags (flags
# override the file). Called by scripts/aiperf-compat.sh (step runs); alone:
#
#   scripts/aiperf-compat/template_runs.sh AIPERF_GO MOCK_URL TOKENIZER_DIR WORKDIR
#
# The datasets the templates name are made here, small and in the formats
# the templates declare: mooncake traces for fixed_schedule and trace_replay,
# SPEED-Bench's qualitative split (a row per category) for speed_bench_sweep,
# and ShareGPT in a HuggingFace hub cache (HF_HUB_OFFLINE) for
# public_dataset, so nothing is downloaded. Prints one line per template
# and "templates run: N of 27"; exits 1 when any failed. TEMPLATES="a b"
# runs only those.
set -uo pipefail
BIN=$1 MOCK=$2 TOK=$3 WORK=$4
mkdir -p "$WORK"
cd "$WORK" || exit 1
mkdir -p data datasets/speed-bench
python3 - <<'PY'
import hashlib, json, os
with open("data/precise_schedule.jsonl", "w") as f:
    for i, t in enumerate([0, 50, 120, 300]):
        f.write(json.dumps({"timestamp": t, "input_length": 32 + i, "output_length": 4, "hash_ids": [i]}) + "\n")
with open("data/production_trace.jsonl", "w") as f:
    for i, t in enumerate([0, 100, 200, 400]):
        f.write(json.dumps({"timestamp": t, "input_length": 600, "output_length": 4, "hash_ids": [i, i + 10]}) + "\n")
cats = ["coding", "humanities", "math", "multilingual", "qa", "rag", "reasoning", "roleplay", "stem", "summarization", "writing"]
with open("datasets/speed-bench/qualitative.jsonl", "w") as f:
    for i, c in enumerate(cats):
        for j in range(2):
            f.write(json.dumps({"question_id": hashlib.md5(f"{c}-{j}".encode()).hexdigest(), "category": c,
                                "messages": [{"role": "user", "content": f"A {c} question, number {j}: explain briefly."}]}) + "\n")
repo = "hub/datasets--anon8231489123--ShareGPT_Vicuna_unfiltered"
sha = "0" * 40
os.makedirs(f"{repo}/refs", exist_ok=True)
os.makedirs(f"{repo}/snapshots/{sha}", exist_ok=True)
open(f"{repo}/refs/main", "w").write(sha)
convs = [{"id": str(i), "conversations": [
    {"from": "human", "value": "Tell me about the sea and the ships that sail on it, please. " * 3},
    {"from": "gpt", "value": "The sea is wide and the ships are many and they sail far. " * 3}]} for i in range(8)]
json.dump(convs, open(f"{repo}/snapshots/{sha}/ShareGPT_V3_unfiltered_cleaned_split.json", "w"))
PY
# extra flags per template: shortened loads; templates whose load is set by
# sessions or users keep those semantics
declare -A EXTRA=(
	[multi_turn_conversation]="--num-sessions 2"
	[kv_cache_test]="--request-count 30"
	[time_based_soak]="--benchmark-duration 3 --benchmark-grace-period 2"
	[fixed_schedule]=""
	[trace_replay]=""
	[public_dataset]="--request-count 4 --num-dataset-entries 4"
)
# the rest: 4 requests per profiling phase, no cooldowns between sweep
# variations and repeated runs
short() {
	local f="--request-count 4"
	grep -q '^sweep:' "$1" && f+=" --parameter-sweep-cooldown-seconds 0"
	grep -q 'numRuns:' "$1" && f+=" --profile-run-cooldown-seconds 0"
	echo "$f"
}
ok=0 n=0
for name in $("$BIN" config init --list | awk '/^  [a-z]/ && $1 != "Name" {print $1}'); do
	[ -z "${TEMPLATES:-}" ] || [[ " $TEMPLATES " == *" $name "* ]] || continue # TEMPLATES="a b": only those
	n=$((n + 1))
	"$BIN" config init -t "$name" -m mock-model -u "$MOCK" -o "$name.yaml" >/dev/null
	extra=${EXTRA[$name]-$(short "$name.yaml")}
	start=$(date +%s)
	# shellcheck disable=SC2086 # the flags split on purpose
	HF_HUB_CACHE=$WORK/hub HF_HUB_OFFLINE=1 MODEL_NAME=mock-model INFERENCE_URL=$MOCK timeout 600 \
		"$BIN" profile -f "$name.yaml" --tokenizer "$TOK" --ui-type none --output-artifact-dir "out-$name" $extra >"$name.log" 2>&1
	rc=$?
	if [ $rc -eq 0 ]; then
		ok=$((ok + 1))
		echo "ok   $name ($(($(date +%s) - start)) s) $extra"
	else
		echo "FAIL $name: exit $rc: $(grep -m1 -E '^Error|^  ' "$name.log")"
	fi
done
echo "# templates run: $ok of $n"
[ -n "${TEMPLATES:-}" ] || [ "$n" -eq 27 ] || { echo "want 27 templates, config init lists $n"; exit 1; }
[ "$ok" -eq "$n" ]
