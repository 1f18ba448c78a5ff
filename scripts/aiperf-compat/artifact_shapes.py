#!/usr/bin/env python3
"""Print the shape of an AIPerf artifact directory as JSON: which files it
has and, per file, the keys, metric tags, units and statistic names (no
values), so two tools' outputs for the same run can be compared.

  artifact_shapes.py DIR > shape.json

The Go side computes the same shape (internal/benchmark/compat_golden_test.go);
keep the two in step.
"""
import csv
import json
import os
import sys

STAT_KEYS_ORDER = None


def files(d):
    out = []
    for root, dirs, names in os.walk(d):
        dirs[:] = [x for x in dirs if x not in ("logs",)]
        for n in names:
            out.append(os.path.relpath(os.path.join(root, n), d))
    return sorted(out)


def summary_json(path):
    doc = json.load(open(path))
    metrics, top = {}, []
    for k, v in doc.items():
        if isinstance(v, dict) and "unit" in v:
            metrics[k] = {"unit": v["unit"], "stats": sorted(x for x in v if x != "unit")}
        else:
            top.append(k)
    return {"top": sorted(top), "metrics": metrics}


def summary_csv(path):
    stat_rows, value_rows, header = [], [], []
    with open(path, newline="") as f:
        section = None
        for row in csv.reader(f):
            if not row:
                section = None
                continue
            if section is None:
                section = row[0] if row[0] == "Metric" and len(row) > 2 else "value"
                header.append(row)
                continue
            (stat_rows if section == "Metric" else value_rows).append(row[0])
    return {"headers": header, "stat_rows": sorted(stat_rows), "value_rows": sorted(value_rows)}


def jsonl(path):
    meta, metrics, top, phases = set(), {}, set(), set()
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            top.update(d)
            meta.update(d.get("metadata", {}))
            phases.add(d.get("metadata", {}).get("benchmark_phase"))
            for k, v in (d.get("metrics") or {}).items():
                metrics[k] = v.get("unit")
    return {"top": sorted(top), "metadata": sorted(meta), "metrics": metrics, "phases": sorted(p for p in phases if p)}


def outputs(path):
    d = json.load(open(path))
    entry, metrics = set(), set()
    for e in d.get("data", []):
        entry.update(e)
        metrics.update(e.get("metrics", {}))
    return {"top": sorted(d), "schema_version": d.get("schema_version"), "entry": sorted(entry), "metrics": sorted(metrics)}


def main():
    d = sys.argv[1]
    shape = {"files": files(d)}
    for name, fn in (("profile_export_aiperf.json", summary_json), ("profile_export_aiperf.csv", summary_csv),
                     ("profile_export.jsonl", jsonl), ("profile_export_raw.jsonl", jsonl), ("outputs.json", outputs)):
        p = os.path.join(d, name)
        if os.path.exists(p):
            shape[name] = fn(p)
    ready = os.path.join(d, ".aiperf_results_ready.json")
    if os.path.exists(ready):
        shape[".aiperf_results_ready.json"] = sorted(json.load(open(ready)))
    print(json.dumps(shape, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
