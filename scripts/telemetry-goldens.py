"""Reference values for the server-metrics statistics, from AIPerf 0.13 itself.

Test reference only (the product never runs Python): writes
internal/telemetry/servermetrics/testdata/aiperf_stats.json and
aiperf_units.json from AIPerf's own export_stats.compute_stats and
units.infer_unit, so the Go ports are checked number for number.
Run with scripts/telemetry-goldens.sh.
"""
import json
import random
import sys

import numpy as np

from aiperf.common.enums import PrometheusMetricType
from aiperf.common.models import MetricSample
from aiperf.common.models.server_metrics_models import TimeRangeFilter
from aiperf.server_metrics.export_stats import compute_stats
from aiperf.server_metrics.storage import HistogramTimeSeries, ScalarTimeSeries
from aiperf.server_metrics.units import infer_unit

OUT = sys.argv[1]

VLLM_TTFT = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0]
ITL = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0]
TOKENS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]


def le_key(b):
    return repr(float(b))


def hist_series(rng, bounds, draw, scrapes, per_scrape, start_ns=1_000_000_000, step_ns=333_000_000):
    """Cumulative histogram snapshots of observations drawn scrape by scrape."""
    keys = [le_key(b) for b in bounds] + ["+Inf"]
    cum = [0] * len(keys)
    total, count = 0.0, 0
    snaps = []
    for i in range(scrapes):
        n = per_scrape(i)
        for _ in range(n):
            v = draw(rng, i)
            total += v
            count += 1
            for j, b in enumerate(bounds):
                if v <= b:
                    cum[j] += 1
            cum[-1] += 1
        snaps.append({"ts": start_ns + i * step_ns, "sum": total, "count": count, "buckets": dict(zip(keys, list(cum)))})
    return snaps


def run_hist(name, snaps, flt):
    ts = HistogramTimeSeries()
    for s in snaps:
        ts.append(s["ts"], MetricSample(buckets={k: float(v) for k, v in s["buckets"].items()}, sum=s["sum"], count=float(s["count"])))
    res = compute_stats(PrometheusMetricType.HISTOGRAM, ts, TimeRangeFilter(**flt))
    out = res.model_dump(mode="json", exclude_none=True) if res else None
    return {"name": name, "type": "histogram", "samples": snaps, "filter": flt, "expected": out}


def run_scalar(name, typ, points, flt):
    ts = ScalarTimeSeries()
    for t, v in points:
        ts.append(t, MetricSample(value=v))
    mt = PrometheusMetricType.GAUGE if typ == "gauge" else PrometheusMetricType.COUNTER
    res = compute_stats(mt, ts, TimeRangeFilter(**flt))
    out = res.model_dump(mode="json", exclude_none=True) if res else None
    return {"name": name, "type": typ, "points": [{"ts": t, "value": v} for t, v in points], "filter": flt, "expected": out}


