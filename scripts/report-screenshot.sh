#!/usr/bin/env bash
# Regenerates docs/report.png, the README's picture of `aiperf plot`'s HTML
# report: a 3x3 sweep (concurrency x ISL) with 3 runs per point against the
# embedded mock server, plotted, and the report shot in headless Chromium
# (Debian's package) with the network off.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/aiperf" ./cmd/aiperf
HOME="$work/home" "$work/aiperf" profile -m mock-model --mock-server --streaming --tokenizer builtin \
	--concurrency 1,2,4 --isl 32,64,128 --num-profile-runs 3 --request-count 16 --osl 16 \
	--random-seed 7 --ui none --output-artifact-dir "$work/sweep" > "$work/profile.log" 2>&1
HOME="$work/home" "$work/aiperf" plot "$work/sweep" --format html > /dev/null 2>&1
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$work/chrome" --proxy-server=127.0.0.1:9 --host-resolver-rules="MAP * ~NOTFOUND" \
	--virtual-time-budget=5000 --hide-scrollbars --window-size=1400,1180 \
	--screenshot=docs/report.png "file://$work/sweep/plots/report.html" 2> /dev/null
echo "wrote docs/report.png"
