#!/usr/bin/env python3
"""Writes a tiny random-weight Qwen3 GGUF with the real Qwen3 vocabulary.

Usage: tiny-gguf.py TOKENIZER_DIR OUT.gguf

TOKENIZER_DIR holds the tokenizer.json and tokenizer_config.json of Qwen3
(internal/tokenizer/testmodels fetches them). The model has 2 layers,
hidden size 64, 4 query heads and 2 key/value heads of 16: it answers in
milliseconds on a CPU and produces random tokens, which is all a benchmark
client's integration test needs (with ignore_eos it emits exactly the
requested number of tokens). Used by scripts/llama-server.sh; a test
reference only, the product never runs Python.
"""

import json
import sys

import numpy as np
import gguf

HIDDEN, LAYERS, HEADS, KV_HEADS, HEAD_DIM, FFN, CTX = 64, 2, 4, 2, 16, 128, 4096


def vocab(tok):
    """Tokens, types and merges as llama.cpp's GPT-2 style BPE wants them:
    one entry per id up to the largest, gaps filled with unused pads."""
    model = tok["model"]
    ids = dict(model["vocab"])
    special = {}
    for a in tok.get("added_tokens", []):
        ids[a["content"]] = a["id"]
        special[a["id"]] = a.get("special", False)
    size = max(ids.values()) + 1
    tokens = [f"[PAD{i}]" for i in range(size)]
    types = [gguf.TokenType.UNUSED] * size
    for text, i in ids.items():
        tokens[i] = text
        if i in special:
            types[i] = gguf.TokenType.CONTROL if special[i] else gguf.TokenType.USER_DEFINED
        else:
            types[i] = gguf.TokenType.NORMAL
    merges = [m if isinstance(m, str) else " ".join(m) for m in model["merges"]]
    return tokens, types, merges


def main():
    tokdir, out = sys.argv[1], sys.argv[2]
    with open(f"{tokdir}/tokenizer.json", encoding="utf-8") as f:
        tok = json.load(f)
    with open(f"{tokdir}/tokenizer_config.json", encoding="utf-8") as f:
        tcfg = json.load(f)
    tokens, types, merges = vocab(tok)
    index = {t: i for i, t in enumerate(tokens)}

    w = gguf.GGUFWriter(out, "qwen3")
    w.add_name("qwen3-tiny-random")
    w.add_context_length(CTX)
    w.add_embedding_length(HIDDEN)
    w.add_block_count(LAYERS)
    w.add_feed_forward_length(FFN)
    w.add_head_count(HEADS)
    w.add_head_count_kv(KV_HEADS)
    w.add_key_length(HEAD_DIM)
    w.add_value_length(HEAD_DIM)
    w.add_rope_freq_base(1000000.0)
    w.add_layer_norm_rms_eps(1e-6)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)

    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre("qwen2")
    w.add_token_list(tokens)
    w.add_token_types(types)
    w.add_token_merges(merges)
    w.add_bos_token_id(index["<|endoftext|>"])
    w.add_eos_token_id(index["<|im_end|>"])
    w.add_pad_token_id(index["<|endoftext|>"])
    w.add_add_bos_token(False)
    if tcfg.get("chat_template"):
        w.add_chat_template(tcfg["chat_template"])

    rng = np.random.default_rng(0)

    def rand(*shape):
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    def ones(n):
        return np.ones(n, dtype=np.float32)

    # numpy shapes are ggml's dimensions reversed; output.weight is left
    # out, so llama.cpp ties it to the token embedding.
    w.add_tensor("token_embd.weight", rand(len(tokens), HIDDEN))
    w.add_tensor("output_norm.weight", ones(HIDDEN))
    for b in range(LAYERS):
        p = f"blk.{b}."
        w.add_tensor(p + "attn_norm.weight", ones(HIDDEN))
        w.add_tensor(p + "attn_q.weight", rand(HEADS * HEAD_DIM, HIDDEN))
        w.add_tensor(p + "attn_k.weight", rand(KV_HEADS * HEAD_DIM, HIDDEN))
        w.add_tensor(p + "attn_v.weight", rand(KV_HEADS * HEAD_DIM, HIDDEN))
        w.add_tensor(p + "attn_output.weight", rand(HIDDEN, HEADS * HEAD_DIM))
        w.add_tensor(p + "attn_q_norm.weight", ones(HEAD_DIM))
        w.add_tensor(p + "attn_k_norm.weight", ones(HEAD_DIM))
        w.add_tensor(p + "ffn_norm.weight", ones(HIDDEN))
        w.add_tensor(p + "ffn_gate.weight", rand(FFN, HIDDEN))
        w.add_tensor(p + "ffn_up.weight", rand(FFN, HIDDEN))
        w.add_tensor(p + "ffn_down.weight", rand(HIDDEN, FFN))

    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    print(f"wrote {out}: {len(tokens)} tokens, {LAYERS} layers, hidden {HIDDEN}", file=sys.stderr)


if __name__ == "__main__":
    main()
