//! The bundled traces, zstd-compressed into the binary so runs work without any trace file:
//!
//! - the default trace, the Microsoft production DTRS slice (127,043 requests, ~300 s): the
//!   SSDsim ASCII slice whose timestamps the source repository rescaled ("divide by 1e8 to get
//!   milliseconds"), so the time unit is 0.01 ns per raw unit (raw / 100 = ns);
//! - the MSR Cambridge `hm_0` sample (1,000 consecutive requests, 127 s, MSR CSV), the
//!   stand-in of `flashtail reproduce venice` and `gc-bypass` when the user has no MSR traces.

use super::format::Format;
use super::{reader_from, TraceOptions};
use crate::host::RequestSource;

static DTRS_ZST: &[u8] = include_bytes!("../../data/dtrs-127k.ascii.zst");

/// Where the bundled trace comes from.
pub const DTRS_DESCRIPTION: &str = "DTRS (Microsoft production server trace, Developer Tools \
Release; the workload of ttFlash's headline figure), first 127,043 requests (~300 s), SSDsim \
ASCII, from fadhilkurnia/ssdsim @ c7df6eb8 tracefile/DTRS100M.trace, timestamps rescaled by \
that repository (raw / 1e8 = ms)";

static HM0_ZST: &[u8] = include_bytes!("../../data/msr-hm_0-1000.csv.zst");

/// Where the bundled MSR sample comes from.
pub const HM0_DESCRIPTION: &str = "MSR Cambridge hm_0 (hardware monitoring server), 1,000 \
consecutive requests (127 s, 51 % reads), MSR CSV, from ben-manes/caffeine @ b479ff7d";

/// Nanoseconds per raw time unit of the bundled slice.
pub const DTRS_TIME_UNIT_NS: f64 = 0.01;

/// The bundled DTRS slice as a request source. `opts` controls error policy, volumes and the
/// reorder window; format and time unit are fixed to the slice's.
pub fn dtrs(opts: &TraceOptions) -> Box<dyn RequestSource + Send> {
    embedded("embedded:dtrs-127k.ascii", DTRS_ZST, Format::Ssdsim, Some(DTRS_TIME_UNIT_NS), opts)
}

/// The bundled MSR `hm_0` sample as a request source (format fixed, its own time unit).
pub fn hm0(opts: &TraceOptions) -> Box<dyn RequestSource + Send> {
    embedded("embedded:msr-hm_0-1000.csv", HM0_ZST, Format::Msr, None, opts)
}

fn embedded(name: &str, bytes: &'static [u8], format: Format, unit: Option<f64>, opts: &TraceOptions) -> Box<dyn RequestSource + Send> {
    let mut o = opts.clone();
    o.format = Some(format);
    if unit.is_some() {
        o.time_unit_ns = unit;
    }
    match reader_from(name, Box::new(bytes), &o) {
        Ok(r) => Box::new(r),
        // Unreachable with the fixed format and unit above; fall back to an empty source
        // rather than panic.
        Err(_) => Box::new(crate::host::VecSource::new(Vec::new())),
    }
}
