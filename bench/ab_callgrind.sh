#!/usr/bin/env bash
# Instructions the native core spends on one scenario, in one checkout:
#   bench/ab_callgrind.sh ROOT GRAMMAR "SCENARIO"   (e.g. hermes "fifty calls")
# prints ROOT|GRAMMAR|SCENARIO|instructions|deltas. Only what runs inside
# Core.feed and Core.close is counted (valgrind --tool=callgrind, collection
# toggled on those two entries), so Python's start-up and the caller's loop
# do not blur the figure: two checkouts compare exactly, whatever the load
# (run it for each side; bench/ab.py is the same comparison in CPU time).
# ROOT is a checkout with its built src/toolparse/_native*.so; 4-character
# deltas of toolparse.benchmark's scenarios.
set -euo pipefail
root=$1 grammar=$2 scenario=$3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
py=${PYTHON:-python}
code="
import sys
from toolparse import benchmark
deltas = benchmark.chunks(benchmark.scenarios(sys.argv[1])[sys.argv[2]], 4)
benchmark.run_toolparse(sys.argv[1], deltas, 'native')
print(f'deltas={len(deltas)}', file=sys.stderr)
"
deltas=$(cd "$root" && PYTHONPATH="$root/src" PYTHONHASHSEED=0 valgrind --tool=callgrind \
    --collect-atstart=no --toggle-collect='*pyengine::feed_o*' \
    --toggle-collect='*__pymethod_close__*' --callgrind-out-file="$out" \
    "$py" -c "$code" "$grammar" "$scenario" 2>&1 >/dev/null | sed -n 's/^deltas=//p')
echo "$root|$grammar|$scenario|$(awk '/^(summary|totals):/ {print $2; exit}' "$out")|$deltas"
