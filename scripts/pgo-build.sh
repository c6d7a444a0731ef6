#!/usr/bin/env bash
# Build flashtail with profile-guided optimisation (PGO): an instrumented build runs a
# training mix, and the release build is then compiled with the branch and call counts it
# recorded. The simulator is branchy integer code whose hot paths the compiler cannot rank
# on its own; on the reference benchmark the PGO build executes about 6 % fewer
# instructions than the plain build (17 % before the plain build raised LLVM's inlining
# threshold and inlined what PGO inlines), and it took 4 % less CPU on MQSim's workload B
# in alternating runs (docs/performance.md, "What was optimised": Build).
#
# Usage: scripts/pgo-build.sh [--no-bench-training]
#   Result: target/pgo/release/flashtail (the plain `cargo build --release` is untouched).
#   --no-bench-training  leave the reference benchmark workload out of the training mix
#                        (to check that the gain is not specific to what was trained on).
#
# Needs: rustup's llvm-tools component (for llvm-profdata, matching rustc's LLVM); the
# script installs it with `rustup component add llvm-tools` when it is missing.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
# Cargo reads .cargo/config.toml from the working directory up, so build from the root: the
# profile flags below are then added to the repository's own `build.rustflags` (command-line
# `--config` arrays are merged with the file's). RUSTFLAGS would replace both.
cd "$ROOT"
if [ -n "${RUSTFLAGS:-}${CARGO_ENCODED_RUSTFLAGS:-}" ]; then
    echo "pgo-build: ignoring RUSTFLAGS / CARGO_ENCODED_RUSTFLAGS (they would replace the profile flags)" >&2
    unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS
fi
TARGET="$ROOT/target/pgo"
DATA="$TARGET/profiles"
BENCH_TRAINING=1
for arg in "$@"; do
    case "$arg" in
        --no-bench-training) BENCH_TRAINING=0 ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "pgo-build: unknown argument '$arg' (see --help)" >&2; exit 2 ;;
    esac
done

profdata() {
    local sysroot host
    sysroot="$(rustc --print sysroot)"
    host="$(rustc -vV | sed -n 's/^host: //p')"
    echo "$sysroot/lib/rustlib/$host/bin/llvm-profdata"
}

PROFDATA="$(profdata)"
if [ ! -x "$PROFDATA" ]; then
    if ! command -v rustup >/dev/null; then
        echo "pgo-build: $PROFDATA not found and rustup is not available to install llvm-tools" >&2
        exit 1
    fi
    echo "pgo-build: installing rustup component llvm-tools (for llvm-profdata)" >&2
    rustup component add llvm-tools
    PROFDATA="$(profdata)"
    [ -x "$PROFDATA" ] || { echo "pgo-build: llvm-profdata still missing at $PROFDATA" >&2; exit 1; }
fi

rm -rf "$DATA"
mkdir -p "$DATA"

echo "pgo-build: 1/3 instrumented build" >&2
FLASHTAIL_BUILD="pgo-instrumented" cargo build --release --target-dir "$TARGET/gen" -p flashtail-cli \
    --config "build.rustflags = ['-Cprofile-generate=$DATA']"
GEN="$TARGET/gen/release/flashtail"

echo "pgo-build: 2/3 training runs" >&2
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export LLVM_PROFILE_FILE="$DATA/%m_%p.profraw"
# The main job: every default scheme on the bundled trace slice.
"$GEN" compare --out "$WORK/compare" >/dev/null
# ttFlash's whole stack (RAIN, GC-tolerant reads and flush) with program/erase suspension.
# (bench-ref has no spare room for the parity: it comes from the host's logical space.)
"$GEN" run --device bench-ref --gen bench-ref --gen-count 100000 --scheme ttflash \
    --set ftl.rain_parity=reserved --set timing.suspend.enabled=true --json "$WORK/ttflash.json" >/dev/null
# Partial-GC schemes on a bursty workload with idle time.
"$GEN" compare --device rlgc-128gb --set geometry.blocks_per_plane=256 --gen rlgc-webmail \
    --gen-count 50000 --schemes lazy-rtgc,rlgc,idle-ma --out "$WORK/rlgc" >/dev/null
if [ "$BENCH_TRAINING" = 1 ]; then
    # The issue-6 reference workload, a fifth of its length, all four benchmark cases.
    "$GEN" bench --requests 200000 >/dev/null
fi
unset LLVM_PROFILE_FILE
"$PROFDATA" merge -o "$DATA/merged.profdata" "$DATA"/*.profraw

echo "pgo-build: 3/3 optimised build" >&2
TRAINED="bundled-trace compare, ttflash, partial GC"
[ "$BENCH_TRAINING" = 1 ] && TRAINED="$TRAINED, bench-ref"
FLASHTAIL_BUILD="release + PGO (trained on: $TRAINED)" cargo build --release --target-dir "$TARGET" -p flashtail-cli \
    --config "build.rustflags = ['-Cprofile-use=$DATA/merged.profdata']"
echo "pgo-build: built $TARGET/release/flashtail" >&2
