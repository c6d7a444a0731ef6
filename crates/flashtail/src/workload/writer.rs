//! Writes a request stream as a text trace in formats other simulators read.
//!
//! - MQSim ASCII: `arrival_ns device lba_sectors size_sectors type`, device always 0,
//!   512-byte sectors (size rounded up), type 0 = write, 1 = read.
//! - FIU dedup (blkparse-like): `ts_ns pid process lba_sectors size_sectors R|W major minor
//!   md5hex`, one line per 4 KiB block so per-block content survives. md5hex is 32 hex
//!   digits: the 16 of the block's fingerprint in big-endian order, then 16 zeros. Blocks
//!   without a fingerprint (reads, or content disabled) get 32 zeros: fingerprint 0 means
//!   "unknown". pid is 0, process `flashtail`, major/minor 0 0.
//! - LinnOS / Heimdall / FlashNet replayer input: `ts_ms dev offset_B size_B op`, time in
//!   milliseconds with 6 decimals (exact to the ns), device 0, bytes, op 1 = read, 0 = write.
//!
//! Output is buffered by the caller's writer; this module does not buffer or compress.

use super::config::BLOCK_4K;
use crate::host::{Op, RequestSource, SourceError};
use std::io::Write;
use std::str::FromStr;

/// Output trace format.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    Mqsim,
    Fiu,
    Linnos,
}

impl TraceFormat {
    /// Names accepted by `FromStr`.
    pub const NAMES: [&'static str; 3] = ["mqsim", "fiu", "linnos"];
}

impl FromStr for TraceFormat {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "mqsim" => Ok(TraceFormat::Mqsim),
            "fiu" => Ok(TraceFormat::Fiu),
            "linnos" => Ok(TraceFormat::Linnos),
            other => {
                Err(format!("unknown trace format `{other}` (expected one of: {})", TraceFormat::NAMES.join(", ")))
            }
        }
    }
}

/// Why writing stopped.
#[derive(Debug, thiserror::Error)]
pub enum WriteError {
    #[error("request source: {0}")]
    Source(#[from] SourceError),
    #[error("writing trace: {0}")]
    Io(#[from] std::io::Error),
}

const SECTOR: u64 = 512;

/// Drains `src` into `out` in `format`; returns the number of requests written.
pub fn write_trace(src: &mut dyn RequestSource, format: TraceFormat, out: &mut dyn Write) -> Result<u64, WriteError> {
    let mut n = 0u64;
    while let Some(r) = src.next_request()? {
        n += 1;
        match format {
            TraceFormat::Mqsim => {
                let ty = if r.op == Op::Write { 0 } else { 1 };
                writeln!(out, "{} 0 {} {} {}", r.arrival.0, r.offset / SECTOR, r.size.div_ceil(SECTOR), ty)?;
            }
            TraceFormat::Linnos => {
                let op = if r.op == Op::Write { 0 } else { 1 };
                let ns = r.arrival.0;
                writeln!(out, "{}.{:06} 0 {} {} {}", ns / 1_000_000, ns % 1_000_000, r.offset, r.size, op)?;
            }
            TraceFormat::Fiu => {
                let rw = if r.op == Op::Write { 'W' } else { 'R' };
                let blocks = r.size.div_ceil(BLOCK_4K);
                for i in 0..blocks {
                    let start = r.offset + i * BLOCK_4K;
                    let len = BLOCK_4K.min(r.offset + r.size - start);
                    let fp = r.fingerprints.get(i as usize).copied().unwrap_or(0);
                    writeln!(
                        out,
                        "{} 0 flashtail {} {} {} 0 0 {:016x}0000000000000000",
                        r.arrival.0,
                        start / SECTOR,
                        len.div_ceil(SECTOR),
                        rw,
                        fp
                    )?;
                }
            }
        }
    }
    out.flush()?;
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::{HostRequest, VecSource};
    use crate::units::Nanos;

    #[test]
    fn partial_blocks_and_missing_fingerprints() {
        // 6 KiB write at sector 1 with one known fingerprint, then a 512 B read.
        let mut w = HostRequest::new(Nanos(10), 512, 6144, Op::Write);
        w.fingerprints = vec![0xabc].into();
        let r = HostRequest::new(Nanos(20), 0, 512, Op::Read);
        let mut out = Vec::new();
        let n = write_trace(&mut VecSource::new(vec![w.clone(), r.clone()]), TraceFormat::Fiu, &mut out);
        assert_eq!(n.ok(), Some(2));
        let text = String::from_utf8(out).unwrap_or_default();
        assert_eq!(
            text,
            "10 0 flashtail 1 8 W 0 0 0000000000000abc0000000000000000\n\
             10 0 flashtail 9 4 W 0 0 00000000000000000000000000000000\n\
             20 0 flashtail 0 1 R 0 0 00000000000000000000000000000000\n"
        );
        let mut out = Vec::new();
        let n = write_trace(&mut VecSource::new(vec![w, r]), TraceFormat::Mqsim, &mut out);
        assert_eq!(n.ok(), Some(2));
        assert_eq!(String::from_utf8(out).unwrap_or_default(), "10 0 1 12 0\n20 0 0 1 1\n");
    }
}
