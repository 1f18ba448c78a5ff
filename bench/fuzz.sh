#!/usr/bin/env bash
# Runs every Go fuzz target in the module for N seconds each (default 30),
# one after another, and exits non-zero if any of them fails. A failing
# input is saved by `go test` under the package's testdata/fuzz/<Target>/,
# where plain `go test` (and so CI) replays it from then on, together with
# the f.Add seeds.
#
#   bench/fuzz.sh            # 30 s per target
#   bench/fuzz.sh 5          # 5 s per target
#   FUZZ_MATCH=SSE bench/fuzz.sh 60   # only targets whose name contains SSE
#   FUZZ_PARALLEL=1 bench/fuzz.sh     # one fuzz worker (default: GOMAXPROCS)
#
# Not part of CI: it is long by design and keeps the cores busy.
set -uo pipefail

SECONDS_EACH=${1:-30}
MATCH=${FUZZ_MATCH:-}
PARALLEL=${FUZZ_PARALLEL:-}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT" || exit 2
export GOTOOLCHAIN=${GOTOOLCHAIN:-local}

if ! [[ $SECONDS_EACH =~ ^[0-9]+$ ]] || [ "$SECONDS_EACH" -eq 0 ]; then
	echo "usage: $0 [seconds per target, a positive integer]" >&2
	exit 2
fi

# Every "func FuzzXxx(" in a _test.go file, as "<package dir> <target>".
mapfile -t targets < <(grep -rEo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]+\(' . |
	sed -E 's|^\./(.*)/[^/]+_test\.go:func (Fuzz[A-Za-z0-9_]+)\($|\1 \2|' |
	grep -F -- "$MATCH" | sort -u)

if [ "${#targets[@]}" -eq 0 ]; then
	echo "no fuzz targets found" >&2
	exit 2
fi

echo "# ${#targets[@]} fuzz targets, ${SECONDS_EACH}s each"
failed=()
for t in "${targets[@]}"; do
	dir=${t% *}
	name=${t#* }
	echo "## $dir $name"
	if ! go test "./$dir" -run '^$' -fuzz "^${name}\$" -fuzztime "${SECONDS_EACH}s" \
		-fuzzminimizetime 10s ${PARALLEL:+-parallel "$PARALLEL"}; then
		failed+=("$dir $name")
	fi
done

if [ "${#failed[@]}" -gt 0 ]; then
	echo "# FAILED (${#failed[@]} of ${#targets[@]}):" >&2
	printf '#   %s\n' "${failed[@]}" >&2
	exit 1
fi
echo "# all ${#targets[@]} fuzz targets passed"
