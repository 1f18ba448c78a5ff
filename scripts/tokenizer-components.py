#!/usr/bin/env python3
"""Writes internal/tokenizer/hf/testdata/components.json: small hand-made
tokenizer.json files, each exercising one or a few components of the
tokenizer.json reader (BPE options, added-token flags, every Split
behaviour, each normalizer, decoder and post-processor), and the inputs
all of them encode. scripts/tokenizer-goldens.sh then records HuggingFace's
ids for them. Vocabularies are tiny and built here, so nothing is
downloaded. Avoid Strip decoders with stop > 0 on inputs that can decode to
an empty or one-character token: HuggingFace panics on those."""
import json
import os
def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~")+1))+list(range(ord("¡"), ord("¬")+1))+list(range(ord("®"), ord("ÿ")+1))
    cs = bs[:]; n = 0
    for b in range(256):
        if b not in bs: bs.append(b); cs.append(256+n); n += 1
    return dict(zip(bs, [chr(c) for c in cs]))
B = bytes_to_unicode()
def bl(s): return ''.join(B[b] for b in s.encode())
def base_vocab():
    return {B[b]: b for b in range(256)}
def add_merges(vocab, merges):
    out = []
    for a, b in merges:
        vocab.setdefault(a + b, len(vocab)); out.append(f"{a} {b}")
    return out
def tok(model, normalizer=None, pre=None, post=None, dec=None, added=None):
    return {"version": "1.0", "truncation": None, "padding": None, "added_tokens": added or [],
            "normalizer": normalizer, "pre_tokenizer": pre, "post_processor": post, "decoder": dec, "model": model}
def bpe(vocab, merges, **kw):
    m = {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": None, "end_of_word_suffix": None,
         "fuse_unk": False, "byte_fallback": False, "vocab": vocab, "merges": merges}
    m.update(kw); return m
