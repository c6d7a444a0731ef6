#!/usr/bin/env bash
# Reproduces every number in docs/wla-gc.md (WLA-GC: the paper's toy models and the simulator).
# Output: experiments/out/wla-*.txt (git-ignored). Takes ~1 min on 2 cores once built.
# Real slices are read from ../shared/traces (TRACES=dir overrides); absent ones are skipped.
#   experiments/wla.sh
source "$(dirname "$0")/common.sh"

echo "== toy models (paper §IV-A, §IV-B)"
"$FT" wla-toy | tee "$OUT/wla-toy-exact.txt"
"$FT" wla-toy --layout bernoulli | tee "$OUT/wla-toy-bernoulli.txt"
"$FT" wla-toy --blocks 1000000 --batches 1 | tee "$OUT/wla-toy-1m.txt"

# One row per scheme: WAF, erases, GC tR and tR+tPROG per victim, read and write p99.99.
row() {  # label, then `flashtail run` arguments
  local label=$1; shift
  for s in base wla-gc; do
    "$FT" run --scheme "$s" "$@" >"$OUT/wla-run.tmp" 2>&1
    awk -v label="$label" -v s="$s" '
      /^Reads/ {sec="r"} /^Writes/ {sec="w"} /^Flash and GC/ {sec="f"}
      sec=="r" && $1==s {rp=$6} sec=="w" && $1==s {wp=$6} sec=="f" && $1==s {waf=$2; er=$3; sec=""}
      /gc_read_ns:/ {rd=$2} /gc_move_ns_per_victim:/ {mv=$2} /^integrity/ {viol=$9}
      END {printf "%-28s %-7s WAF %6s  erases %6s  GC tR/victim %8.3f ms  GC tR+tPROG/victim %8.3f ms  p99.99 read %8s write %8s ms  violations %s\n",
           label, s, waf, er, (er>0 ? rd/er/1e6 : 0), mv/1e6, rp, wp, viol}' "$OUT/wla-run.tmp"
  done
}
{
  echo "== simulator: base vs wla-gc"
  row "qlc, DTRS slice" --device qlc
  [ -f "$TR/spc/financial1-50k.trace" ] && row "qlc, Financial1 50k" --device qlc --trace "$TR/spc/financial1-50k.trace"
  row "qlc, gen rlgc-RBESQL 100k" --device qlc --gen rlgc-RBESQL --gen-count 100000
  row "qlc, gen rlgc-MSNSFS 200k" --device qlc --gen rlgc-MSNSFS --gen-count 200000
  row "qlc, gen bench-ref 200k" --device qlc --gen bench-ref --gen-count 200000
  row "wla-paper, gen bench-ref 1.5M" --device wla-paper --gen bench-ref --gen-count 1500000
} | tee "$OUT/wla-sim.txt"
rm -f "$OUT/wla-run.tmp"
