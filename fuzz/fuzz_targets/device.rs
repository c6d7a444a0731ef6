//! Fuzz target: a device TOML file and `--set` overrides, as a user writes them. The input is
//! TOML, optionally followed by a line `%%` and one `key=value` override per line. Parsing,
//! overrides and validation must return errors, never panic; an error from the file must name
//! it. A device that validates and is small enough to simulate quickly is then run under a
//! scheme the input picks, on a short fixed workload: a validated device must not panic the
//! simulator (an error such as a stall is allowed; a panic is a bug).
//!
//! Run (needs nightly and cargo-fuzz; not built by CI):
//!   cd fuzz && cargo +nightly fuzz run device -- -max_total_time=300 -timeout=20
//! Seed corpus suggestion: the bundled presets (crates/flashtail/presets/*.toml).
#![no_main]

use flashtail::config::{overrides, presets};
use flashtail::{HostRequest, Nanos, Op, VecSource};
use libfuzzer_sys::fuzz_target;

/// The largest device (in physical pages) the target simulates: bigger ones are only
/// validated, so one input stays within milliseconds.
const MAX_SIM_PAGES: u64 = 1 << 14;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (toml_text, sets) = match text.split_once("\n%%\n") {
        Some((t, s)) => (t, s.lines().map(str::to_string).collect::<Vec<_>>()),
        None => (text, Vec::new()),
    };
    let base = match presets::parse("fuzz.toml", toml_text) {
        Ok(d) => d,
        Err(e) => {
            assert!(e.starts_with("fuzz.toml: "), "an error must name the file: {e}");
            // Still exercise the overrides, on a known-good device.
            match presets::load("tiny") {
                Ok(d) => d,
                Err(e) => panic!("preset tiny: {e}"),
            }
        }
    };
    let Ok(dev) = overrides::apply_device(&base, &sets) else { return };
    if dev.validate().is_err() {
        return;
    }
    // Everything derived from a validated device must be computable.
    let _ = (dev.logical_pages(), dev.logical_bytes(), dev.soft_threshold_blocks(), dev.hard_threshold_blocks());
    if dev.geometry.total_pages_u64() > MAX_SIM_PAGES || dev.buffer.capacity_pages > MAX_SIM_PAGES as u32 {
        return;
    }
    let names = flashtail::gc::scheme_names();
    let pick = data.iter().fold(0usize, |a, &b| a.wrapping_mul(31).wrapping_add(b as usize));
    let scheme = names[pick % names.len()].0;
    let Ok(cap) = flashtail::runner::host_capacity_bytes(&dev, scheme) else { return };
    let page = u64::from(dev.geometry.page_size);
    let pages = cap / page;
    if pages == 0 {
        return;
    }
    // Writes that fill the logical space twice (so GC runs), then reads, 50 us apart.
    let n = (pages * 2).min(4000);
    let mut reqs = Vec::new();
    let mut x = pick as u64 | 1;
    for i in 0..n + n / 4 {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let op = if i < n { Op::Write } else { Op::Read };
        reqs.push(HostRequest::new(Nanos(i * 50_000), (x >> 16) % pages * page, page, op));
    }
    let spec = flashtail::runner::RunSpec {
        device: dev,
        scheme: scheme.to_string(),
        victim: None,
        interconnect: None,
        seed: 1,
        oracle: true,
        latency: Default::default(),
        power_loss_every: 0,
    };
    let _ = flashtail::runner::run_one(&spec, &mut VecSource::new(reqs), None);
});
