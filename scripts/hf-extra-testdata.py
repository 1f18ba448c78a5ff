#!/usr/bin/env python3
"""Test data for the WordPiece/Unigram/BERT/Metaspace components of
internal/tokenizer/hf, from the reference library (HuggingFace `tokenizers`).

    python3 scripts/hf-extra-testdata.py build     # (re)train the tokenizer.json files
    python3 scripts/hf-extra-testdata.py goldens   # (re)compute the golden files

`build` trains small tokenizers with the real component configurations of
BERT (BertNormalizer, BertPreTokenizer, WordPiece, BertProcessing, WordPiece
decoder) and XLM-R/T5 (NFKC standing in for Precompiled, Metaspace, Unigram,
Metaspace decoder, RobertaProcessing), plus one variant of each that
exercises the remaining options. Training text: the repository's public-domain
Shakespeare corpus, Go's own BSD-licensed sources, and seeded random
multilingual lines. The files are ours; they are committed, so `goldens`
needs no training and is reproducible.

`goldens` writes:
  testdata/extra_components.golden.json.gz  component-level cases (normalizers,
      pre-tokenizers, decoders, model tokenize) on tricky and random strings,
      how the reference reads JSON numbers (Unigram scores), and whether
      Metaspace "first" still prepends after each normalizer;
  testdata/extra_models.golden.json.gz      per corpus chunk, the id count and
      SHA-256 of the ids (little-endian uint32) for each test tokenizer, with
      and without special tokens (corpus.txt.gz, the shared corpus, cut into
      4 KB chunks at line ends), and the full ids and decoding of short strings.

Needs Python `tokenizers` 0.23.x (PyPI); nothing else.
"""
import gzip
import hashlib
import json
import os
import random
import struct
import subprocess
import sys

import tokenizers
from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
TESTDATA = os.path.join(ROOT, "internal", "tokenizer", "hf", "testdata")
SHAKESPEARE = os.path.join(ROOT, "internal", "dataset", "corpus", "shakespeare.txt.gz")

# Character pools for random text: every class the components test.
POOLS = [
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "0123456789",
    "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
    "      \t\n\r\u00a0\u3000\u2009\u000b\u000c\u0085",
    "中文字符测试漢字日本語の文章ひらがなカタカナ한국어텍스트",
    "\U00020000\U0002a700\uf900\u3400",
    "éèêëàâäôöûüçñÉÈÀÖÜßøåæœ",
    "e\u0301a\u0300o\u0308n\u0303\u0327",
    "İıΣσςΑΒΓαβγЖжЯяÅǅ",
    "مرحبا بالعالم שלום",
    "हिन्दी\u0903\u093eकि",
    "ภาษาไทย",
    "😀🎉👍🏽👨\u200d👩\u200d👧❤️🇫🇷",
    "\u0000\u0001\u001f\u007f\u200b\u200c\u200d\u00ad\ufeff\ue000\ufffd",
    "ﬁﬂ²³①Ⅻ１２３ＡＢＣ½",
    "▁_##",
    "—–…‘’“”«»¡¿§¶†•€£¥",
]
SNIPPETS = [
    "don't", "I'm", "we're", "you've", "it's", " do not ", " ' ", "[UNK]", "[CLS]", "[SEP]", "[MASK]",
    "<s>", "</s>", "<unk>", "<pad>", "<0x41>", "##ing", "▁the", "3.14159", "1,000,000", "2026-11-30",
    "    ", "\n\n", "\r\n", "\t\t", "https://example.com/a?b=c", "fmt.Println(\"hi\")", "x := y + 1",
]


def random_text(rng, n):
    out = []
    for _ in range(n):
        if rng.random() < 0.15:
            out.append(rng.choice(SNIPPETS))
        else:
            pool = rng.choice(POOLS)
            out.append("".join(rng.choice(pool) for _ in range(rng.randint(1, 6))))
    return "".join(out)


