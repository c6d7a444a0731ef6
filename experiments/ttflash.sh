#!/usr/bin/env bash
# The ttFlash experiment of docs/ttflash.md is `flashtail reproduce ttflash`: this runs it with
# the shared slices (../shared/traces/spc: TPC-C and Financial1; TRACES=dir overrides) and
# writes experiments/out/ttflash/ (git-ignored). Extra arguments go to the command:
#   experiments/ttflash.sh            # DTRS, TPC-C x30, Financial1 (the full run)
#   experiments/ttflash.sh --quick    # DTRS only
source "$(dirname "$0")/common.sh"
args=()
[ -d "$TR/spc" ] && args=(--trace-dir "$TR/spc")
"$FT" reproduce ttflash "${args[@]}" --out "$OUT/ttflash" "$@" | tee "$OUT/ttflash.txt"
