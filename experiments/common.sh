# Sourced by the experiment scripts: paths, and a release build of the CLI.
#   ROOT: the repository; OUT: experiments/out (git-ignored); FT: the flashtail binary;
#   TR: the shared real trace slices (read-only; TRACES=dir overrides).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/experiments/out"
TR="${TRACES:-$ROOT/../shared/traces}"
FT="$ROOT/target/release/flashtail"
mkdir -p "$OUT"
(cd "$ROOT" && cargo build --release -q)