def go_sources(limit):
    goroot = subprocess.run(["go", "env", "GOROOT"], capture_output=True, text=True, check=True).stdout.strip()
    text = []
    size = 0
    for pkg in ["fmt", "strings", "bufio", "sort", "unicode/utf8", "encoding/json", "net/url", "text/template"]:
        d = os.path.join(goroot, "src", pkg)
        for name in sorted(os.listdir(d)):
            if name.endswith(".go"):
                with open(os.path.join(d, name), encoding="utf-8") as f:
                    t = f.read()
                text.append(t)
                size += len(t)
                if size > limit:
                    return text
    return text


def training_text():
    with gzip.open(SHAKESPEARE, "rt", encoding="utf-8") as f:
        shakespeare = f.read()[:2_000_000]
    rng = random.Random(20261130)
    lines = shakespeare.splitlines()
    lines += "".join(go_sources(600_000)).splitlines()
    lines += [random_text(rng, rng.randint(1, 30)) for _ in range(4000)]
    return lines


def bert_tokenizer(lines, vocab_size):
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer()
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok.train_from_iterator(lines, trainers.WordPieceTrainer(vocab_size=vocab_size, special_tokens=special, limit_alphabet=1000, show_progress=False))
    tok.post_processor = processors.BertProcessing(("[SEP]", tok.token_to_id("[SEP]")), ("[CLS]", tok.token_to_id("[CLS]")))
    tok.decoder = decoders.WordPiece()
    return tok


def unigram_tokenizer(lines, vocab_size):
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.NFKC()
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    special = ["<s>", "<pad>", "</s>", "<unk>"]
    tok.train_from_iterator(lines, trainers.UnigramTrainer(vocab_size=vocab_size, special_tokens=special, unk_token="<unk>", show_progress=False))
    tok.post_processor = processors.RobertaProcessing(("</s>", tok.token_to_id("</s>")), ("<s>", tok.token_to_id("<s>")))
    tok.decoder = decoders.Metaspace()
    return tok


def write_json_gz(path, obj):
    data = json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"
    with open(path, "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", fileobj=f, mtime=0, compresslevel=9) as g:
            g.write(data)


def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")


