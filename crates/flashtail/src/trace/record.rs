//! The parser-facing record type and the trait each format parser implements.
//!
//! A parser turns one text line into a `RawRecord` with an *absolute* timestamp in ns (as the
//! trace states it) and the volume id the line names. Normalising time to start at 0,
//! selecting/merging volumes, reordering and skipping zero-size records are the reader's job,
//! so that every format gets them identically.

use super::error::FieldError;
use crate::host::Op;
use crate::units::Fingerprint;

/// One request as a trace line states it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawRecord {
    /// Absolute timestamp in ns (trace clock; may be far from 0, may go backwards).
    pub ts_ns: i128,
    /// Disk / device / LUN / volume the line names (0 when the format has none).
    pub volume: u64,
    /// Byte offset within that volume.
    pub offset: u64,
    /// Size in bytes (0 is possible in real traces; the reader skips and counts it).
    pub size: u64,
    pub op: Op,
    /// Content fingerprint of the first 4 KiB block, when the trace carries content.
    pub fingerprint: Option<Fingerprint>,
}

/// What a line turned out to be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Parsed {
    Record(RawRecord),
    /// A well-formed line that is not a request (a blkparse event of another type, a flush
    /// without data, ...). Counted under the given reason, never an error.
    NotRequest(&'static str),
}

/// A line parser for one format. Stateless per line, so lines can be retried (salvage after
/// a binary prefix, format detection).
pub trait LineParser: Send {
    fn parse(&self, line: &[u8]) -> Result<Parsed, FieldError>;

    /// The fast path of a format that reads lines made only of decimal digits, spaces and
    /// tabs: its `parse` gives for such a line exactly what [`LineParser::parse`] gives, or
    /// `None`, which leaves the line to the line triage and `parse` (they also report
    /// whatever is wrong with it). `None` (the default): no fast path. A value, not a method
    /// per line, so that the reader calls it directly (inlined into its loop) instead of
    /// through the trait object: a record returned through the object's call was written
    /// and read back in pieces of different widths, which stalled on store-to-load
    /// forwarding.
    fn plain(&self) -> Option<super::formats::ascii::PlainFive> {
        None
    }
}

/// Checks the number of fields and names the format's expected layout when it is wrong.
pub fn expect_fields(n: usize, want: usize, layout: &'static str) -> Result<(), FieldError> {
    if n == want {
        Ok(())
    } else {
        Err(FieldError::new(
            "line",
            format!("expected {want} fields ({layout}), found {n}"),
        ))
    }
}
