#!/usr/bin/env python3
"""Regenerate the chat-template goldens under testdata/golden/.

The reference is Python jinja2 (3.1.6) set up the way HuggingFace
transformers' apply_chat_template sets it up: an ImmutableSandboxedEnvironment
with trim_blocks and lstrip_blocks, the loopcontrols extension, a
raise_exception global, a tojson filter that does not escape HTML, and a
strftime_now global. strftime_now is pinned to 2026-01-02 03:04:05 so the
goldens are deterministic (the Go test pins the same instant).

Usage: python3 gen_golden.py MODELS_DIR
MODELS_DIR holds <model>-<version>/tokenizer_config.json as fetched by
internal/tokenizer/testmodels (by default ~/.cache/aiperf-go/test-models).
configs/*.json are further tokenizer_config.json files written for these
tests (named templates, AddedToken special tokens, strftime_now).
For each config with a chat template and each case in cases.json it writes
golden/<model>__<case>.txt (the rendering) or golden/<model>__<case>.err (the
message of the error the template raised).
"""
import datetime
import json
import os
import sys

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment

MODELS = ["qwen3", "llama3", "deepseek_v3", "gptoss", "llama2", "gemma3"]
VERSION = "3.7.2"
SPECIAL = ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"]
NOW = datetime.datetime(2026, 1, 2, 3, 4, 5)
HERE = os.path.dirname(os.path.abspath(__file__))


def environment():
    def raise_exception(message):
        raise jinja2.exceptions.TemplateError(message)

    def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
        return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = lambda fmt: NOW.strftime(fmt)
    return env


def pick_template(cfg, tools):
    tmpl = cfg.get("chat_template")
    if isinstance(tmpl, list):
        named = {t["name"]: t["template"] for t in tmpl}
        if tools is not None and "tool_use" in named:
            return named["tool_use"]
        return named.get("default")
    return tmpl


def special_tokens(cfg):
    out = {}
    for key in SPECIAL:
        v = cfg.get(key)
        if isinstance(v, dict):
            v = v.get("content")
        if v is not None:
            out[key] = str(v)
    return out


def main():
    models_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.expanduser("~/.cache/aiperf-go/test-models")
    with open(os.path.join(HERE, "cases.json"), encoding="utf-8") as f:
        cases = json.load(f)
    out_dir = os.path.join(HERE, "golden")
    os.makedirs(out_dir, exist_ok=True)
    env = environment()
    configs = [(m, os.path.join(models_dir, f"{m}-{VERSION}", "tokenizer_config.json")) for m in MODELS]
    for name in sorted(os.listdir(os.path.join(HERE, "configs"))):
        configs.append((name.removesuffix(".json"), os.path.join(HERE, "configs", name)))
    for model, path in configs:
        with open(path, encoding="utf-8") as f:
            cfg = json.load(f)
        for case in cases:
            tools = case.get("tools")
            src = pick_template(cfg, tools)
            if src is None:
                continue
            kwargs = dict(special_tokens(cfg))
            base = os.path.join(out_dir, f"{model}__{case['name']}")
            try:
                text = env.from_string(src).render(
                    messages=case["messages"],
                    tools=tools,
                    documents=None,
                    add_generation_prompt=case["add_generation_prompt"],
                    **kwargs,
                )
            except jinja2.exceptions.TemplateError as e:
                with open(base + ".err", "w", encoding="utf-8") as f:
                    f.write(str(e))
                continue
            with open(base + ".txt", "w", encoding="utf-8", newline="") as f:
                f.write(text)


if __name__ == "__main__":
    main()
