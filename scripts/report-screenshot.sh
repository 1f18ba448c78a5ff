#!/usr/bin/env bash
# Regenerates docs/report.png, the README's picture of `aiperf plot`'s HTML
# report: a 3x3 sweep (concurrency x ISL) with 5 runs per point (the fewest
# that get confidence ellipses) against a mock server whose latency grows
# with the requests in flight and the prompt length, as a real server's
# does (so the curves show a trade-off rather than noise around one
# latency), plotted, and the report shot in headless Chromium (Debian's
# package) with the network off.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local
work=$(mktemp -d)
mock=
trap '[ -z "$mock" ] || kill "$mock"; rm -rf "$work"' EXIT
go build -o "$work/aiperf" ./cmd/aiperf
"$work/aiperf" mock-server -p 0 --ttft 20 --itl 5 --ttft-concurrency-quad-ms 1 --itl-concurrency-lin-ms 0.5 \
	--ttft-per-isl-token-ms 0.05 --random-seed 7 > "$work/mock.log" 2>&1 &
mock=$!
url=
for _ in $(seq 100); do
	url=$(grep -o 'listening on http://[^ ]*' "$work/mock.log" | cut -d' ' -f3) && [ -n "$url" ] && break
	sleep 0.1
done
[ -n "$url" ] || { cat "$work/mock.log" >&2; exit 1; }
HOME="$work/home" "$work/aiperf" profile -m mock-model -u "$url" --streaming --tokenizer builtin \
	--concurrency 1,2,4 --isl 32,64,128 --num-profile-runs 5 --request-count 16 --osl 16 \
	--random-seed 7 --ui none --output-artifact-dir "$work/sweep" > "$work/profile.log" 2>&1
HOME="$work/home" "$work/aiperf" plot "$work/sweep" --format html > /dev/null 2>&1
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$work/chrome" --proxy-server=127.0.0.1:9 --host-resolver-rules="MAP * ~NOTFOUND" \
	--virtual-time-budget=5000 --hide-scrollbars --window-size=1400,1180 \
	--screenshot=docs/report.png "file://$work/sweep/plots/report.html" 2> /dev/null
echo "wrote docs/report.png"
