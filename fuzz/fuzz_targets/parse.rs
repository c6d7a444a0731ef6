//! Fuzz target: feeds arbitrary bytes to every trace parser (each format forced, and
//! auto-detection), under both error policies, and drains the resulting source. Any panic is
//! a bug: parsers must turn every input into requests or errors. The body is
//! `flashtail::fuzzing::parse_trace`, which CI runs on seeds and random inputs
//! (crates/flashtail/tests/fuzz_entries.rs).
//!
//! Run (needs nightly and cargo-fuzz; CI builds only the body, not this target):
//!   cargo install cargo-fuzz
//!   cd fuzz && cargo +nightly fuzz run parse -- -max_total_time=300
//! Seed corpus suggestion: copy a few lines of each file in ../shared/traces into
//! fuzz/corpus/parse/ first.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| { flashtail::fuzzing::parse_trace(data); });
