#!/usr/bin/env python3
"""Regenerate reference.json: draws from CPython's random.Random, numpy's
default_rng (PCG64) and numpy's legacy RandomState (MT19937), and AIPerf's
derived seeds, for pyrand's tests.

Usage (CPython 3.11 and numpy; AIPerf 0.13's venv has both):
  /work/aip/bin/python gen_reference.py > reference.json
"""
import hashlib
import json
import random

import numpy as np

SEEDS = [0, 1, 42, 12345, 2**32 - 1, 2**32 + 5, 2**63 + 99, 2**64 - 1]
BELOW = [1, 2, 3, 7, 10, 1000, 2**31 - 1, 2**31, 2**32 + 3, 1_234_567, 2**53 + 1]
INT_RANGES = [(0, 1), (0, 2), (0, 256), (5, 17), (0, 151_643), (0, 2**32), (-(2**40), 2**40), (0, 2**63 - 1), (10, 2**33 + 10)]


def derive(root, ident):
    h = hashlib.sha256(f"{root}:{ident}".encode("utf-8")).digest()
    return int.from_bytes(h[:8], byteorder="big")


def python_case(seed):
    r = random.Random(seed)
    out = {"seed": str(seed)}
    out["random"] = [r.random() for _ in range(5)]
    out["getrandbits"] = [[k, str(r.getrandbits(k))] for k in (1, 7, 31, 32, 33, 53, 64)]
    out["randbelow"] = [[n, str(r.randrange(n))] for n in BELOW for _ in range(3)]
    out["randint"] = [r.randint(-5, 5) for _ in range(8)]
    out["gauss"] = [r.gauss(128, 32) for _ in range(7)]
    out["expovariate"] = [r.expovariate(3.5) for _ in range(4)]
    out["gammavariate"] = [[a, b, r.gammavariate(a, b)] for a, b in ((0.5, 2.0), (1.0, 0.1), (2.5, 1.0), (0.25, 0.01), (7.0, 3.0))]
    out["uniform"] = [r.uniform(-1.5, 4.0) for _ in range(3)]
    xs = list(range(12))
    r.shuffle(xs)
    out["shuffle"] = xs
    out["choice"] = [r.choice(range(9)) for _ in range(6)]
    out["after"] = r.random()
    return out


def numpy_case(seed):
    g = np.random.default_rng(seed)
    out = {"seed": str(seed)}
    out["random"] = [float(g.random()) for _ in range(5)]
    out["integers"] = [[str(lo), str(hi), str(int(g.integers(lo, hi)))] for lo, hi in INT_RANGES for _ in range(3)]
    # 32-bit draws share a buffered 64-bit word; random() does not touch it.
    mixed = []
    for i in range(6):
        mixed.append(["i", str(int(g.integers(0, 100)))])
        if i % 2:
            mixed.append(["r", float(g.random())])
    out["mixed"] = mixed
    out["integers_size"] = [int(v) for v in g.integers(0, 50_000, size=9)]
    xs = list(range(15))
    g.shuffle(xs)
    out["shuffle"] = xs
    arr = np.arange(2**3 * 3)
    g.shuffle(arr)
    out["shuffle_array"] = [int(v) for v in arr]
    out["after"] = float(g.random())
    return out


def numpy_dist_case(seed, normals):
    """Generator's distributions: normals (2000 draws of seed 42 reach the
    ziggurat's wedges; seed 459 draws from its tail), lognormal draws as
    AIPerf's agentic-code synthesizer truncates them, bytes, choice with
    probabilities."""
    g = np.random.default_rng(seed)
    out = {"seed": str(seed)}
    out["normal"] = [float(v) for v in g.standard_normal(normals)]
    out["lognormal_int"] = [int(g.lognormal(mean=7.4955, sigma=1.1532, size=1)[0]) for _ in range(25)]
    out["bytes"] = [g.bytes(16).hex() for _ in range(3)] + [g.bytes(5).hex()]
    w = np.array([1.0 / (k ** 1.2) for k in range(1, 51)])
    out["zipf_p"] = [float(v) for v in w / w.sum()]
    out["choice"] = [int(g.choice(50, p=w / w.sum())) for _ in range(25)]
    out["after"] = float(g.random())
    return out


def legacy_case(seed):
    s = np.random.RandomState(seed)
    out = {"seed": str(seed)}
    out["random_sample"] = [float(s.random_sample()) for _ in range(4)]
    out["randint"] = [[str(lo), str(hi), str(int(s.randint(lo, hi)))] for lo, hi in INT_RANGES for _ in range(3)]
    out["after"] = float(s.random_sample())
    return out


def fold(seed):
    return (seed ^ (seed >> 32)) & 0xFFFFFFFF


doc = {
    "python": [python_case(s) for s in SEEDS],
    "numpy": [numpy_case(s) for s in SEEDS],
    "legacy": [legacy_case(fold(s)) for s in SEEDS],
    "numpy_dist": [numpy_dist_case(s, n) for s, n in ((42, 2000), (0, 40), (459, 40), (12345, 40), (2**64 - 1, 40))],
    "fold": [[str(s), fold(s)] for s in SEEDS],
    "derive": [[root, ident, str(derive(root, ident))] for root in (0, 42, 7, 2**63)
               for ident in ("dataset.prompt.corpus", "dataset.prompt.length", "composer.turn.max_tokens", "dataset.sampler.shuffle")],
}
print(json.dumps(doc, indent=1))
