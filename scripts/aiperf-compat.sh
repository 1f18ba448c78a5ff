#!/usr/bin/env bash
# The drop-in compatibility harness: measures this implementation against
# NVIDIA AIPerf 0.13.0 (PyPI; a test reference only, the product never needs
# Python) and refreshes the references the Go tests pin.
#
#   scripts/aiperf-compat.sh                 # everything, references rewritten in place
#   AIPERF_VENV=/work/aip scripts/aiperf-compat.sh   # reuse a venv that has aiperf 0.13.0
#   COMPAT_STEPS="flags report" scripts/aiperf-compat.sh
#
# Steps (COMPAT_STEPS, default all, in this order):
#   flags      AIPerf's `profile --help` flag spellings by help group
#              -> internal/cli/testdata/aiperf013/profile_flags.json
#   report     the Go tests in report mode (AIPERF_COMPAT_REPORT=1): flags
#              accepted and missing per owning issue
#
# It creates a throwaway venv in $COMPAT_OUT (python3 -m venv; pip install
# aiperf==0.13.0) unless AIPERF_VENV already holds one. `git diff` after a run
# shows what changed in AIPerf's references.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
HERE=$ROOT/scripts/aiperf-compat
OUT=${COMPAT_OUT:-$(mktemp -d "${TMPDIR:-/tmp}/aiperf-compat.XXXXXX")}
VENV=${AIPERF_VENV:-$OUT/venv}
AIPERF_VERSION=0.13.0
STEPS=${COMPAT_STEPS:-"flags report"}
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}
mkdir -p "$OUT"

step() { [[ " $STEPS " == *" $1 "* ]]; }

venv() {
	if [ ! -x "$VENV/bin/aiperf" ]; then
		echo "# installing aiperf==$AIPERF_VERSION into $VENV" >&2
		python3 -m venv "$VENV"
		"$VENV/bin/pip" install --quiet "aiperf==$AIPERF_VERSION"
	fi
	local v
	v=$("$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("aiperf"))')
	if [ "$v" != "$AIPERF_VERSION" ]; then
		echo "$VENV has aiperf $v, want $AIPERF_VERSION" >&2
		exit 1
	fi
	echo "# AIPerf $v in $VENV" >&2
}

if step flags; then
	venv
	COLUMNS=250 "$VENV/bin/aiperf" profile --help 2>/dev/null |
		python3 "$HERE/help_flags.py" >"$ROOT/internal/cli/testdata/aiperf013/profile_flags.json"
	echo "# flags: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(sum(len(f) for g in d.values() for f in g), "spellings of", sum(len(g) for g in d.values()), "flags")' \
		"$ROOT/internal/cli/testdata/aiperf013/profile_flags.json")"
fi

if step report; then
	(cd "$ROOT" && AIPERF_COMPAT_REPORT=1 go test ./internal/cli/ -count=1 -run 'TestAIPerfProfileFlagsAccepted' -v) |
		grep -E '^\s+compat_|accepted|missing' | sed 's/^ *compat_[a-z_]*_test.go:[0-9]*: //'
fi
echo "# work files in $OUT" >&2
