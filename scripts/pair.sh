#!/usr/bin/env bash
# Paired timing of two flashtail binaries on one benchmark case.
#
#   scripts/pair.sh ROUNDS REQUESTS CASE BIN_A BIN_B
#   scripts/pair.sh 10 1000000 run:base:on target/release/flashtail /tmp/other/flashtail
#
# Each round runs A and B at the same time, one per core (cores swapped every round), so both
# see the same machine conditions; the median of the per-round ratios B/A is far steadier on a
# shared VM than alternating runs (docs/performance.md, "Method"). CASE is what
# `flashtail bench --child` takes: run:<scheme>:<on|off>. Needs 2 cores, taskset and python3.
set -euo pipefail
if [ $# -ne 5 ]; then
    sed -n 2,10p "$0" >&2
    exit 2
fi
N=$1; REQ=$2; CASE=$3; A=$4; B=$5
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
for r in $(seq "$N"); do
    if (( r % 2 )); then ca=0; cb=1; else ca=1; cb=0; fi
    taskset -c $ca "$A" bench --child "$CASE" --requests "$REQ" > "$WORK/a.json" &
    pa=$!
    taskset -c $cb "$B" bench --child "$CASE" --requests "$REQ" > "$WORK/b.json" &
    pb=$!
    wait $pa
    wait $pb
    python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['run_seconds'], json.load(open(sys.argv[2]))['run_seconds'])" \
        "$WORK/a.json" "$WORK/b.json" >> "$WORK/pairs"
done
python3 - "$WORK/pairs" <<'EOF'
import statistics as st, sys
p = [tuple(map(float, l.split())) for l in open(sys.argv[1]) if l.strip()]
r = [b / a for a, b in p]
print("A median %.3f s, B median %.3f s; ratio B/A median %.3f (min %.3f, max %.3f); B faster in %d of %d rounds"
      % (st.median(a for a, _ in p), st.median(b for _, b in p), st.median(r), min(r), max(r),
         sum(1 for x in r if x < 1), len(r)))
EOF
