//! Fuzz target: a device TOML file and `--set` overrides, as a user writes them. The input is
//! TOML, optionally followed by a line `%%` and one `key=value` override per line. Parsing,
//! overrides and validation must return errors, never panic; an error from the file must name
//! it. A device that validates and is small enough to simulate quickly is then run under a
//! scheme the input picks, on a short fixed workload: a validated device must not panic the
//! simulator (an error such as a stall is allowed; a panic is a bug). The body is
//! `flashtail::fuzzing::device`, which CI runs on seeds and random inputs
//! (crates/flashtail/tests/fuzz_entries.rs).
//!
//! Run (needs nightly and cargo-fuzz; CI builds only the body, not this target):
//!   cd fuzz && cargo +nightly fuzz run device -- -max_total_time=300 -timeout=20
//! Seed corpus suggestion: the bundled presets (crates/flashtail/presets/*.toml).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| { flashtail::fuzzing::device(data); });
