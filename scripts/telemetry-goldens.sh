#!/bin/sh
# Regenerates the AIPerf 0.13 reference values the server-metrics
# statistics are checked against (test reference only). Needs a Python with
# aiperf==0.13.0: AIPERF_PYTHON (default /work/aip/bin/python, or create one
# with `python3 -m venv /tmp/aip && /tmp/aip/bin/pip install aiperf==0.13.0`).
set -eu
cd "$(dirname "$0")/.."
"${AIPERF_PYTHON:-/work/aip/bin/python}" scripts/telemetry-goldens.py internal/telemetry/servermetrics/testdata
