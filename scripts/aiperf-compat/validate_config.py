#!/usr/bin/env python3
"""Validate configs with AIPerf 0.13's own loader (run it with AIPerf's venv).

  validate_config.py yaml FILE...      config v2 files, as `aiperf config validate`
                                       (load_config: envelope, env and Jinja, sweeps)
  validate_config.py input FILE...     profile_export_aiperf.json files (their
                                       input_config) or bare input_config JSON, as
                                       BenchmarkConfig.model_validate
  validate_config.py run FILE...       run_config.json files, as BenchmarkRun.model_validate

Prints one line per file, "OK <file>" or "FAIL <file>: <error>", and exits 1
when any failed.
"""
import json
import sys

from aiperf.config.config import BenchmarkConfig
from aiperf.config.loader.core import load_config


def check_yaml(path):
    load_config(path)


def check_input(path):
    with open(path) as f:
        doc = json.load(f)
    BenchmarkConfig.model_validate(doc.get("input_config", doc))


def check_run(path):
    from aiperf.config.resolution.plan import BenchmarkRun

    with open(path) as f:
        BenchmarkRun.model_validate(json.load(f))


def main():
    mode, files = sys.argv[1], sys.argv[2:]
    check = {"yaml": check_yaml, "input": check_input, "run": check_run}[mode]
    failed = 0
    for path in files:
        try:
            check(path)
            print(f"OK {path}")
        except Exception as e:  # noqa: BLE001 - report every kind of rejection
            failed += 1
            msg = " ".join(str(e).split())
            print(f"FAIL {path}: {msg[:2000]}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
