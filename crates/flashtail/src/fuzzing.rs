//! The bodies of the fuzz targets (`fuzz/fuzz_targets/*.rs`), as plain functions.
//!
//! The fuzz crate needs nightly and cargo-fuzz, so CI (stable `cargo test --release`) never
//! built it, and a target once stopped compiling unnoticed after an API change. Here the
//! bodies compile with the library, and `tests/fuzz_entries.rs` runs each on the seed inputs
//! and on random and mutated inputs; the fuzz targets are one-line wrappers.
//!
//! Each entry takes arbitrary bytes and panics on a bug (an assertion about what the library
//! promises), which is what a fuzzer looks for; anything else, including every error the
//! library reports, is a normal outcome. Each returns what the input did, so tests can show
//! the inputs reached past the first check. Not a user API (hidden from the docs).

use crate::config::{overrides, presets};
use crate::host::RequestSource;
use crate::trace::detect::{detect, DETECT_LINES};
use crate::trace::{open_reader, reader_from, Format, OnError, TraceError, TraceOptions};
use crate::{HostRequest, Nanos, Op, VecSource};

/// What one (format, error policy) attempt of [`parse_trace`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseRun {
    /// The forced format; `None` is auto-detection.
    pub format: Option<Format>,
    pub on_error: OnError,
    /// Requests read before the end, an error or the cap.
    pub requests: u64,
    /// Opening or a read failed (under `Stop`, the first malformed line does this).
    pub failed: bool,
}

/// Requests drained per attempt of [`parse_trace`]: inputs are small, but a cap keeps each
/// fuzz run fast.
pub const PARSE_CAP: u64 = 10_000;

/// Fuzz target `parse`: feeds `data` to every trace parser (each format forced, and
/// auto-detection), under both error policies, and drains the resulting source. Any panic is
/// a bug: parsers must turn every input into requests or errors. Returns one [`ParseRun`] per
/// attempt, auto-detection first, then `Format::ALL`, each with `Stop` then `Skip`.
pub fn parse_trace(data: &[u8]) -> Vec<ParseRun> {
    let mut runs = Vec::new();
    let formats = std::iter::once(None).chain(Format::ALL.iter().copied().map(Some));
    for format in formats {
        for on_error in [OnError::Stop, OnError::Skip] {
            let opts = TraceOptions {
                format,
                on_error,
                reorder_window: 16,
                ..TraceOptions::default()
            };
            let mut run = ParseRun { format, on_error, requests: 0, failed: false };
            let bytes: Box<dyn std::io::Read + Send> = Box::new(std::io::Cursor::new(data.to_vec()));
            let Ok(mut src) = open_reader("fuzz", bytes, &opts) else {
                run.failed = true;
                runs.push(run);
                continue;
            };
            let mut prev = 0;
            while run.requests < PARSE_CAP {
                match src.next_request() {
                    Ok(Some(r)) => {
                        assert!(r.arrival.0 >= prev, "arrivals must not go backwards");
                        assert!(r.size > 0, "zero-size requests must be skipped");
                        prev = r.arrival.0;
                        run.requests += 1;
                    }
                    Ok(None) => break,
                    Err(_) => {
                        run.failed = true;
                        break;
                    }
                }
            }
            let _ = src.summary();
            runs.push(run);
        }
    }
    runs
}

/// What [`detect_format`] did with one input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DetectOutcome {
    /// The file name (the input's first line).
    pub name: String,
    /// What `detect` chose from the first lines (blkparse event `Q`).
    pub detected: Option<Format>,
    /// The format the reader opened without `--format` used; `None` when opening failed.
    pub opened: Option<Format>,
    /// Requests read from the head (at most `DETECT_LINES`).
    pub requests: u64,
}

/// Fuzz target `detect`: format auto-detection. The first line of the input is the file name
/// (its extension is a detection hint: `.mqsim`, `.trace`, `.gz`, ...), the rest the trace.
/// The detector must not panic on any line; opening the trace without `--format` must read
/// its head in the detected format, and when no format fits, the error must name the file and
/// say to use --format (the only other error at open is a compressed stream that does not
/// decode).
pub fn detect_format(data: &[u8]) -> DetectOutcome {
    let (name, body) = match data.iter().position(|&b| b == b'\n') {
        Some(i) => (String::from_utf8_lossy(&data[..i]).into_owned(), &data[i + 1..]),
        None => (String::from("fuzz"), data),
    };
    let lines: Vec<Vec<u8>> = body
        .split(|&b| b == b'\n')
        .take(DETECT_LINES)
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l).to_vec())
        .collect();
    let detected = detect(&name, &lines, "Q");
    let _ = detect(&name, &lines, "C");
    let mut out = DetectOutcome { name, detected, opened: None, requests: 0 };
    let bytes: Box<dyn std::io::Read + Send> = Box::new(std::io::Cursor::new(body.to_vec()));
    match reader_from(&out.name, bytes, &TraceOptions::default()) {
        Ok(mut r) => {
            out.opened = Some(r.format());
            for _ in 0..DETECT_LINES {
                match r.next_request() {
                    Ok(Some(q)) => {
                        assert!(q.size > 0);
                        out.requests += 1;
                    }
                    Ok(None) | Err(_) => break,
                }
            }
        }
        Err(TraceError::Format { file, message }) => {
            // The other Format errors are a compressed stream that does not decode.
            assert_eq!(file, out.name);
            if message.starts_with("cannot detect") {
                assert!(message.contains("use --format"), "{message}");
            } else {
                assert!(message.contains("compressed ("), "{message}");
            }
        }
        Err(_) => {}
    }
    out
}

