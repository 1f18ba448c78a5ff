#!/usr/bin/env python3
"""Write a synthetic mooncake-style trace to stdout, for the trace-memory
figures in BENCHMARKS.md (nothing big is committed: generate it).

    bench/gen-mooncake.py ROWS [SEED] > trace.jsonl

Each row is one single-turn request, as in the public mooncake traces:
a timestamp (ms, rising, 10 rows per ms), input_length drawn log-uniformly
from 200-8,000 tokens, output_length from 16-512, and hash_ids for
512-token blocks (the last one partial): the first blocks are a prefix
shared with other rows (one of 64 system prompts, 1-4 blocks, then one of
1,000 per-system conversations' blocks), the rest fresh ids.
"""
import math
import random
import sys

BLOCK = 512


def main():
    rows = int(sys.argv[1])
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    next_id = 0
    systems = []
    for _ in range(64):
        n = rng.randint(1, 4)
        systems.append(list(range(next_id, next_id + n)))
        next_id += n
    convs = {}
    out = sys.stdout
    for i in range(rows):
        isl = int(math.exp(rng.uniform(math.log(200), math.log(8000))))
        blocks = -(-isl // BLOCK)
        s = rng.randrange(len(systems))
        key = (s, rng.randrange(1000))
        conv = convs.get(key)
        if conv is None:
            conv = systems[s] + [next_id, next_id + 1]
            next_id += 2
            convs[key] = conv
        ids = conv[:blocks]
        while len(ids) < blocks:
            ids.append(next_id)
            next_id += 1
        # A partial last block must not reuse a shared (full) block's id.
        if isl % BLOCK and len(ids) <= len(conv) and ids[-1] == conv[len(ids) - 1]:
            ids[-1] = next_id
            next_id += 1
        out.write('{"timestamp": %.1f, "input_length": %d, "output_length": %d, "hash_ids": [%s]}\n'
                  % (i / 10, isl, rng.randint(16, 512), ", ".join(map(str, ids))))


if __name__ == "__main__":
    main()
