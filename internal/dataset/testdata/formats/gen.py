"""Regenerates the fixtures of the custom dataset formats (formats_test.go):
one small example per format, in the shape AIPerf 0.13's loaders read.

    /work/aip/bin/python gen.py     # any Python with pyarrow
"""
import base64
import gzip
import json
import os

import pyarrow as pa
import pyarrow.parquet as pq

HERE = os.path.dirname(os.path.abspath(__file__))


def write(path, text):
    full = os.path.join(HERE, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text)


def lines(rows):
    return "".join(json.dumps(r) + "\n" for r in rows)


def weka():
    def trace(tid, extra_sub, second_in):
        reqs = [
            {"t": 0.0, "type": "n", "model": "claude-sonnet-4", "in": 300, "out": 50, "hash_ids": [1, 2, 3, 4], "input_types": ["text"],
             "output_types": ["text"], "stop": "tool_use", "api_time": 2.0, "think_time": 0.0},
            {"t": 3.0, "type": "s", "model": "claude-sonnet-4", "in": second_in, "out": 20, "hash_ids": [1, 2, 3, 4, 5, 6], "input_types": ["tool_result"],
             "output_types": ["text"], "stop": "end_turn", "api_time": 0.5, "think_time": 0.4, "ttft": 0.1},
            {"t": 4.0, "type": "n", "model": "claude-haiku-4", "in": 200, "out": 10, "hash_ids": [9, 10, 11], "input_types": ["text"],
             "output_types": ["text"], "stop": "end_turn", "api_time": 0.2, "think_time": 0.1},
        ]
        if extra_sub:
            reqs.insert(1, {"t": 2.1, "type": "subagent", "agent_id": "agent_001", "subagent_type": "Explore", "duration_ms": 800, "total_tokens": 300,
                            "tool_use_count": 1, "status": "completed", "models": ["claude-haiku-4"], "tool_tokens": 0, "system_tokens": 0,
                            "requests": [{"t": 0.1, "type": "n", "model": "claude-haiku-4", "in": 150, "out": 12, "hash_ids": [20, 21],
                                          "input_types": ["text"], "output_types": ["text"], "stop": "end_turn", "api_time": 0.3, "think_time": 0.0}]})
        return {"id": tid, "models": ["claude-sonnet-4", "claude-haiku-4"], "block_size": 64, "hash_id_scope": "local",
                "tool_tokens": 64, "system_tokens": 64, "requests": reqs}
    write("weka/a.json", json.dumps(trace("trace-a", True, 420), indent=1))
    write("weka/b.json", json.dumps(trace("trace-b", False, 380)))


def tracelab():
    rows = []
    for s, sid in enumerate(["sess-1", "sess-2"]):
        for i in range(3):
            base = f"2026-03-0{s+1}T12:00:{10*i:02d}"
            rows.append({"session_id": sid, "round_index": i, "model": "gpt-5-codex" if s else "claude-opus-4",
                         "input_tokens_total": 200 + 100 * i, "prefix_tokens": 0 if i == 0 else 200 + 100 * (i - 1),
                         "newly_append_tokens": 50, "output_tokens": 40, "reasoning_output_tokens": 5 if s else None,
                         "first_input_event_type": "user_message" if i == 0 else "tool_result",
                         "timing_events": [{"event_type": "user_message" if i == 0 else "tool_result", "timestamp": base + ".000Z"},
                                           {"event_type": "text", "timestamp": base + ".900Z"},
                                           {"event_type": "tool_call", "timestamp": base + ".950Z"}],
                         "tools": []})
    rows.append({"round_index": 0, "note": "a row without a session is skipped"})
    with gzip.open(os.path.join(HERE, "tracelab.jsonl.gz"), "wt") as f:
        f.write(lines(rows))


def baseten():
    t = pa.table({
        "timestamp_start_unix_ms": pa.array([1_700_000_001_000, 1_700_000_000_000, 1_700_000_002_500, 1_700_000_004_000], pa.int64()),
        "prompt": ["<s>User: second turn of session A", "<s>User: first turn of session A", "<s>User: session B", "<s>User: no session"],
        "input_tokens": pa.array([12, 8, 6, 5], pa.int64()),
        "output_tokens": pa.array([20, 0, 7, 3], pa.int64()),
        "total_hashes": pa.array([[11, 12], [11], [], None], pa.list_(pa.int64())),
        "provided_session_id": ["A", "A", "B", None],
        "duration_e2e_ms": pa.array([300, 400, 200, 100], pa.int64()),
        "block_size": pa.array([64, 64, 64, 64], pa.int64()),
    })
    pq.write_table(t, os.path.join(HERE, "baseten.parquet"))


