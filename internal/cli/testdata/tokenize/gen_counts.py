#!/usr/bin/env python3
"""Regenerate counts.json, the reference for `aiperf tokenize`.

For each test model it records the token ids of sample.txt without and with
special tokens, and the ids of sample.txt rendered as one user message with
the model's chat template and add_generation_prompt=True, encoded without
special tokens (what HF apply_chat_template(tokenize=True) returns). Ids come
from npm tokenizers@0.23.2 (encode.js); the chat template is rendered with
Python jinja2 set up as HF sets it up (../../../chattemplate/testdata/
gen_golden.py). A model without a chat template records "chat_template": null.

Usage: python3 gen_counts.py MODELS_DIR TOKREF_DIR
MODELS_DIR holds <model>-<version>/ as fetched by internal/tokenizer/testmodels
(default ~/.cache/aiperf-go/test-models); TOKREF_DIR holds node_modules with
tokenizers@0.23.2 (default ~/.cache/aiperf-go/tokref).
"""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "chattemplate", "testdata"))
import gen_golden  # noqa: E402


def main():
    models_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser("~/.cache/aiperf-go/test-models")
    tokref = sys.argv[2] if len(sys.argv) > 2 else os.path.expanduser("~/.cache/aiperf-go/tokref")
    with open(os.path.join(HERE, "sample.txt"), encoding="utf-8", newline="") as f:
        sample = f.read()
    env = gen_golden.environment()
    reqs, rendered = [], {}
    for model in gen_golden.MODELS:
        d = os.path.join(models_dir, f"{model}-{gen_golden.VERSION}")
        with open(os.path.join(d, "tokenizer_config.json"), encoding="utf-8") as f:
            cfg = json.load(f)
        tok = os.path.join(d, "tokenizer.json")
        reqs.append({"tokenizer": tok, "text": sample, "special": False})
        reqs.append({"tokenizer": tok, "text": sample, "special": True})
        src = gen_golden.pick_template(cfg, None)
        if src is not None:
            rendered[model] = env.from_string(src).render(
                messages=[{"role": "user", "content": sample}], tools=None, documents=None,
                add_generation_prompt=True, **gen_golden.special_tokens(cfg))
            reqs.append({"tokenizer": tok, "text": rendered[model], "special": False})
    res = subprocess.run(["node", os.path.join(HERE, "encode.js")], input=json.dumps(reqs).encode(),
                         capture_output=True, check=True, env={**os.environ, "NODE_PATH": os.path.join(tokref, "node_modules")})
    ids = iter(json.loads(res.stdout))
    out = {}
    for model in gen_golden.MODELS:
        plain, special = next(ids), next(ids)
        entry = {"ids": plain, "ids_special": special, "chat_template": None}
        if model in rendered:
            entry["chat_template"] = len(next(ids))
        out[model] = entry
    with open(os.path.join(HERE, "counts.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