/// The largest device (in physical pages) [`device`] simulates: bigger ones are only
/// validated, so one input stays within milliseconds.
pub const MAX_SIM_PAGES: u64 = 1 << 14;

/// How far an input of [`device`] got.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceStage {
    /// The input is not UTF-8 text.
    NotUtf8,
    /// The overrides were rejected.
    OverridesRejected,
    /// The device with its overrides does not validate.
    Invalid,
    /// Valid, but larger than [`MAX_SIM_PAGES`]: not simulated.
    TooLarge,
    /// The picked scheme leaves no host capacity on this device (or does not apply).
    NoCapacity,
    /// Simulated under `scheme`: the blocks GC erased, or the run's error (a stall, say).
    /// `cuts`: the power cuts enacted (two, under the schemes a cut covers).
    Simulated { scheme: &'static str, erases: Result<u64, String>, cuts: u64 },
}

/// What [`device`] did with one input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceOutcome {
    /// Whether the TOML parsed and validated (if not, the overrides went to preset `tiny`).
    pub file_ok: bool,
    pub stage: DeviceStage,
}

/// Fuzz target `device`: a device TOML file and `--set` overrides, as a user writes them.
/// The input is TOML, optionally followed by a line `%%` and one `key=value` override per
/// line. Parsing, overrides and validation must return errors, never panic; an error from the
/// file must name it. A device that validates and is small enough to simulate quickly is then
/// run under a scheme the input picks, on a short fixed workload with two power cuts where the
/// scheme allows them: a validated device must not panic the simulator, lose data or break
/// the FTL's invariants (an error such as a stall is allowed).
pub fn device(data: &[u8]) -> DeviceOutcome {
    let Ok(text) = std::str::from_utf8(data) else {
        return DeviceOutcome { file_ok: false, stage: DeviceStage::NotUtf8 };
    };
    let (toml_text, sets) = match text.split_once("\n%%\n") {
        Some((t, s)) => (t, s.lines().map(str::to_string).collect::<Vec<_>>()),
        None => (text, Vec::new()),
    };
    let (base, file_ok) = match presets::parse("fuzz.toml", toml_text) {
        Ok(d) => (d, true),
        Err(e) => {
            assert!(e.starts_with("fuzz.toml: "), "an error must name the file: {e}");
            // Still exercise the overrides, on a known-good device.
            match presets::load("tiny") {
                Ok(d) => (d, false),
                Err(e) => panic!("preset tiny: {e}"),
            }
        }
    };
    let done = |stage| DeviceOutcome { file_ok, stage };
    let Ok(dev) = overrides::apply_device(&base, &sets) else { return done(DeviceStage::OverridesRejected) };
    if dev.validate().is_err() {
        return done(DeviceStage::Invalid);
    }
    // Everything derived from a validated device must be computable.
    let _ = (dev.logical_pages(), dev.host_bytes(), dev.soft_threshold_blocks(), dev.hard_threshold_blocks());
    if dev.geometry.total_pages_u64() > MAX_SIM_PAGES || dev.buffer.capacity_pages > MAX_SIM_PAGES as u32 {
        return done(DeviceStage::TooLarge);
    }
    let names = crate::gc::scheme_names();
    let pick = data.iter().fold(0usize, |a, &b| a.wrapping_mul(31).wrapping_add(b as usize));
    let scheme = names[pick % names.len()].0;
    let Ok(cap) = crate::runner::host_capacity_bytes(&dev, scheme) else { return done(DeviceStage::NoCapacity) };
    let page = u64::from(dev.geometry.page_size);
    let pages = cap / page;
    if pages == 0 {
        return done(DeviceStage::NoCapacity);
    }
    // Writes that fill the logical space twice (so GC runs), then reads, 50 us apart. (A cap
    // of 4,000 writes once stood here: on `tiny`, 6,553 logical pages, GC never ran.)
    let n = pages * 2;
    let mut reqs = Vec::new();
    let mut x = pick as u64 | 1;
    for i in 0..n + n / 4 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let op = if i < n { Op::Write } else { Op::Read };
        reqs.push(HostRequest::new(Nanos(i * 50_000), (x >> 16) % pages * page, page, op));
    }
    // Power is cut twice, while the device fills (GC running, writes queued) and during the
    // reads, under the schemes a cut is enacted under (the DRAM buffer is refused).
    let settings = crate::runner::RunSettings { max_memory: Some(0), ..Default::default() };
    let mut spec = settings.spec(&dev, scheme);
    let cuts_covered = crate::runner::spec_scheme(&spec).is_ok_and(|s| crate::sim::power_loss::refusal(&s, &spec.device).is_none());
    if cuts_covered {
        spec.settings.power_cut_at = vec![1 + (pick as u64 >> 8) % n, n + n / 8 + 1];
    }
    let result = crate::runner::run_one(&spec, &mut VecSource::new(reqs), None);
    // A validated device may stall or be refused, but never lose data or break the FTL's
    // invariants, through power cuts too.
    if let Err(crate::runner::RunError::Sim(e @ (crate::sim::SimError::Integrity { .. } | crate::sim::SimError::Invariant(_)))) = &result {
        panic!("scheme {scheme}, cuts {:?}: {e}", spec.settings.power_cut_at);
    }
    let cuts = result.as_ref().map_or(0, |r| r.flash.extra.get("power_cuts").copied().unwrap_or(0));
    let erases = result.map(|r| r.flash.erases).map_err(|e| e.to_string());
    done(DeviceStage::Simulated { scheme, erases, cuts })
}
