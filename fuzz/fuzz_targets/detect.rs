//! Fuzz target: format auto-detection. The first line of the input is the file name (its
//! extension is a detection hint: `.mqsim`, `.trace`, `.gz`, ...), the rest the trace. The
//! detector must not panic on any line; opening the trace without `--format` must read its
//! head in the detected format, and when no format fits, the error must name the file and
//! say to use --format (the only other error at open is a compressed stream that does not
//! decode).
//!
//! Run (needs nightly and cargo-fuzz; not built by CI):
//!   cd fuzz && cargo +nightly fuzz run detect -- -max_total_time=300
//! Seed corpus suggestion: a file name line followed by a few lines of each file in
//! ../shared/traces.
#![no_main]

use flashtail::trace::detect::{detect, DETECT_LINES};
use flashtail::trace::{reader_from, TraceError, TraceOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (name, body) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (String::from_utf8_lossy(&data[..i]).into_owned(), &data[i + 1..]),
        None => (String::from("fuzz"), data),
    };
    let lines: Vec<Vec<u8>> = body
        .split(|&b| b == b'\n')
        .take(DETECT_LINES)
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l).to_vec())
        .collect();
    let _ = detect(&name, &lines, "Q");
    let _ = detect(&name, &lines, "C");
    let bytes: Box<dyn std::io::Read + Send> = Box::new(std::io::Cursor::new(body.to_vec()));
    match reader_from(&name, bytes, &TraceOptions::default()) {
        Ok(mut r) => {
            use flashtail::RequestSource;
            for _ in 0..DETECT_LINES {
                match r.next_request() {
                    Ok(Some(q)) => assert!(q.size > 0),
                    Ok(None) | Err(_) => break,
                }
            }
        }
        Err(TraceError::Format { file, message }) => {
            // The other Format errors are a compressed stream that does not decode.
            assert_eq!(file, name);
            if message.starts_with("cannot detect") {
                assert!(message.contains("use --format"), "{message}");
            } else {
                assert!(message.contains("compressed ("), "{message}");
            }
        }
        Err(_) => {}
    }
});
