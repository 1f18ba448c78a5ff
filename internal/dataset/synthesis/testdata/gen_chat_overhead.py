#!/usr/bin/env python3
"""Regenerate chat_overhead.json: AIPerf's own chat-template overhead
estimate for each test model, the reference for EstimateChatOverhead.

Runs AIPerf 0.13's _estimate_chat_template_overheads with the model's
HuggingFace tokenizer (transformers), as AIPerf does for
--apply-chat-template, and records (per_request, per_message) and
num_special_tokens_to_add(pair=False).

Usage (with AIPerf and transformers installed, offline):
  HF_HUB_OFFLINE=1 /tmp/aipvenv/bin/python gen_chat_overhead.py [MODELS_DIR]
MODELS_DIR holds <model>-3.7.2/ as fetched by internal/tokenizer/testmodels
(default ~/.cache/aiperf-go/test-models).
"""
import json
import os
import sys

from aiperf.dataset.composer.base import _estimate_chat_template_overheads
from transformers import AutoTokenizer

MODELS = ["qwen3", "llama3", "deepseek_v3", "gptoss", "llama2", "gemma3"]


class Wrapped:
    """The slice of aiperf's Tokenizer the estimate uses."""

    def __init__(self, tok):
        self._tokenizer = tok

    def encode(self, text):
        return self._tokenizer.encode(text, add_special_tokens=False)

    def num_prompt_special_tokens(self):
        return self._tokenizer.num_special_tokens_to_add(pair=False)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser("~/.cache/aiperf-go/test-models")
    out = {}
    for m in MODELS:
        w = Wrapped(AutoTokenizer.from_pretrained(os.path.join(root, f"{m}-3.7.2")))
        fixed, wrap = _estimate_chat_template_overheads(w)
        out[m] = {"per_request": fixed, "per_message": wrap, "prompt_special_tokens": w.num_prompt_special_tokens()}
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "chat_overhead.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