BL_PRE = {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": False}
BL_DEC = {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True}
def at(id, content, special=True, normalized=False, lstrip=False, rstrip=False, single_word=False):
    return {"id": id, "content": content, "single_word": single_word, "lstrip": lstrip, "rstrip": rstrip, "normalized": normalized, "special": special}
T = {}
# 1. byte-level BPE, GPT-2 regex, added tokens with every flag
v = base_vocab()
mg = add_merges(v, [("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("i", "n"), ("Ġ", "a"), ("a", "b"), ("ab", "c"), ("Ġ", "w"), ("o", "r"), ("Ġw", "or"), ("l", "d"), ("Ġwor", "ld"), ("Ġ", "Ġ"), ("ĠĠ", "ĠĠ"), ("Ċ", "Ċ"), ("1", "2"), ("12", "3")])
n = len(v)
T["bytelevel_added"] = tok(bpe(v, mg), normalizer={"type": "NFKC"},
    pre={"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
    post={"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True}, dec=BL_DEC,
    added=[at(n, "<|x|>"), at(n+1, "<tool>", special=False, lstrip=True), at(n+2, "[R]", special=False, rstrip=True),
           at(n+3, "word", special=False, single_word=True), at(n+4, "ﬁx", special=False, normalized=True),
           at(n+5, "<|x|>y", special=True), at(n+6, "both", special=False, lstrip=True, rstrip=True)])
# 2. pair-form merges and ignore_merges
v = base_vocab(); mg = add_merges(v, [("a", "b"), ("ab", "c")]); v["abcd"] = len(v); v["xyz"] = len(v)
T["pairs_ignore_merges"] = tok(bpe(v, [m.split(" ") for m in mg], ignore_merges=True), pre=BL_PRE, dec=BL_DEC)
T["pairs_merges"] = tok(bpe(v, [m.split(" ") for m in mg], ignore_merges=False), pre=BL_PRE, dec=BL_DEC)
# 3. SentencePiece-style BPE with byte fallback, unk, template
v = {"<unk>": 0, "<s>": 1, "</s>": 2}
for b in range(256): v[f"<0x{b:02X}>"] = len(v)
for c in ["▁", "a", "b", "c", "h", "e", "l", "o", "w", "r", "d", "t"]: v[c] = len(v)
mg = add_merges(v, [("▁", "h"), ("e", "l"), ("▁h", "el"), ("l", "o"), ("▁hel", "lo"), ("▁", "w"), ("o", "r"), ("▁w", "or")])
sp_norm = {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"}, {"type": "Replace", "pattern": {"String": " "}, "content": "▁"}]}
sp_dec = {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "▁"}, "content": " "}, {"type": "ByteFallback"}, {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]}
tmpl = {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
        "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
        "special_tokens": {"<s>": {"id": "<s>", "ids": [1], "tokens": ["<s>"]}, "</s>": {"id": "</s>", "ids": [2], "tokens": ["</s>"]}}}
T["sentencepiece_fallback"] = tok(bpe(v, mg, unk_token="<unk>", fuse_unk=True, byte_fallback=True), normalizer=sp_norm, post=tmpl, dec=sp_dec,
    added=[at(0, "<unk>"), at(1, "<s>"), at(2, "</s>")])
v2 = {k: i for k, i in v.items() if not k.startswith("<0x")}; v2 = {k: i for i, k in enumerate(v2)}
mg2 = [m for m in mg]
T["unk_fused"] = tok(bpe(v2, mg2, unk_token="<unk>", fuse_unk=True), normalizer=sp_norm, dec=sp_dec)
T["unk_unfused"] = tok(bpe(v2, mg2, unk_token="<unk>", fuse_unk=False), normalizer=sp_norm, dec=sp_dec)
T["no_unk"] = tok(bpe(v2, mg2), normalizer=sp_norm, dec=None)
# 4. prefix/suffix
v = {"<unk>": 0}
for c in "abcdehlorw": v[c] = len(v); v["##" + c] = len(v); v[c + "</w>"] = len(v); v["##" + c + "</w>"] = len(v)
mg = []
for a, b in [("h", "##e"), ("he", "##l"), ("hel", "##l"), ("##l", "##o</w>"), ("w", "##o"), ("wo", "##r")]:
    new = a + b[2:]; v.setdefault(new, len(v)); mg.append(f"{a} {b}")
T["prefix_suffix"] = tok(bpe(v, mg, unk_token="<unk>", continuing_subword_prefix="##", end_of_word_suffix="</w>"),
    pre={"type": "Split", "pattern": {"Regex": "\\s+"}, "behavior": "Removed", "invert": False})
# 5. Split behaviours over a byte-level vocab where merges cross split points
v = base_vocab(); mg = add_merges(v, [("a", "-"), ("-", "b"), ("a-", "b"), ("-", "-"), ("b", "c")])
for beh in ["Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"]:
    for inv in [False, True]:
        T[f"split_{beh}_{'invert' if inv else 'plain'}"] = tok(bpe(v, mg), pre={"type": "Sequence", "pretokenizers": [
            {"type": "Split", "pattern": {"Regex": "-+" if not inv else "[a-z]+"}, "behavior": beh, "invert": inv}, BL_PRE]}, dec=BL_DEC)
T["split_string"] = tok(bpe(v, mg), pre={"type": "Sequence", "pretokenizers": [
    {"type": "Split", "pattern": {"String": "-"}, "behavior": "MergedWithNext", "invert": False}, BL_PRE]}, dec=BL_DEC)
T["bytelevel_noregex_prefix"] = tok(bpe(base_vocab(), []), pre={"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": False}, dec=BL_DEC)
# 6. normalizers over an identity byte-level model
for name, nz in [("nfc", {"type": "NFC"}), ("nfd", {"type": "NFD"}), ("nfkc", {"type": "NFKC"}), ("nfkd", {"type": "NFKD"}),
                 ("replace_regex", {"type": "Replace", "pattern": {"Regex": "\\s+|o+"}, "content": "_"}),
                 ("replace_string", {"type": "Replace", "pattern": {"String": "ab"}, "content": "XYZ"}),
                 ("strip_both", {"type": "Strip", "strip_left": True, "strip_right": True}),
                 ("strip_left", {"type": "Strip", "strip_left": True, "strip_right": False}),
                 ("prepend_seq", {"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "Prepend", "prepend": "»"}, {"type": "NFC"}]})]:
    T["norm_" + name] = tok(bpe(base_vocab(), []), normalizer=nz, pre=BL_PRE, dec=BL_DEC)
# 7. decoders over a char-level vocab
v = {"<unk>": 0}
for b in range(256): v[f"<0x{b:02X}>"] = len(v)
for c in "▁abcdehlorwxyz -": v[c] = len(v)
dec_tests = {
    "dec_strip_start": {"type": "Strip", "content": "▁", "start": 2, "stop": 0},
    "dec_strip_stop": {"type": "Strip", "content": "▁", "start": 0, "stop": 1},
    "dec_replace_regex": {"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"Regex": "▁+"}, "content": "<>"}, {"type": "Fuse"}]},
    "dec_fallback_nofuse": {"type": "ByteFallback"},
    "dec_seq_nested": {"type": "Sequence", "decoders": [{"type": "Sequence", "decoders": [{"type": "ByteFallback"}]}, {"type": "Replace", "pattern": {"String": "▁"}, "content": " "}, {"type": "Fuse"}, {"type": "Strip", "content": " ", "start": 1, "stop": 0}]},
}
for name, d in dec_tests.items():
    T[name] = tok(bpe(v, [], unk_token="<unk>", byte_fallback=True), normalizer={"type": "Replace", "pattern": {"String": " "}, "content": "▁"}, dec=d)
T["no_decoder"] = tok(bpe(v, [], unk_token="<unk>", byte_fallback=True))
# 8. post-processor sequence
v = base_vocab(); v["<bos>"] = 256; v["<eos>"] = 257
T["post_sequence"] = tok(bpe(v, []), pre=BL_PRE, dec=BL_DEC, added=[at(256, "<bos>"), at(257, "<eos>")],
    post={"type": "Sequence", "processors": [{"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": False, "use_regex": False},
          {"type": "TemplateProcessing", "single": [{"SpecialToken": {"id": "<bos>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "<eos>", "type_id": 0}}, {"SpecialToken": {"id": "<eos>", "type_id": 0}}],
           "pair": [], "special_tokens": {"<bos>": {"id": "<bos>", "ids": [256], "tokens": ["<bos>"]}, "<eos>": {"id": "<eos>", "ids": [257], "tokens": ["<eos>"]}}}]})
# 9. added-token id assignment: ids not in the vocabulary, file ids ignored
T["added_ids"] = tok(bpe(base_vocab(), []), pre=BL_PRE, dec=BL_DEC,
    added=[at(500, "<a>"), at(3, "<b>", special=False), at(65, "A"), at(999, "<a>"), at(7, "<c>", normalized=True, special=False)])
inputs = ["", " ", "hello world", " hello  world ", "the abc in the world", "a-b a--b -a-b- ab-c", "abc abcd xyz xyzw",
          "<|x|>y <|x|> y <|x|>", "x <tool>  y", "z [R]   w", "word words sword word!", "fix ﬁx FIX", "x both  y  both z",
          "hello\nworld\r\n\n", "café cafe\u0301 ﬁ Ω ① ｶ", "  héllo  wörld  ", "123 1234 12 3", "ab XYZ ab-ab",
          "\u2581a\u2581b", "<0x41><0x42> <0xE4><0xBD>", "🎉 中文", "<a><b><c> A <a>", "<bos>x<eos>", "hello <s> world </s>",
          "\x00\x7f\u00a0\u3000", "---a---b---"]
json.dump({"inputs": inputs, "tokenizers": T}, open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "internal", "tokenizer", "hf", "testdata", "components.json"), "w", encoding="utf-8"), ensure_ascii=False, indent=None, separators=(",", ":"))
print(f"components.json: {len(T)} tokenizers, {len(inputs)} inputs")