def build():
    lines = training_text()
    bert = json.loads(bert_tokenizer(lines, 6000).to_str())
    write_json(os.path.join(TESTDATA, "wordpiece.json"), bert)

    # Cased variant: accents kept (strip_accents follows lowercase=false),
    # Whitespace + individual Digits instead of BertPreTokenizer, a short
    # max_input_chars_per_word, cleanup off, Roberta-style processing.
    cased = json.loads(json.dumps(bert))
    cased["normalizer"] = {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": False, "strip_accents": None, "lowercase": False}
    cased["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [{"type": "Whitespace"}, {"type": "Digits", "individual_digits": True}]}
    cased["model"]["max_input_chars_per_word"] = 12
    cased["decoder"] = {"type": "WordPiece", "prefix": "##", "cleanup": False}
    write_json(os.path.join(TESTDATA, "wordpiece_cased.json"), cased)

    uni = json.loads(unigram_tokenizer(lines, 5000).to_str())
    write_json(os.path.join(TESTDATA, "unigram.json"), uni)

    # Byte-fallback variant: SentencePiece-style <0xXX> pieces appended,
    # decomposition + accent stripping + lowercasing, punctuation runs and
    # Metaspace with prepend_scheme "first" after a whitespace split.
    bf = json.loads(json.dumps(uni))
    vocab = bf["model"]["vocab"]
    vocab += [[f"<0x{b:02X}>", 0.0] for b in range(256)]
    bf["model"]["byte_fallback"] = True
    bf["normalizer"] = {"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "StripAccents"}, {"type": "Lowercase"}]}
    bf["pre_tokenizer"] = {"type": "Sequence", "pretokenizers": [
        {"type": "WhitespaceSplit"},
        {"type": "Punctuation", "behavior": "Contiguous"},
        {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": True},
    ]}
    bf["decoder"] = {"type": "Sequence", "decoders": [
        {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": True},
        {"type": "ByteFallback"},
        {"type": "Fuse"},
    ]}
    write_json(os.path.join(TESTDATA, "unigram_bf.json"), bf)
    for name in ["wordpiece.json", "wordpiece_cased.json", "unigram.json", "unigram_bf.json"]:
        Tokenizer.from_file(os.path.join(TESTDATA, name))  # the reference accepts it
        print("wrote", name, os.path.getsize(os.path.join(TESTDATA, name)), "bytes")


TOKENIZERS = ["wordpiece.json", "wordpiece_cased.json", "unigram.json", "unigram_bf.json"]

NORMALIZERS = [
    {"type": "Lowercase"},
    {"type": "StripAccents"},
    {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "strip_accents": None, "lowercase": True},
    {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "strip_accents": None, "lowercase": False},
    {"type": "BertNormalizer", "clean_text": False, "handle_chinese_chars": False, "strip_accents": True, "lowercase": False},
    {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": False, "strip_accents": False, "lowercase": True},
]

META = {"type": "Metaspace", "replacement": "▁"}
PRE_TOKENIZERS = [
    [{"type": "Whitespace"}],
    [{"type": "WhitespaceSplit"}],
    [{"type": "BertPreTokenizer"}],
    [{"type": "Digits", "individual_digits": True}],
    [{"type": "Digits", "individual_digits": False}],
] + [[{"type": "Punctuation", "behavior": b}] for b in ["Removed", "Isolated", "MergedWithPrevious", "MergedWithNext", "Contiguous"]] + [
    [dict(META, prepend_scheme=s, split=sp)] for s in ["always", "first", "never"] for sp in [True, False]
] + [
    [{"type": "Metaspace", "replacement": "_", "prepend_scheme": "always", "split": True}],
    [{"type": "WhitespaceSplit"}, dict(META, prepend_scheme="first", split=True)],
    [{"type": "Whitespace"}, dict(META, prepend_scheme="first", split=False)],
    [{"type": "Punctuation", "behavior": "Removed"}, dict(META, prepend_scheme="first", split=True)],
    [{"type": "Digits", "individual_digits": True}, {"type": "Punctuation", "behavior": "MergedWithNext"}, {"type": "WhitespaceSplit"}],
]

DECODERS = [
    {"type": "WordPiece", "prefix": "##", "cleanup": True},
    {"type": "WordPiece", "prefix": "##", "cleanup": False},
    {"type": "WordPiece", "prefix": "@@", "cleanup": True},
] + [dict(META, prepend_scheme=s, split=True) for s in ["always", "first", "never"]]


def pre_tokenizer_of(specs):
    if len(specs) == 1:
        return pre_tokenizer_from_spec(specs[0])
    return pre_tokenizers.Sequence([pre_tokenizer_from_spec(s) for s in specs])


def component(kind, spec):
    # Build a component from its JSON spec through a minimal tokenizer.json.
    doc = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": None,
           "pre_tokenizer": None, "post_processor": None, "decoder": None,
           "model": {"type": "WordLevel", "vocab": {"a": 0}, "unk_token": "a"}}
    doc[kind] = spec
    tok = Tokenizer.from_str(json.dumps(doc))
    return getattr(tok, kind)


def pre_tokenizer_from_spec(spec):
    return component("pre_tokenizer", spec)


def tricky_inputs():
    rng = random.Random(7)
    fixed = [
        "", " ", "a", "Hello, world!", "  leading and  double  spaces ", "tab\tnew\nline\r\ncr",
        "don't stop: it's 3.14 or 1,000,000?", "HÉLLO Ünïcödé e\u0301 ﬁ ² ①", "İstanbul ΣΑΣ ßtraße",
        "中文字符和English混合123", "😀 👨\u200d👩\u200d👧 🇫🇷!", "\u0000nul\u200bzw\ufeffbom\ue000pua\ufffd",
        "▁already▁meta ▁ space", "ab##cd [UNK] <unk> <0x41>", "x := y + 1 // comment", "１２３ＡＢＣ½Ⅻ",
        "हिन्दी भाषा", "مرحبا بالعالم", "ภาษาไทย", "a\u00a0b\u3000c\u2009d", "...!!!???", "a.b,c;d",
        "٣٤٥ 12ab34 ¹²³", "\u0085\u000b\u000c", "i\u0307", "\U0002a700\U00020000", "don ' t",
        "\u0301accent first", "\u0007bell first", " \u0301space then mark",
    ]
    return fixed + [random_text(rng, rng.randint(1, 25)) for _ in range(120)]


def corpus_chunks():
    """The mixed corpus, cut into chunks at line ends (H1's corpus when it exists)."""
    path = os.path.join(TESTDATA, "corpus.txt.gz")
    if os.path.exists(path):
        with gzip.open(path, "rt", encoding="utf-8", newline="") as f:
            text = f.read()
    else:
        rng = random.Random(42)
        with gzip.open(SHAKESPEARE, "rt", encoding="utf-8") as f:
            sh = f.read()[3_000_000:3_200_000]
        parts = [sh, "".join(go_sources(120_000))]
        parts += ["".join(random_text(rng, rng.randint(1, 40)) + "\n" for _ in range(3000))]
        text = "".join(parts)
    chunks, cur, size = [], [], 0
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    for line in lines:
        cur.append(line)
        size += len(line.encode("utf-8"))
        if size >= 4096:
            chunks.append("".join(cur))
            cur, size = [], 0
    if cur and "".join(cur):
        chunks.append("".join(cur))
    return chunks


FIRST_NORMALIZERS = NORMALIZERS + [
    {"type": "Sequence", "normalizers": [{"type": "NFD"}, {"type": "StripAccents"}, {"type": "Lowercase"}]},
    {"type": "Sequence", "normalizers": [{"type": "NFKC"}, {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "strip_accents": True, "lowercase": True}]},
]


def first_cases(inputs):
    """Whether Metaspace with prepend_scheme "first" prepends after each
    normalizer: it does not once the normalizer deleted the leading
    characters. Observed through a Unigram model that knows only the
    replacement character."""
    out = []
    for spec in FIRST_NORMALIZERS:
        doc = {"version": "1.0", "truncation": None, "padding": None, "added_tokens": [], "normalizer": spec,
               "pre_tokenizer": {"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": False},
               "post_processor": None, "decoder": None,
               "model": {"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["▁", 10.0]], "byte_fallback": False}}
        tok = Tokenizer.from_str(json.dumps(doc))
        out.append({"spec": spec, "prepended": [tok.encode(s, add_special_tokens=False).ids[:1] == [1] for s in inputs]})
    return out


def float_cases():
    """How the reference reads JSON numbers (serde_json's fast, not always
    correctly rounded parse): [text, repr of the value it reads]. The
    Unigram scores of the test tokenizers are included."""
    rng = random.Random(99)
    texts = ["0", "-0", "-5", "7", "0.0", "-0.0", "1e-5", "-1.5E+3", "2E2", "123456789012345678901234",
             "18446744073709551615", "18446744073709551616", "-18446744073709551616.5",
             "0.1234567890123456789012345", "-3.4028234663852886e+38", "1e-320", "4.9e-324",
             "2.2250738585072014e-308", "-9.99999999999999999999e-309", "1e308", "1.7976931348623157e308",
             "-11.302401542663574", "-7.3784337095599595", "0.30000000000000004", "1e-400", "123.456e-2"]
    for _ in range(400):
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 22)))
        point = rng.randint(0, len(digits))
        t = digits[:point].lstrip("0") or "0"
        frac = digits[point:]
        text = ("-" if rng.random() < 0.7 else "") + t + ("." + frac if frac else "")
        if rng.random() < 0.2:
            text += "e" + str(rng.randint(-30, 30))
        texts.append(text)
    for name in ["unigram.json"]:
        with open(os.path.join(TESTDATA, name), encoding="utf-8") as f:
            doc = json.load(f, parse_float=str, parse_int=str)
        scores = [score for _, score in doc["model"]["vocab"]]
        texts += scores[:1500]
    vocab = ",".join('["p%d",%s]' % (i, t) for i, t in enumerate(texts))
    doc = ('{"version":"1.0","truncation":null,"padding":null,"added_tokens":[],"normalizer":null,'
           '"pre_tokenizer":null,"post_processor":null,"decoder":null,'
           '"model":{"type":"Unigram","unk_id":0,"vocab":[' + vocab + ']}}')
    back = json.loads(Tokenizer.from_str(doc).to_str())["model"]["vocab"]
    return [[t, repr(float(v))] for t, (_, v) in zip(texts, back)]


def corpus_cases():
    """Short strings of the shared corpus (special-token strings of the real models) when present."""
    path = os.path.join(TESTDATA, "corpus_cases.json")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def ids_digest(ids):
    return hashlib.sha256(b"".join(struct.pack("<I", i) for i in ids)).hexdigest()


def goldens():
    inputs = tricky_inputs()
    comp = {"reference": "tokenizers " + tokenizers.__version__, "inputs": inputs,
            "normalizers": [], "pre_tokenizers": [], "decoders": [], "models": []}
    for spec in NORMALIZERS:
        n = component("normalizer", spec)
        comp["normalizers"].append({"spec": spec, "outputs": [n.normalize_str(s) for s in inputs]})
    for specs in PRE_TOKENIZERS:
        p = pre_tokenizer_of(specs)
        comp["pre_tokenizers"].append({"specs": specs, "outputs": [[w for w, _ in p.pre_tokenize_str(s)] for s in inputs]})
    token_lists = [["▁Hey", "▁friend", "!"], ["▁a▁b", "▁c"], ["hello", "##world", "!", "don", "'", "t"],
                   ["I", "'", "m", "do", "not", "go", ".", "?", ",", "'", "s", "'", "ve", "'", "re"],
                   ["##start", "mid##dle", "##", "##end"], ["@@x", "y@@", "@@z"], ["", "▁", "▁▁"], ["solo"], []]
    for spec in DECODERS:
        d = component("decoder", spec)
        comp["decoders"].append({"spec": spec, "cases": [[t, d.decode(t)] for t in token_lists]})
    chunks = corpus_chunks()
    for name in TOKENIZERS:
        tok = Tokenizer.from_file(os.path.join(TESTDATA, name))
        words = []
        seen = set()
        for s in inputs:
            norm = tok.normalizer.normalize_str(s) if tok.normalizer else s
            for w, _ in tok.pre_tokenizer.pre_tokenize_str(norm):
                if w not in seen:
                    seen.add(w)
                    words.append(w)
        comp["models"].append({"file": name, "cases": [[w, [t.id for t in tok.model.tokenize(w)]] for w in words]})
    comp["floats"] = float_cases()
    comp["first"] = first_cases(inputs)
    write_json_gz(os.path.join(TESTDATA, "extra_components.golden.json.gz"), comp)

    gold = {"reference": "tokenizers " + tokenizers.__version__, "chunk_bytes": 4096, "tokenizers": []}
    for name in TOKENIZERS:
        tok = Tokenizer.from_file(os.path.join(TESTDATA, name))
        entry = {"file": name, "chunks": [], "full": []}
        for i, c in enumerate(chunks):
            ids = tok.encode(c, add_special_tokens=False).ids
            sp = tok.encode(c, add_special_tokens=True).ids
            entry["chunks"].append([len(ids), ids_digest(ids), len(sp), ids_digest(sp)])
        for s in inputs[:40] + corpus_cases():
            entry["full"].append({"text": s, "ids": tok.encode(s, add_special_tokens=False).ids,
                                  "special": tok.encode(s, add_special_tokens=True).ids,
                                  "decoded": tok.decode(tok.encode(s, add_special_tokens=False).ids, skip_special_tokens=False)})
        gold["tokenizers"].append(entry)
    write_json_gz(os.path.join(TESTDATA, "extra_models.golden.json.gz"), gold)
    print("wrote goldens:", len(chunks), "chunks,", sum(len(c.encode()) for c in chunks), "bytes")


if __name__ == "__main__":
    {"build": build, "goldens": goldens}[sys.argv[1]]()
