#!/usr/bin/env python3
"""Reduce one of AIPerf's bundled config templates to its configuration.

  strip_template.py SRC DST

Keeps the @template metadata (title, category, tags, difficulty, features: facts
`aiperf config init --list` shows) and every YAML line of the configuration;
drops the comments (AIPerf's prose, which this project does not ship). The
result must load to exactly the same data as SRC (checked with PyYAML), or
the script fails.
"""
import re
import sys

import yaml

META_KEYS = ("title", "description", "category", "tags", "difficulty", "features")


def strip_comment(line):
    """line without a trailing comment (a # after whitespace, outside quotes)."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"" and (i == 0 or line[i - 1] in " :[{,-"):
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip()
    return line.rstrip()


def main():
    src, dst = sys.argv[1], sys.argv[2]
    text = open(src, encoding="utf-8").read()
    meta, body = {}, []
    in_meta = False
    block_indent = None  # indentation of the key that opened a block scalar
    for line in text.splitlines():
        if line.strip() == "# @template":
            in_meta = True
            continue
        if in_meta:
            m = re.match(r"#\s*(\w+):\s*(.*)$", line)
            if m:
                meta[m.group(1)] = m.group(2).strip()
                continue
            in_meta = False
        indent = len(line) - len(line.lstrip())
        if block_indent is not None:
            if line.strip() == "" or indent > block_indent:
                body.append(line.rstrip())
                continue
            block_indent = None
        if line.lstrip().startswith("#"):
            continue
        kept = strip_comment(line)
        if re.search(r":\s*[|>][-+0-9]*$", kept) or re.match(r"\s*-\s*[|>][-+0-9]*$", kept):
            block_indent = indent
        body.append(kept)
    # blank-line runs collapse to one; none at the start or end
    out, blank = [], True
    for line in body:
        if line == "":
            if not blank:
                out.append("")
            blank = True
        else:
            out.append(line)
            blank = False
    while out and out[-1] == "":
        out.pop()
    name = src.rsplit("/", 1)[-1][: -len(".yaml")]
    head = [f"# AIPerf 0.13 config template {name!r}, its configuration unchanged (aiperf config init -t {name})."]
    head += [f"# {k}: {meta[k]}" for k in META_KEYS if k in meta]
    head.append(f"# Run it: aiperf profile -f {name}.yaml")
    result = "\n".join(head + [""] + out) + "\n"
    if yaml.safe_load(result) != yaml.safe_load(text):
        sys.exit(f"{src}: the stripped template does not load to the same configuration")
    with open(dst, "w", encoding="utf-8") as f:
        f.write(result)


if __name__ == "__main__":
    main()
