#!/usr/bin/env python3
"""Regenerates o200k_golden.json: reference token ids for the builtin tokenizer.

The ids come from OpenAI's Python tiktoken, encoding the way AIPerf's tiktoken
backend does (allowed_special="all": special tokens are never added, but the
literal text of one in the input becomes its id).

Run from the repository root:
  TIKTOKEN_CACHE_DIR=/tmp/tiktoken-cache /tmp/aipvenv/bin/python \
      internal/tokenizer/testdata/gen_golden.py
"""
import json
import pathlib
import random

import tiktoken

CASES = [
    ("english", "Hello, world! This is a test of the tokenizer."),
    ("contractions", "I'm sure they'll say it's fine, but we'd've known. DON'T"),
    ("cjk", "你好，世界！日本語のテキストと한국어 텍스트."),
    ("emoji", "Rockets 🚀🚀 and families 👨‍👩‍👧‍👦 with flags 🇫🇷!"),
    ("digits", "Pi is 3.14159265358979; 1234567890 and 007, 1,000,000."),
    ("code", "func main() {\n\tfmt.Println(\"hi\")\n\tx := a[i:j] // slice\n}\n"),
    ("whitespace", "  leading\tand\u00a0nbsp  \n\n\n  trailing   \r\n\u3000ideographic space "),
    ("endoftext", "before<|endoftext|>after"),
    ("endofprompt", "A <|endofprompt|> B <|endoftext|><|endoftext|>"),
    ("not_special", "<|fim_prefix|> <|endoftext <|<|endoftext|>|>"),
    ("accents", "Café naïve façade résumé — Ångström, Zoë, Øresund"),
    ("combining", "e\u0301 a\u0308 n\u0303 Z\u0335\u0321a\u0337l\u0334g\u0336o"),
    ("arabic_hebrew", "مرحبا بالعالم שלום עולם"),
    ("shakespeare", "To be, or not to be, that is the question:\nWhether 'tis nobler in the mind to suffer"),
    ("mixed_case", "HTTPServer parseJSONResponse XMLHttpRequest iPhone McDonald's"),
    ("punctuation", "!!! ??? ... --- ((())) [[]] {{}} <<>> @#$%^&*"),
    ("empty", ""),
    ("single_space", " "),
    ("newlines", "\n\n\n"),
    ("url", "https://example.com/path?q=1&r=two#frag"),
    ("long_s_contraction", " I'ſ I's I'ſt it'S we'RE"),
    ("delete_char", "a\x7fb !\x7f! \x7fabc \x7f"),
    ("controls", "x\x1cy \x1c\x1c\x00\x85"),
    ("long_run", "=" * 300 + " " + "ab" * 200 + "\n" + " " * 500 + "z"),
]

# Random strings built from pieces that exercise the pre-tokenizer's corners:
# case classes, marks, contractions (with the long s), Unicode spaces and
# numbers, control characters, special-token look-alikes.
ATOMS = [
    "a", "b", "e", "s", "t", "S", "T", "\u017f", "K", "\u212a", "'", "\u2019", "ll", "re",
    "ve", "d", "m", "LL", "RE", " I'", " ", "  ", "\t", "\n", "\r", "\r\n", "\u00a0",
    "\u3000", "\u2009", "\u0085", "\x0b", "\x0c", "\x1c", "\x7f", "\x00", "0", "1", "23",
    "456", "\u0663", "\u00bd", "\u216b", "\u00b2", "!", "?", ".", ",", "/", "//", "(", ")",
    "-", "_", "<|", "|>", "<|endoftext|>", "\u00e9", "e\u0301", "\u0301", "\u0308", "\u00df",
    "\u0130", "\u01c5", "\u02b0", "\u30fc", "\u4e2d", "\u6587", "\u65e5\u672c", "\ud55c",
    "\u0627", "\u0628", "\u05e9", "\U0001f680", "\U0001f468\u200d\U0001f469", "\u200d",
    "\ufe0f", "\U0001f1eb\U0001f1f7", "\ufffd", "Hello", "WORLD", "CamelCase", "iPhone",
    "don't", "I'M", "http://x.y/z", "\t\t", "    ", "\n\n\n", " \n ", "x", "Z", "\u01c8",
    "\ua78c", "\u0903", "\u0bcd", "\u2170", "\U0001d538", "\U0001d552", "\U0001d7d8",
]
RANDOM_CASES = 300
RANDOM_SEED = 20240601


def random_cases():
    rnd = random.Random(RANDOM_SEED)
    for i in range(RANDOM_CASES):
        yield f"random_{i:03d}", "".join(rnd.choice(ATOMS) for _ in range(rnd.randint(1, 25)))


def main() -> None:
    enc = tiktoken.get_encoding("o200k_base")
    out = [
        {"name": name, "text": text, "ids": enc.encode(text, allowed_special="all")}
        for name, text in [*CASES, *random_cases()]
    ]
    path = pathlib.Path(__file__).with_name("o200k_golden.json")
    lines = ",\n".join(" " + json.dumps(case, ensure_ascii=False) for case in out)
    path.write_text("[\n" + lines + "\n]\n", encoding="utf-8")
    print(f"wrote {path} ({len(out)} cases)")


if __name__ == "__main__":
    main()
