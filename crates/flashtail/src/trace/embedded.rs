//! The bundled default trace: the Microsoft production DTRS slice (127,043 requests, ~300 s),
//! zstd-compressed into the binary so `flashtail run` works without any trace file.
//!
//! It is the SSDsim ASCII slice whose timestamps the source repository rescaled ("divide by
//! 1e8 to get milliseconds"), so the time unit is 0.01 ns per raw unit (raw / 100 = ns).

use super::format::Format;
use super::{reader_from, TraceOptions};
use crate::host::RequestSource;

static DTRS_ZST: &[u8] = include_bytes!("../../data/dtrs-127k.ascii.zst");

/// Where the bundled trace comes from.
pub const DTRS_DESCRIPTION: &str = "DTRS (Microsoft production server trace, Developer Tools \
Release; the workload of ttFlash's headline figure), first 127,043 requests (~300 s), SSDsim \
ASCII, from fadhilkurnia/ssdsim @ c7df6eb8 tracefile/DTRS100M.trace, timestamps rescaled by \
that repository (raw / 1e8 = ms)";

/// Nanoseconds per raw time unit of the bundled slice.
pub const DTRS_TIME_UNIT_NS: f64 = 0.01;

/// The bundled DTRS slice as a request source. `opts` controls error policy, volumes and the
/// reorder window; format and time unit are fixed to the slice's.
pub fn dtrs(opts: &TraceOptions) -> Box<dyn RequestSource + Send> {
    let mut o = opts.clone();
    o.format = Some(Format::Ssdsim);
    o.time_unit_ns = Some(DTRS_TIME_UNIT_NS);
    match reader_from("embedded:dtrs-127k.ascii", Box::new(DTRS_ZST), &o) {
        Ok(r) => Box::new(r),
        // Unreachable with the fixed format and unit above; fall back to an empty source
        // rather than panic.
        Err(_) => Box::new(crate::host::VecSource::new(Vec::new())),
    }
}
