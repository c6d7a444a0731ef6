#!/usr/bin/env bash
# Reproduces every number in docs/venice.md (Venice and GC bypass, the Venice paper): the shared
# channel bus, the Venice mesh and GC bypass under the same GC scheme, device and trace.
# Output: experiments/out/venice-*.txt (git-ignored). Takes ~1 min on 2 cores once built.
# Real slices are read from ../shared/traces (TRACES=dir overrides); absent ones are skipped.
#   experiments/venice.sh
source "$(dirname "$0")/common.sh"

# One line per (GC scheme, interconnect): read mean / p99 / p99.99, write p99.99, the host's
# path (channel) waits, the share of transfers whose first scout found a path, preemptions.
table() {  # label, then `flashtail compare` arguments (device, input)
  local label=$1; shift
  echo "-- $label"
  for net in bus venice gc-bypass; do
    "$FT" compare --no-cost --schemes base,preemptive --interconnect "$net" --out "$OUT/venice-run" "$@" >/dev/null
    python3 - "$net" "$OUT/venice-run/summary.json" <<'PY'
import json, sys
net, path = sys.argv[1], sys.argv[2]
for r in json.load(open(path))["reports"]:
    e, rd, wr = r["flash"]["extra"], r["reads"], r["writes"]
    first = e["mesh_first_try_paths"] / e["mesh_transfers"] if "mesh_transfers" in e else None
    print(f'{r["scheme"]:<11} {net:<10} read mean {rd["mean_ns"]/1e3:9.1f} us  p99 {rd["p99_ns"]/1e3:9.1f} us  '
          f'p99.99 {rd["p99_99_ns"]/1e3:9.1f} us  write p99.99 {wr["p99_99_ns"]/1e3:9.1f} us  '
          f'host path wait {r["waits"]["wait_ns_by_cause"]["channel"]/1e6:9.1f} ms  '
          f'first-try {"  n/a " if first is None else f"{100*first:5.1f}%"}  '
          f'preemptions {e.get("mesh_preemptions", 0):>7}  violations {r["integrity"]["violations"]}')
PY
  done
}

GEN="$OUT/venice-bench-ref-200k.mqsim"
"$FT" gen --preset bench-ref --count 200000 --span-gib 12 -o "$GEN"
{
  echo "== bus vs Venice vs GC bypass (same GC scheme, device and input)"
  table "venice (Z-NAND, 8x8), bench-ref 200k at 30k IOPS" --device venice --trace "$GEN" --format mqsim --time-scale 30
  table "venice (Z-NAND, 8x8), bench-ref 200k at 60k IOPS" --device venice --trace "$GEN" --format mqsim --time-scale 60
  [ -f "$TR/msr/hm_0-sample.csv" ] && table "venice (Z-NAND, 8x8), MSR hm_0 sample x200 loops at 20x speed" --device venice --trace "$TR/msr/hm_0-sample.csv" --loops 200 --time-scale 20
  table "dtrs-demo (TLC-class, 8x4), bundled DTRS slice" --device dtrs-demo
  table "bench-ref (75 us / 750 us, 8x4), bench-ref 200k at 1000 IOPS" --device bench-ref --trace "$GEN" --format mqsim
} | tee "$OUT/venice-sim.txt"
rm -rf "$OUT/venice-run"
