#!/usr/bin/env python3
"""Regenerate reference.json: AIPerf 0.13's own sweep-line curves and
time-weighted statistics for fixed sets of records, for sweep's tests.

Usage (AIPerf 0.13's venv):  /work/aip/bin/python gen_reference.py > reference.json
"""
import json
import math

import numpy as np

from aiperf.analysis import sweepline as sl
from aiperf.analysis import sweepline_kv_cache as kv

NAN = float("nan")


def curves(recs, icl):
    start = np.array([r["start"] for r in recs], dtype=np.float64)
    gen = np.array([r["gen"] for r in recs], dtype=np.float64)
    end = np.array([r["end"] for r in recs], dtype=np.float64)
    isl = np.array([r["isl"] for r in recs], dtype=np.float64)
    osl = np.array([r["osl"] for r in recs], dtype=np.float64)
    vals, idx, offs = [], [], np.full(len(recs), -1, dtype=np.int64)
    for i, r in enumerate(recs):
        if r["icl"]:
            offs[i] = len(vals)
            vals.extend(r["icl"])
            idx.extend([i] * len(r["icl"]))
    vals = np.array(vals, dtype=np.float64)
    idx = np.array(idx, dtype=np.int32)
    conc = sl.concurrency_sweep_line(start, end)
    gconc = sl.concurrency_sweep_line(gen, end)
    pconc = sl.concurrency_sweep_line(start, gen)
    if icl and len(vals) > 0:
        tput = kv.throughput_sweep_line_icl(gen, osl, vals, idx, icl_offsets=offs)
        tif = kv.tokens_in_flight_sweep_line_icl(start, gen, end, isl, output_tokens=osl,
                                                 icl_values=vals, icl_record_indices=idx, icl_offsets=offs)
    else:
        tput = sl.throughput_sweep_line(gen, end, osl)
        tif = kv.tokens_in_flight_sweep_line(start, gen, end, isl, output_tokens=osl)
    ptput = sl.prefill_throughput_sweep_line(start, gen, isl)
    total = sl.total_throughput_sweep_line(start, gen, end, isl, output_tokens=osl)
    tpu = sl.divide_step_functions(tput[0], tput[1], gconc[0], gconc[1])
    ppu = sl.divide_step_functions(ptput[0], ptput[1], pconc[0], pconc[1])
    return sl.SweepLineCurves(
        concurrency_ts=conc[0], concurrency=conc[1], throughput_ts=tput[0], throughput=tput[1],
        prefill_throughput_ts=ptput[0], prefill_throughput=ptput[1],
        generation_concurrency_ts=gconc[0], generation_concurrency=gconc[1],
        prefill_concurrency_ts=pconc[0], prefill_concurrency=pconc[1],
        total_throughput_ts=total[0], total_throughput=total[1],
        throughput_per_user_ts=tpu[0], throughput_per_user=tpu[1],
        prefill_throughput_per_user_ts=ppu[0], prefill_throughput_per_user=ppu[1],
        tokens_in_flight_ts=tif[0], tokens_in_flight=tif[1])


def num(x):
    return None if x is None or (isinstance(x, float) and math.isnan(x)) else x


def case(name, recs, icl, windows):
    c = curves(recs, icl)
    out = {"name": name, "icl": icl, "records": [{k: num(v) if k != "icl" else v for k, v in r.items()} for r in recs],
           "concurrency": {"ts": c.concurrency_ts.tolist(), "val": c.concurrency.tolist()},
           "tokens_in_flight": {"ts": c.tokens_in_flight_ts.tolist(), "val": c.tokens_in_flight.tolist()},
           "windows": []}
    for w0, w1 in windows:
        res = c.compute_metrics(w0, w1)
        out["windows"].append({"w0": w0, "w1": w1, "metrics": {
            tag: {k: num(getattr(r, k)) for k in ("avg", "min", "max", "p50", "p90", "p95", "p99", "std")}
            for tag, r in res.items()}})
    return out


def rec(start, gen, end, isl, osl, icl=()):
    return {"start": float(start), "gen": float(gen), "end": float(end), "isl": float(isl), "osl": float(osl), "icl": list(map(float, icl))}


rng = np.random.default_rng(7)
streamed = []
for i in range(40):
    s = float(rng.integers(0, 2_000_000_000))
    ttft = float(rng.integers(5_000_000, 60_000_000))
    n = int(rng.integers(1, 12))
    gaps = [float(g) for g in rng.integers(0, 8_000_000, size=n - 1)]
    e = s + ttft + sum(gaps) + float(rng.integers(0, 2_000))
    streamed.append(rec(s, s + ttft, e, int(rng.integers(16, 900)), n, gaps))
streamed.append(rec(2_100_000_000, NAN, 2_150_000_000, 100, NAN))          # failed: no first token, no tokens
streamed.append(rec(100_000_000, 100_000_000, 100_000_000, 50, 1, []))      # zero-length
streamed.append(rec(500_000_000, 520_000_000, 560_000_000, 64, 4, [0, 0, 0]))  # back-to-back chunks
ties = [rec(0, 10, 30, 8, 3, [10, 10]), rec(10, 20, 30, 8, 3, [5, 5]), rec(30, 40, 50, 4, 2, [10]),
        rec(30, 30, 60, 4, 2, [30]), rec(50, 60, 60, 2, 1, [])]
nonstream = [rec(i * 7_000_000, NAN, i * 7_000_000 + 30_000_000 + i * 1_000, 100 + i, 8) for i in range(12)]

doc = [
    case("streamed icl", streamed, True, [(-50_000_000.0, 2_300_000_000.0), (300_000_000.0, 900_000_000.0)]),
    case("streamed no icl", streamed, False, [(-50_000_000.0, 2_300_000_000.0)]),
    case("ties", ties, True, [(0.0, 60.0), (0.0, 100.0), (25.0, 45.0)]),
    case("ties no icl", ties, False, [(0.0, 60.0)]),
    case("non-streaming", nonstream, True, [(0.0, 200_000_000.0)]),
]
print(json.dumps(doc, indent=None))
