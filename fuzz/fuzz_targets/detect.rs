//! Fuzz target: format auto-detection. The first line of the input is the file name (its
//! extension is a detection hint: `.mqsim`, `.trace`, `.gz`, ...), the rest the trace. The
//! detector must not panic on any line; opening the trace without `--format` must read its
//! head in the detected format, and when no format fits, the error must name the file and
//! say to use --format. The body is `flashtail::fuzzing::detect_format`, which CI runs on
//! seeds and random inputs (crates/flashtail/tests/fuzz_entries.rs).
//!
//! Run (needs nightly and cargo-fuzz; CI builds only the body, not this target):
//!   cd fuzz && cargo +nightly fuzz run detect -- -max_total_time=300
//! Seed corpus suggestion: a file name line followed by a few lines of each file in
//! ../shared/traces.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| { flashtail::fuzzing::detect_format(data); });
