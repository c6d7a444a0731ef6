#!/usr/bin/env bash
# Reproduces every number in docs/rlgc.md and docs/rlgc-tables.md.
# Output: experiments/out/ (git-ignored): rlgc-<config>.md tables, rlgc-free-<config>/ free-block timelines
# (CSV, seed 1), and fin1-compare/ (the report behind docs/img/rlgc-free-blocks-fin1.svg).
# Takes ~20 min on 2 cores once built. Real slices are read from ../shared/traces (TRACES=dir overrides
# for the compare run; the test driver skips rows whose slice is absent).
#   experiments/rlgc.sh            # everything
#   experiments/rlgc.sh D R        # only these configurations (D A2 C2 R A B), or `fin1`
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/experiments/out"
TR="${TRACES:-$ROOT/../shared/traces}"
mkdir -p "$OUT"
(cd "$ROOT" && cargo build --release -q && cargo test --release -q -p flashtail --test gc_partial_experiment --no-run)

config() {  # name, then the environment of that configuration
  local name=$1; shift
  echo "== $name ($*)"
  (cd "$ROOT" && env "$@" OUT="$OUT/rlgc-$name.md" OUTDIR="$OUT/rlgc-free-$name" \
    cargo test --release -q -p flashtail --test gc_partial_experiment -- --ignored --nocapture >"$OUT/rlgc-$name.log" 2>&1)
  cat "$OUT/rlgc-$name.md"
}

fin1() {  # Financial1 looped to 400k requests on the steady-state 128 Gb device: the free-blocks figure
  "$ROOT/target/release/flashtail" compare --device rlgc-128gb --set geometry.blocks_per_plane=256 \
    --set ftl.gc_reserved_blocks=1 --set precondition.model=steady --set precondition.fill=0.9 \
    --trace "$TR/spc/financial1-head.ascii" --loops 40 --schemes lazy-rtgc,rlgc,rlgc-aggressive,idle-es \
    --out "$OUT/fin1-compare"
}

for what in ${@:-D A2 C2 R A B fin1}; do
  case $what in
    D)  config D-steady PHASED=100 FILL=0.9 ;;
    A2) config A-steady FILL=0.9 ;;
    C2) config C-steady GEN=1 FILL=0.9 ;;
    R)  config R REAL=1 ;;
    A)  config A-empty RLGC_EXPERIMENT=1 ;;
    B)  config B-empty FOOTPRINT=0.9 HOT=0.5 SHORT_US=4000 ;;
    fin1) fin1 ;;
    *) echo "unknown configuration '$what' (D A2 C2 R A B fin1)" >&2; exit 2 ;;
  esac
done