def capture():
    def rec(eid, when, body, enc, usage=None):
        data = json.dumps(body)
        inp = {"data": data, "encoding": "JSON", "mode": "INPUT", "observedContentType": "application/json"}
        if enc == "BASE64":
            inp = {"data": base64.b64encode(data.encode()).decode(), "encoding": "BASE64", "mode": "INPUT"}
        out = {"data": json.dumps({"usage": usage or {"prompt_tokens": 9, "completion_tokens": 4}}), "encoding": "JSON", "mode": "OUTPUT"}
        return {"captureData": {"endpointInput": inp, "endpointOutput": out}, "eventMetadata": {"eventId": eid, "inferenceTime": when}, "eventVersion": "0"}
    write("capture/2026/04/29/00/a.jsonl", lines([
        rec("e2", "2026-04-29T00:03:20Z", {"messages": [{"role": "user", "content": "Second"}], "max_completion_tokens": 7}, "BASE64"),
        rec("e1", "2026-04-29T00:03:18.500Z", {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hello"}],
                                               "max_tokens": 50, "tools": [{"type": "function", "function": {"name": "f", "parameters": {}}}]}, "JSON"),
    ]))
    write("capture/2026/04/29/01/b.jsonl", lines([
        rec("e3", "2026-04-29T01:00:00Z", {"messages": [{"role": "user", "content": "Later"}]}, "JSON"),
    ]))


def dag():
    write("dag.jsonl", lines([
        {"session_id": "root", "turns": [
            {"messages": [{"role": "system", "content": "You plan."}, {"role": "user", "content": "Plan the work."}], "max_tokens": 64,
             "extra": {"temperature": 0.1}, "forks": ["fork-a"]},
            {"messages": [{"role": "user", "content": "Now summarize."}], "delay": 250, "spawns": [{"children": ["spawn-b"], "join_at": 1}]},
        ]},
        {"session_id": "fork-a", "turns": [{"messages": [{"role": "user", "content": "Continue in the fork."}], "model": "small-model"}]},
        {"session_id": "spawn-b", "context_mode": "message_array_with_responses", "turns": [
            {"messages": [{"role": "user", "content": "Fresh child."}], "tools": [{"type": "function", "function": {"name": "g"}}]}]},
        {"session_id": "orch", "orchestrator": True, "spawns": ["spawn-b"]},
    ]))


def speed_bench():
    def row(i, cat, msgs):
        return {"question_id": f"{i:032x}", "category": cat, "messages": msgs}
    cats = ["coding", "humanities", "math", "multilingual", "qa", "rag", "reasoning", "roleplay", "stem", "summarization", "writing"]
    rows = [row(1, "coding", [{"role": "user", "content": "Write a quicksort in Go."}]),
            row(2, "math", [{"role": "system", "content": "Answer with a number."}, {"role": "user", "content": "What is 7*8?"}]),
            row(3, "coding", [{"role": "user", "content": "Explain closures."}, {"role": "user", "content": "Give an example."}])]
    rows += [row(100 + i, c, [{"role": "user", "content": f"A {c} question."}]) for i, c in enumerate(cats) if c not in ("coding", "math")]
    write("speedbench/qualitative.jsonl", lines(rows))
    for n, size in enumerate(["1k", "2k", "8k", "16k", "32k"]):
        write(f"speedbench/throughput_{size}.jsonl", lines([
            row(1000 * (n + 1) + 1, "low_entropy", [{"role": "user", "content": "Repeat the word apple twenty times."}]),
            row(1000 * (n + 1) + 2, "high_entropy", [{"role": "user", "content": "Write a poem about entropy."}]),
            row(1000 * (n + 1) + 3, "mixed", [{"role": "user", "content": "Summarize this paragraph."}]),
        ]))


def mooncake():
    write("mooncake_messages.jsonl", lines([
        {"session_id": "m", "timestamp": 0, "messages": [{"role": "user", "content": "Hi"}], "tools": [{"type": "function", "function": {"name": "t"}}],
         "output_length": 5},
        {"session_id": "m", "delay": 100, "messages": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"},
                                                         {"role": "user", "content": "Bye"}], "output_length": 3},
    ]))


for f in (weka, tracelab, baseten, capture, dag, speed_bench, mooncake):
    f()