def main():
    rng = random.Random(12)
    cases = []
    # Latency-like: lognormal TTFT, a few observations per scrape, baseline
    # before the window.
    snaps = hist_series(rng, VLLM_TTFT, lambda r, i: r.lognormvariate(-3.4, 0.5), 30, lambda i: 0 if i < 3 else r_per(i))
    cases.append(run_hist("lognormal_ttft", snaps, {"start_ns": snaps[3]["ts"], "end_ns": snaps[-1]["ts"]}))
    # Everything in one bucket: the average becomes the centre.
    snaps = hist_series(rng, ITL, lambda r, i: 0.004 + r.random() * 0.001, 12, lambda i: 40)
    cases.append(run_hist("single_bucket", snaps, {"start_ns": snaps[1]["ts"], "end_ns": snaps[-1]["ts"]}))
    # Tail in +Inf.
    snaps = hist_series(rng, VLLM_TTFT, lambda r, i: 20 + r.random() * 10 if r.random() < 0.1 else r.random() * 0.09, 20, lambda i: 25)
    cases.append(run_hist("inf_tail", snaps, {"start_ns": snaps[2]["ts"], "end_ns": snaps[-1]["ts"]}))
    # Scrape intervals that land in one bucket, with tight spread (F3),
    # centred moderate spread (blended) and off-centre spread (variance-aware).
    snaps = hist_series(rng, TOKENS, lambda r, i: 150 + r.random() * 0.01 if i % 2 else 700 + r.random(), 24, lambda i: 3)
    cases.append(run_hist("tight_variance", snaps, {"start_ns": snaps[0]["ts"], "end_ns": snaps[-1]["ts"]}))
    snaps = hist_series(rng, TOKENS, lambda r, i: 140 + (i % 5) * 4, 30, lambda i: 2)
    cases.append(run_hist("blended", snaps, {"start_ns": snaps[0]["ts"], "end_ns": snaps[-1]["ts"]}))
    snaps = hist_series(rng, TOKENS, lambda r, i: 110 + (i % 7) * 10, 30, lambda i: 1)
    cases.append(run_hist("variance_aware", snaps, {"start_ns": snaps[0]["ts"], "end_ns": snaps[-1]["ts"]}))
    # Many observations: the estimator downsamples to 100k.
    snaps = hist_series(rng, ITL, lambda r, i: r.expovariate(30.0), 3, lambda i: 0 if i == 0 else 70000)
    cases.append(run_hist("downsampled", snaps, {"start_ns": snaps[1]["ts"], "end_ns": snaps[-1]["ts"]}))
    # No observations in the window; then all-zero values.
    snaps = hist_series(rng, ITL, lambda r, i: 0.02, 6, lambda i: 5 if i < 2 else 0)
    cases.append(run_hist("empty_window", snaps, {"start_ns": snaps[3]["ts"], "end_ns": snaps[-1]["ts"]}))
    snaps = hist_series(rng, ITL, lambda r, i: 0.0, 5, lambda i: 4)
    cases.append(run_hist("zero_sum", snaps, {"start_ns": snaps[1]["ts"], "end_ns": snaps[-1]["ts"]}))

    base = 1_000_000_000
    pts = [(base + i * 333_000_000, float(v)) for i, v in enumerate([0, 0, 3, 4, 4, 2, 8, 8, 1, 0, 5])]
    cases.append(run_scalar("gauge", "gauge", pts, {"start_ns": pts[2][0], "end_ns": pts[-1][0]}))
    cases.append(run_scalar("gauge_one_sample", "gauge", pts[:3], {"start_ns": pts[2][0], "end_ns": pts[2][0] + 1}))
    cpts = [(base + i * 333_000_000, float(v)) for i, v in enumerate([10, 10, 40, 90, 150, 150, 260])]
    cases.append(run_scalar("counter", "counter", cpts, {"start_ns": cpts[2][0], "end_ns": cpts[-1][0]}))
    cases.append(run_scalar("counter_no_baseline", "counter", cpts, {"start_ns": cpts[0][0], "end_ns": cpts[-1][0]}))
    rpts = [(base + i * 333_000_000, float(v)) for i, v in enumerate([100, 120, 5, 30])]
    cases.append(run_scalar("counter_reset", "counter", rpts, {"start_ns": rpts[1][0], "end_ns": rpts[-1][0]}))

    with open(OUT + "/aiperf_stats.json", "w") as f:
        json.dump({"generated_by": "scripts/telemetry-goldens.py with aiperf 0.13.0", "cases": cases}, f, indent=1)

    names = [
        ("vllm:time_to_first_token_seconds", "Histogram of time to first token in seconds."),
        ("vllm:kv_cache_usage_perc", "KV-cache usage. 1 means 100 percent usage."),
        ("vllm:num_requests_running", "Number of requests in model execution batches."),
        ("vllm:generation_tokens", "Number of generation tokens processed."),
        ("vllm:prefix_cache_hits", "Prefix cache hits, in terms of number of cached tokens."),
        ("vllm:request_success", "Count of successfully processed requests."),
        ("vllm:num_preemptions", "Cumulative number of preemption from the engine."),
        ("sglang:token_usage", "The token usage."),
        ("sglang:gen_throughput", "The generation throughput (token/s)."),
        ("sglang:cache_hit_rate", "The prefix cache hit rate."),
        ("sglang:num_queue_reqs", "The number of requests in the waiting queue."),
        ("trtllm_kv_cache_hit_rate", "KV cache hit rate (0-1)."),
        ("dynamo_component_kvstats_gpu_cache_usage_percent", "GPU cache usage as a percentage (0.0-1.0)"),
        ("dynamo_frontend_input_sequence_tokens", "Input sequence length in tokens"),
        ("dynamo_frontend_inflight_requests", "Number of inflight requests"),
        ("llamacpp:predicted_tokens_seconds", "Average generation throughput in tokens/s."),
        ("llamacpp:kv_cache_tokens", "KV-cache tokens."),
        ("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB)."),
        ("DCGM_FI_DEV_POWER_USAGE", "Power draw (in W)."),
        ("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "Total energy consumption since boot (in mJ)."),
        ("DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C)."),
        ("DCGM_FI_DEV_SM_CLOCK", "SM clock frequency (in MHz)."),
        ("process_resident_memory_bytes", "Resident memory size in bytes."),
        ("http_requests_total", "Total HTTP requests."),
        ("foo_errors_total", ""),
        ("foo_blocks", ""),
        ("bar_ms", ""),
        ("queue_wait", "Time waiting in milliseconds"),
        ("xfer_rate", "Bandwidth (GB/s)"),
        ("thing_ratio", "Hit ratio 0 to 100%"),
        ("my_celsius", ""),
        ("unknown_metric", ""),
        ("nv_inference_request_success", "Number of successful inference requests, all batch sizes"),
        ("nv_gpu_power_usage", "GPU power usage in watts"),
    ]
    units = []
    for n, d in names:
        u = infer_unit(n, d)
        units.append({"name": n, "description": d, "unit": u.display_name() if u else None})
    with open(OUT + "/aiperf_units.json", "w") as f:
        json.dump({"generated_by": "scripts/telemetry-goldens.py with aiperf 0.13.0", "cases": units}, f, indent=1)


def r_per(i):
    return 1 + (i * 7919) % 5


if __name__ == "__main__":
    main()
