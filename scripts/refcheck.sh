#!/usr/bin/env bash
# The regression set for changes that must not move any result (performance work): run the
# same 27 reports and the default `compare` with two binaries and require byte-identical
# output. Reports are written with --no-cost, so host timings do not differ.
#
# Usage: scripts/refcheck.sh OLD_BIN NEW_BIN [WORKDIR]
#   OLD_BIN  a flashtail binary built from the commit to compare against
#            (e.g. `git worktree add /tmp/ref <commit>` and build there)
#   NEW_BIN  the binary under test (e.g. target/release/flashtail)
#   WORKDIR  where outputs go (default: a new directory under /tmp); kept for inspection
# Exit status: 0 when every output is identical, 1 when any differs or a run failed.
# Takes about 15 s per binary on a 2-core machine.
set -u

if [ $# -lt 2 ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
fi
OLD=$1
NEW=$2
WORK=${3:-$(mktemp -d /tmp/refcheck.XXXXXX)}
for b in "$OLD" "$NEW"; do
    if [ ! -x "$b" ]; then
        echo "refcheck: '$b' is not an executable file" >&2
        exit 2
    fi
done

# regression_set BIN OUTDIR: every run of the set; a failed run is listed in OUTDIR/fail.
regression_set() {
    local bin=$1 out=$2
    mkdir -p "$out"
    local gen="--gen bench-ref --gen-count 300000"
    run() {
        local name=$1
        shift
        "$bin" run --no-cost --json "$out/$name.json" "$@" >"$out/$name.out" 2>&1 || echo "$name" >>"$out/fail"
    }
    run bench-base --device bench-ref $gen --scheme base
    run bench-pre --device bench-ref $gen --scheme preemptive
    run bench-base-nooracle --device bench-ref $gen --scheme base --no-oracle
    # ttflash's RAIN (7 data pages + 1 parity) does not fit in bench-ref's spare capacity
    # (over-provisioning 0.125; ftl.rain_parity = "spare" needs at least 0.139), so its runs
    # take the parity from the host's logical space instead: same geometry and
    # over-provisioning, one eighth less host capacity.
    local s rain
    for s in base preemptive ttflash lazy-rtgc rlgc; do
        rain=""
        [ "$s" = ttflash ] && rain="--set ftl.rain_parity=reserved"
        local small="--device bench-ref --gen bench-ref --gen-count 60000 --scheme $s $rain"
        run "susp-$s" $small --set timing.suspend.enabled=true
        run "buf-$s" $small --set buffer.enabled=true --set buffer.capacity_pages=256
        run "die-$s" $small --set ftl.unit=die
        run "ecc-$s" $small --set timing.ecc_ns=20000
    done
    run dyn --device bench-ref --gen bench-ref --gen-count 60000 --scheme base --set ftl.allocation=dynamic
    run mlc --device bench-ref --gen bench-ref --gen-count 60000 --scheme base --set geometry.bits_per_cell=2 \
        --set 'timing.read_ns=[50000,70000]' --set 'timing.program_ns=[500000,1500000]'
    # SplitGC's scrub (page reads, Bloom filter, block groups), which the default job's short
    # run barely reaches: the webmail workload covers hours of device time.
    run sg-webmail --device dtrs-demo --gen splitgc-webmail --gen-count 2000 --scheme splitgc
    run sg-checkall --device dtrs-demo --gen splitgc-webmail --gen-count 1000 --scheme splitgc:check_all=true,groups=4,period_ms=2000
    "$bin" compare --no-cost --out "$out/compare" >"$out/compare.out" 2>&1 || echo compare >>"$out/fail"
}

echo "refcheck: outputs in $WORK"
regression_set "$OLD" "$WORK/old" &
regression_set "$NEW" "$WORK/new"
wait

status=0
for side in old new; do
    if [ -s "$WORK/$side/fail" ]; then
        echo "refcheck: runs that failed with the $side binary: $(tr '\n' ' ' <"$WORK/$side/fail")" >&2
        status=1
    fi
done
compared=0
for f in "$WORK"/old/*.json "$WORK"/old/compare/summary.json "$WORK"/old/compare/summary.csv "$WORK"/old/compare/cdf.csv; do
    rel=${f#"$WORK/old/"}
    compared=$((compared + 1))
    if ! cmp -s "$f" "$WORK/new/$rel"; then
        echo "refcheck: differs: $rel" >&2
        status=1
    fi
done
if [ $status -eq 0 ]; then
    echo "refcheck: all $compared outputs identical"
fi
exit $status
