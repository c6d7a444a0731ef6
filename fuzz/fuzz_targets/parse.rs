//! Fuzz target: feeds arbitrary bytes to every trace parser (each format forced, and
//! auto-detection), under both error policies, and drains the resulting source. Any panic is
//! a bug: parsers must turn every input into requests or errors.
//!
//! Run (needs nightly and cargo-fuzz; not built by CI):
//!   cargo install cargo-fuzz
//!   cd fuzz && cargo +nightly fuzz run parse -- -max_total_time=300
//! Seed corpus suggestion: copy a few lines of each file in ../shared/traces into
//! fuzz/corpus/parse/ first.
#![no_main]

use flashtail::trace::{open_reader, Format, OnError, TraceOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let formats = std::iter::once(None).chain(Format::ALL.iter().copied().map(Some));
    for format in formats {
        for on_error in [OnError::Stop, OnError::Skip] {
            let opts = TraceOptions {
                format,
                on_error,
                reorder_window: 16,
                ..TraceOptions::default()
            };
            let bytes: Box<dyn std::io::Read + Send> =
                Box::new(std::io::Cursor::new(data.to_vec()));
            let Ok(mut src) = open_reader("fuzz", bytes, &opts) else {
                continue;
            };
            let mut prev = 0;
            // Bounded: inputs are small, but a cap keeps each run fast.
            for _ in 0..10_000 {
                match src.next_request() {
                    Ok(Some(r)) => {
                        assert!(r.arrival.0 >= prev, "arrivals must not go backwards");
                        assert!(r.size > 0, "zero-size requests must be skipped");
                        prev = r.arrival.0;
                    }
                    Ok(None) | Err(_) => break,
                }
            }
            let _ = src.summary();
        }
    }
});
