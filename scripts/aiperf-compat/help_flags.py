#!/usr/bin/env python3
"""Read an AIPerf (cyclopts/rich) --help text on stdin and print its flags as
JSON: {"<help group>": [["--spelling", "--alias", "-x"], ...], ...}, groups and
flags in the order help prints them.

Run help with a wide terminal so no flag name wraps:
  COLUMNS=250 aiperf profile --help | python3 help_flags.py
"""
import json
import re
import sys

groups = {}
group = None
for line in sys.stdin.read().splitlines():
    m = re.match(r"^╭─ (.+?) ─", line)
    if m:
        group = m.group(1)
        groups.setdefault(group, [])
        continue
    if group is None or not line.startswith("│ "):
        continue
    body = line[2:]
    if body.startswith("*"):  # required marker
        body = body[1:].lstrip()
    if not body.startswith("-"):
        continue
    names = re.split(r"\s{2,}", body.strip(), maxsplit=1)[0].split()
    if all(n.startswith("-") for n in names):
        groups[group].append(names)
print(json.dumps(groups, indent=1))
