#!/usr/bin/env python3
"""Regenerates the endpoint goldens of internal/cli/endpoints_golden_test.go.

Each case runs NVIDIA AIPerf 0.13.0 (a test reference only; the product
never needs Python) against this program's mock server, with the inputs
under internal/cli/testdata/aiperf013/endpoints/inputs, and keeps:

  * the request bodies AIPerf wrote to inputs.json (or, for verbatim
    datasets, for which AIPerf writes none, the bodies the mock received),
  * the API requests the mock recorded, headers with per-request values
    masked,
  * the metric tags of AIPerf's summary,

as internal/cli/testdata/aiperf013/endpoints/<case>.json.

  AIPERF=/work/aip/bin/aiperf scripts/aiperf-endpoint-goldens.py [case ...]

It needs the llama3 test tokenizer (go test ./internal/tokenizer/... fetches
it into ~/.cache/aiperf-go/test-models) and builds ./cmd/aiperf for the
mock server. Each case takes AIPerf about 40 s to start and stop.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GOLDENS = os.path.join(ROOT, "internal/cli/testdata/aiperf013/endpoints")
AIPERF = os.environ.get("AIPERF", "aiperf")
TOKENIZER = os.path.expanduser(
    os.environ.get("AIPERF_TEST_TOKENIZER", "~/.cache/aiperf-go/test-models/llama3-3.7.2"))

F = ["--custom-dataset-type", "single_turn", "--input-file"]
STREAM = ["--ttft", "2", "--itl", "1"]  # streams: tokens arrive apart, so ITL is never 0

# name: (args, mock options, URL path, tokenizer)
CASES = {
    "chat": (["--endpoint-type", "chat", *F, "text.jsonl", "--request-count", "2", "--extra-inputs", "temperature:0.3"],),
    "chat_stream": (["--endpoint-type", "chat", "--streaming", *F, "text.jsonl", "--request-count", "2"], STREAM),
    "chat_perchunk": (["--endpoint-type", "chat", "--streaming", "--use-server-token-count", "--per-chunk-usage",
                       *F, "text.jsonl", "--request-count", "2"], STREAM),
    "chat_multimodal": (["--endpoint-type", "chat", *F, "mm.jsonl", "--request-count", "1"],),
    "chat_uuid": (["--endpoint-type", "chat", *F, "uuid.jsonl", "--request-count", "3"],),
    "chat_uuid_strip": (["--endpoint-type", "chat", *F, "uuid.jsonl", "--request-count", "3", "--uuid-and-strip"],),
    "chat_video": (["--endpoint-type", "chat", "--random-seed", "5", "--num-dataset-entries", "1", "--request-count", "1",
                    "--isl", "8", "--video-batch-size", "1", "--video-width", "32", "--video-height", "32",
                    "--video-duration", "1", "--video-format", "mp4", "--video-codec", "mpeg4"],),
    "chat_video_defaults": (["--endpoint-type", "chat", "--random-seed", "5", "--num-dataset-entries", "1",
                             "--request-count", "1", "--isl", "8", "--video-width", "32", "--video-height", "32"],),
    "completions": (["--endpoint-type", "completions", *F, "text.jsonl", "--request-count", "2"],),
    "completions_stream": (["--endpoint-type", "completions", "--streaming", *F, "text.jsonl", "--request-count", "2"], STREAM),
    "responses": (["--endpoint-type", "responses", *F, "text.jsonl", "--request-count", "2"],),
    "responses_stream": (["--endpoint-type", "responses", "--streaming", *F, "text.jsonl", "--request-count", "2",
                          "--extra-inputs", "temperature:0.3"], STREAM),
    "responses_usage": (["--endpoint-type", "responses", "--streaming", "--use-server-token-count", *F, "text.jsonl",
                         "--request-count", "2"], STREAM),
    "messages": (["--endpoint-type", "messages", *F, "text.jsonl", "--request-count", "2"],),
    "messages_stream": (["--endpoint-type", "messages", "--streaming", *F, "text.jsonl", "--request-count", "2",
                         "--api-key", "sk-test", "--extra-inputs", "temperature:0.3"], STREAM),
    "tgi": (["--endpoint-type", "huggingface_generate", *F, "tgi.jsonl", "--request-count", "2"],),
    "tgi_stream": (["--endpoint-type", "huggingface_generate", "--streaming", *F, "tgi.jsonl", "--request-count", "2",
                    "--extra-inputs", "temperature:0.5"], STREAM),
    "solido": (["--endpoint-type", "solido_rag", *F, "text.jsonl", "--request-count", "2"],),
    "embeddings": (["--endpoint-type", "embeddings", *F, "texts.jsonl", "--request-count", "1",
                    "--extra-inputs", "encoding_format:float"],),
    "synth_embeddings": (["--endpoint-type", "embeddings", "--random-seed", "3", "--num-dataset-entries", "2",
                          "--request-count", "2", "--batch-size", "3", "--isl", "12"],),
    "nim_embeddings": (["--endpoint-type", "nim_embeddings", *F, "img.jsonl", "--request-count", "1"],),
    "chat_embeddings": (["--endpoint-type", "chat_embeddings", *F, "img.jsonl", "--request-count", "1"],),
    "nim_rankings": (["--endpoint-type", "nim_rankings", *F, "rank.jsonl", "--request-count", "1"],),
    "hf_tei_rankings": (["--endpoint-type", "hf_tei_rankings", *F, "rank.jsonl", "--request-count", "1",
                         "--extra-inputs", "truncate:true"],),
    "cohere_rankings": (["--endpoint-type", "cohere_rankings", *F, "rank.jsonl", "--request-count", "1"],),
    "synth_rankings": (["--endpoint-type", "nim_rankings", "--random-seed", "42", "--num-dataset-entries", "3",
                        "--request-count", "3", "--rankings-passages-mean", "3", "--rankings-passages-stddev", "1",
                        "--rankings-passages-prompt-token-mean", "20", "--rankings-query-prompt-token-mean", "8"],),
    "synth_rankings_default": (["--endpoint-type", "cohere_rankings", "--random-seed", "7", "--num-dataset-entries", "2",
                                "--request-count", "2"],),
    "image_generation": (["--endpoint-type", "image_generation", *F, "text.jsonl", "--request-count", "2",
                          "--extra-inputs", "size:1024x1024"],),
    "image_generation_stream": (["--endpoint-type", "image_generation", "--streaming", *F, "text.jsonl",
                                 "--request-count", "1", "--extra-inputs", "partial_images:2"], STREAM),
    "image_edit": (["--endpoint-type", "image_edit", *F, "img.jsonl", "--request-count", "1",
                    "--extra-inputs", "prompt:ignored", "strength:0.6"],),
    "video_generation": (["--endpoint-type", "video_generation", *F, "text.jsonl", "--request-count", "1",
                          "--extra-inputs", "seconds:4", "size:640x480"],),
    "video_download": (["--endpoint-type", "video_generation", *F, "text.jsonl", "--request-count", "1",
                        "--download-video-content"],),
    "audio_transcription": (["--endpoint-type", "audio_transcription", *F, "audio.jsonl", "--request-count", "1",
                             "--extra-inputs", "language:en"], None, "", False),
    "image_retrieval": (["--endpoint-type", "image_retrieval", *F, "imgonly.jsonl", "--request-count", "2"], None, "", False),
    "template_named": (["--endpoint-type", "template", *F, "texts.jsonl", "--request-count", "1",
                        "--extra-inputs", "payload_template:nv-embedqa"], None, "/v1/embeddings"),
    "template_inline": (["--endpoint-type", "template", *F, "text.jsonl", "--request-count", "2", "--extra-inputs",
                         json.dumps({"payload_template": '{"prompt": "{{ text }}", "model": "{{ model }}", '
                                     '"max_tokens": {{ max_tokens|tojson }}, "stream": {{ stream|tojson }}}',
                                     "response_field": "choices[0].text"})], None, "/v1/completions"),
    "template_file": (["--endpoint-type", "template", *F, "text.jsonl", "--request-count", "2",
                       "--extra-inputs", "payload_template:@DIR@/tpl.j2", "top_k:5"], None, "/v1/completions"),
    "raw": (["--endpoint-type", "raw", "--custom-dataset-type", "inputs_json", "--input-file", "rawin.json",
             "--request-count", "2"], None, "/v1/completions"),
    "raw_chat": (["--endpoint-type", "raw", "--custom-dataset-type", "raw_payload", "--input-file", "rawchat.jsonl",
                  "--request-count", "1"], None, "/v1/chat/completions"),
}

PER_REQUEST = {"X-Request-Id", "X-Correlation-Id", "X-Session-Affinity"}
DROPPED = {"Content-Length", "User-Agent", "Accept-Encoding"}


def run_case(name, spec, mock_bin, work):
    args, mock, url_path, tokenizer = (list(spec) + [None, "", True][len(spec) - 1:])[:4]
    mock = mock or ["--fast"]
    out = os.path.join(work, "out", name)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    rec = os.path.join(out, "rec.jsonl")
    server = subprocess.Popen([mock_bin, "mock-server", "-p", "0", *mock, "--record-requests", rec],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        url = None
        for line in server.stdout:
            m = re.search(r"http://127\.0\.0\.1:\d+", line)
            if m:
                url = m.group(0)
                break
        cmd = [AIPERF, "profile", "-m", "mock-model", "-u", url + url_path, "--concurrency", "1", "--ui-type", "none",
               "--output-artifact-dir", os.path.join(out, "art")]
        if tokenizer:
            cmd += ["--tokenizer", TOKENIZER]
        cmd += [a.replace("@DIR@", work) for a in args]
        with open(os.path.join(out, "aiperf.log"), "w") as log:
            rc = subprocess.run(cmd, cwd=work, stdout=log, stderr=subprocess.STDOUT, timeout=300).returncode
    finally:
        server.send_signal(2)
        server.wait(timeout=30)
    if rc != 0:
        sys.exit(f"{name}: AIPerf exited {rc}; see {out}/aiperf.log")
    return args, mock, url_path, tokenizer, out


def golden(args, mock, url_path, tokenizer, out):
    art = os.path.join(out, "art")
    requests, posted = [], []
    for line in open(os.path.join(out, "rec.jsonl")):
        r = json.loads(line)
        path = r["path"]
        if r["method"] == "HEAD" or path.endswith("/metrics") or path in ("/health", "/v1/models"):
            continue
        if r["method"] == "POST" and "body" in r:
            posted.append(r["body"])
        headers = {}
        for k, v in r["headers"].items():
            if k in DROPPED:
                continue
            if k in PER_REQUEST:
                v = ["<per-request>"]
            if k == "Content-Type":
                v = [re.sub(r"boundary=.*", "boundary=<boundary>", x) for x in v]
            headers[k] = v
        shape = {"method": r["method"], "path": re.sub(r"^(/v1/videos/)[^/]+", r"\1{id}", path), "headers": headers}
        if shape not in requests:
            requests.append(shape)
    inputs = os.path.join(art, "inputs.json")
    if os.path.exists(inputs):
        sessions = [s["payloads"] for s in json.load(open(inputs))["data"]]
    else:  # verbatim datasets: AIPerf writes no inputs.json
        sessions = [[b] for b in posted]
    summary = json.load(open(os.path.join(art, "profile_export_aiperf.json")))
    metrics = sorted(k for k, v in summary.items() if isinstance(v, dict) and "unit" in v)
    return {"args": args, "mock": mock, "url_path": url_path, "tokenizer": tokenizer,
            "inputs_json": os.path.exists(inputs), "sessions": sessions, "requests": requests, "metrics": metrics}


def main():
    names = sys.argv[1:] or list(CASES)
    work = tempfile.mkdtemp(prefix="aiperf-endpoint-goldens.")
    inputs = os.path.join(GOLDENS, "inputs")
    for f in os.listdir(inputs):
        data = open(os.path.join(inputs, f), "rb").read().replace(b"@DIR@", work.encode())
        open(os.path.join(work, f), "wb").write(data)
    mock_bin = os.path.join(work, "aiperf-go")
    subprocess.run(["go", "build", "-o", mock_bin, "./cmd/aiperf"], cwd=ROOT, check=True,
                   env={**os.environ, "GOTOOLCHAIN": os.environ.get("GOTOOLCHAIN", "local")})
    for name in names:
        started = time.time()
        g = golden(*run_case(name, CASES[name], mock_bin, work))
        with open(os.path.join(GOLDENS, name + ".json"), "w") as f:
            json.dump(g, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(f"{name}: {sum(map(len, g['sessions']))} bodies, {len(g['requests'])} request shapes, "
              f"{len(g['metrics'])} metrics ({time.time() - started:.0f} s)")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
