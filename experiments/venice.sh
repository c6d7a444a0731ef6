#!/usr/bin/env bash
# Reproduces every number in docs/venice.md (Venice and GC bypass): the shared channel bus, the
# Venice mesh and GC bypass under the same GC scheme, device and trace, on the papers' metrics
# (all-I/O mean and p99.99, reads and writes apart, bandwidth in closed loop, first-try
# conflict-free transfers), and the ablation of GC bypass's write-back parking.
# Output: experiments/out/venice-sim.txt (git-ignored). Real slices are read from
# ../shared/traces (TRACES=dir overrides); absent ones are skipped.
#   experiments/venice.sh
source "$(dirname "$0")/common.sh"

# One line per (GC scheme, interconnect): all-I/O mean / p99.99, read and write mean /
# p99.99 (µs), bandwidth over the run's span (MB/s, closed loop: what the device sustains),
# the share of transfers that found their path (mesh) or channel (bus) free at once,
# preemptions and parked write-backs.
row() {  # label, then `flashtail compare` arguments
  local label=$1; shift
  "$FT" compare --no-cost "$@" --out "$OUT/venice-run" >/dev/null
  python3 - "$label" "$OUT/venice-run/summary.json" <<'PY'
import json, sys
label, path = sys.argv[1], sys.argv[2]
for r in json.load(open(path))["reports"]:
    e, a, rd, wr, t = r["flash"]["extra"], r["all"], r["reads"], r["writes"], r["throughput"]
    if "mesh_transfers" in e:
        first = e["mesh_first_try_paths"] / max(e["mesh_transfers"], 1)
    else:
        first = e["bus_first_try_transfers"] / max(e["bus_transfers"], 1)
    us = lambda ns: f"{ns / 1e3:9.1f}"
    print(f'{r["scheme"]:<10} {label:<16} all mean {us(a["mean_ns"])} p99.99 {us(a["p99_99_ns"])} | '
          f'read {us(rd["mean_ns"])} {us(rd["p99_99_ns"])} | write {us(wr["mean_ns"])} {us(wr["p99_99_ns"])} | '
          f'{t["all_mb_per_s"]:8.1f} MB/s | first-try {100 * first:5.1f}% | '
          f'preempt {e.get("mesh_preemptions", 0):>7} parked {e.get("mesh_parked_write_backs", 0):>7} '
          f'peak cache {e.get("mesh_max_parked_write_backs", 0):>4} | violations {r["integrity"]["violations"]}')
PY
}

# The three interconnects, and GC bypass without parking, on one device and input.
table() {  # title, then `flashtail compare` arguments
  echo "-- $1"; shift
  for net in bus venice gc-bypass; do
    row "$net" --schemes base,preemptive --interconnect "$net" "$@"
  done
  row "gc-bypass,nopark" --schemes base,preemptive --interconnect gc-bypass --set interconnect.gc_bypass_parking=false "$@"
}

GEN="$OUT/venice-bench-ref-200k.mqsim"
"$FT" gen --preset bench-ref --count 200000 --span-gib 12 -o "$GEN"
{
  echo "== bus vs Venice vs GC bypass (same GC scheme, device and input); latencies in us"
  table "venice (Z-NAND, 8x8), bench-ref 200k at 30k IOPS, open loop" --device venice --trace "$GEN" --format mqsim --time-scale 30
  table "venice (Z-NAND, 8x8), bench-ref 200k at 60k IOPS, open loop" --device venice --trace "$GEN" --format mqsim --time-scale 60
  table "venice (Z-NAND, 8x8), bench-ref 200k, closed loop QD 8 x 8 queues, timing ignored" --device venice --trace "$GEN" --format mqsim --closed-loop 8x8 --timing ignore
  table "venice (Z-NAND, 8x8), bench-ref 200k, closed loop QD 32 x 8 queues, timing ignored" --device venice --trace "$GEN" --format mqsim --closed-loop 32x8 --timing ignore
  [ -f "$TR/msr/hm_0-sample.csv" ] && table "venice (Z-NAND, 8x8), MSR hm_0 sample x200 loops at 20x speed, open loop" --device venice --trace "$TR/msr/hm_0-sample.csv" --loops 200 --time-scale 20
  [ -f "$TR/msr/hm_0-sample.csv" ] && table "venice (Z-NAND, 8x8), MSR hm_0 sample x200 loops, closed loop QD 8 x 8, timing ignored" --device venice --trace "$TR/msr/hm_0-sample.csv" --loops 200 --closed-loop 8x8 --timing ignore
} | tee "$OUT/venice-sim.txt"
rm -rf "$OUT/venice-run"
