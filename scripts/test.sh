#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run calls this script):
#   1. the Rust workspace: cargo test --release (library and command line);
#   2. the Python package: built from this checkout with one pip install into a virtual
#      environment (target/py-venv, or $FLASHTAIL_VENV), then its pytest suite, which
#      compares it with the command line built in step 1 and starts a local Ray cluster
#      with two worker CPUs.
# Needs cargo, python3 (3.9 or later, with venv) and access to the Python package index.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --release
venv="${FLASHTAIL_VENV:-target/py-venv}"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "./crates/flashtail-py[test]"
FLASHTAIL_BIN="$PWD/target/release/flashtail" "$venv/bin/python" -m pytest crates/flashtail-py/tests -p no:cacheprovider
