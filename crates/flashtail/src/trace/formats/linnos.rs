//! The whitespace layout of the LinnOS, Heimdall and FlashNet replayers' input traces:
//! `ts_ms dev offset_B size_B op`, one request per line.
//!
//! Time in milliseconds (a fraction allowed), the device number (the replayers ignore it; kept
//! as the volume), offset and size in **bytes**, op `1` = read, `0` = write (the replayer's
//! README: "1 for read and 0 for write"). The same five columns as the SSDsim/MQSim ASCII
//! layout, whose offset and size are in 512 B sectors: detection tells them apart by the
//! values (`detect.rs`), and `--format linnos` forces it.

use super::super::error::FieldError;
use super::super::fields::{fields, op_code, split_ws, time_ns, uint};
use super::super::record::{expect_fields, LineParser, Parsed, RawRecord};

pub struct Linnos {
    /// Nanoseconds per unit of the time column (1e6: milliseconds).
    pub unit_ns: f64,
}

const LAYOUT: &str = "time_ms dev offset(bytes) size(bytes) op(1=read,0=write)";

impl LineParser for Linnos {
    fn parse(&self, line: &[u8]) -> Result<Parsed, FieldError> {
        let mut f: [&[u8]; 5] = [&[]; 5];
        expect_fields(fields(split_ws(line), &mut f), 5, LAYOUT)?;
        Ok(Parsed::Record(RawRecord {
            ts_ns: time_ns(f[0], self.unit_ns, "time")?,
            volume: uint(f[1], "dev")?,
            offset: uint(f[2], "offset")?,
            size: uint(f[3], "size")?,
            op: op_code(f[4], 1, 0, "op")?,
            fingerprint: None,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Op;

    #[test]
    fn offsets_and_sizes_are_bytes() {
        let p = Linnos { unit_ns: 1e6 }.parse(b"12.5 0 3432230912 4096 1").unwrap();
        assert_eq!(
            p,
            Parsed::Record(RawRecord { ts_ns: 12_500_000, volume: 0, offset: 3_432_230_912, size: 4096, op: Op::Read, fingerprint: None })
        );
        assert_eq!(Linnos { unit_ns: 1e6 }.parse(b"0 0 0 4096 2").unwrap_err().field, "op");
    }
}
