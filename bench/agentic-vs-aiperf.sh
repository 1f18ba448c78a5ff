#!/usr/bin/env bash
# Agentic replay (--scenario inferencex-agentx-mvp) of the same two small
# Weka traces (bench/testdata/agentic: a main agent every 0.4 s and a
# subagent it spawns and joins) by this repository's client and by NVIDIA
# AIPerf 0.13 (PyPI, a test reference), against the same mock, with the
# same seed. Prints each run's requests in send order (phase, conversation,
# turn, ms after the first request) side by side, then checks that the
# cache-bust markers follow AIPerf's tree digest
# sha256("<benchmark id>:<pass>:<lane>:<trace>"). A benchmark, not a test.
#
#   bench/agentic-vs-aiperf.sh
#   SEED=7 DURATION=5 bench/agentic-vs-aiperf.sh
#   AIPERF=/path/to/venv/bin/aiperf bench/agentic-vs-aiperf.sh
#
# AIPerf needs a local tokenizer folder (TOKENIZER, default the qwen3 test
# model); it runs without HF_HUB_OFFLINE.
source "$(dirname "$0")/lib.sh"

AIPERF=${AIPERF:-/work/aip/bin/aiperf}
TOKENIZER=${TOKENIZER:-$HOME/.cache/aiperf-go/test-models/qwen3-3.7.2}
SEED=${SEED:-5}
DURATION=${DURATION:-3}
unset HF_HUB_OFFLINE

build
machine
start_mock
trap stop_mock EXIT

common=(profile --scenario inferencex-agentx-mvp --unsafe-override --benchmark-duration "$DURATION" --concurrency 2
	-m mock-model -u "$URL" --tokenizer "$TOKENIZER" --custom-dataset-type weka_trace
	--input-file "$ROOT/bench/testdata/agentic" --random-seed "$SEED" --ui-type none --export-level raw)
"$AIPERF" "${common[@]}" --output-artifact-dir "$OUT/aiperf" >"$OUT/aiperf.log" 2>&1
"$BIN/aiperf" "${common[@]}" --output-artifact-dir "$OUT/go" >"$OUT/go.log" 2>&1

python3 - "$OUT/aiperf" "$OUT/go" <<'PY'
import hashlib, json, re, sys

def run(d):
    rows, markers = [], {}
    for line in open(d + "/profile_export_raw.jsonl"):
        r = json.loads(line)
        m = r["metadata"]
        rows.append((m["request_start_ns"], m["benchmark_phase"], m["conversation_id"], m["turn_index"]))
        for rid in re.findall(r"\[rid:([0-9a-f]+)\]", json.dumps(r)):
            markers.setdefault(rid, set()).add(m["conversation_id"])
    rows.sort()
    bid = json.load(open(d + "/profile_export_aiperf.json"))["benchmark_id"]
    return rows, markers, bid

(a, am, abid), (g, gm, gbid) = run(sys.argv[1]), run(sys.argv[2])
print(f"{'AIPerf 0.13':<42} | aiperf-go")
same = 0
for i in range(max(len(a), len(g))):
    def cell(rows):
        if i >= len(rows):
            return ""
        t, ph, c, k = rows[i]
        return f"{(t - rows[0][0]) / 1e6:7.0f} ms {ph:<9} {c}[{k}]"
    ca, cg = cell(a), cell(g)
    if i < len(a) and i < len(g) and a[i][1:] == g[i][1:]:
        same += 1
    print(f"{ca:<42} | {cg}")
print(f"requests: AIPerf {len(a)}, aiperf-go {len(g)}; the first {same} match in (phase, conversation, turn) order"
      if all(x[1:] == y[1:] for x, y in zip(a[:same], g[:same])) else f"requests: AIPerf {len(a)}, aiperf-go {len(g)}")
n = min(len(a), len(g))
k = next((i for i in range(n) if a[i][1:] != g[i][1:]), n)
print(f"identical (phase, conversation, turn) sequence for the first {k} requests")
for name, marks, bid in (("AIPerf", am, abid), ("aiperf-go", gm, gbid)):
    digests = {hashlib.sha256(f"{bid}:{p}:{l}:{t}".encode()).hexdigest()[:12]
               for p in range(8) for l in range(2) for t in ("ta", "tb")}
    print(f"{name}: {len(marks)} cache-bust markers, {sum(m in digests for m in marks)} of them sha256(benchmark:pass:lane:trace); "
          f"shared by main and subagent: {sum(len(c) > 1 for c in marks.values())}")
PY
