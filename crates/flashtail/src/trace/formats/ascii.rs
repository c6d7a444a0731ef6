//! SSDsim/DiskSim and MQSim ASCII traces: `time dev lsn size op`, whitespace separated.
//!
//! Both simulators use the same layout: arrival time (ns by default), device number, start
//! sector (512 B), size in sectors and op (`1` = read, `0` = write; checked against the
//! shared files: the WebSearch1 MQSim slice is ~100 % `1`, the DTRS slice 89 % `1`).
//! The time unit is configurable because some published slices were rescaled (DTRS: the
//! raw value / 100 is ns).

use super::super::error::FieldError;
use super::super::fields::{fields, mul, op_code, split_ws, time_ns, uint};
use super::super::record::{expect_fields, LineParser, Parsed, RawRecord};

pub struct Ascii {
    /// Nanoseconds per unit of the time column.
    pub unit_ns: f64,
}

const LAYOUT: &str = "time dev lsn(sectors) size(sectors) op(1=read,0=write)";

impl LineParser for Ascii {
    fn parse(&self, line: &[u8]) -> Result<Parsed, FieldError> {
        parse_five(line, self.unit_ns, &FiveColumns { layout: LAYOUT, addr: "lsn", size_unit: 512 })
    }
}

/// The five-column `time dev address size op` layout shared by the SSDsim/DiskSim/MQSim
/// ASCII traces and the flashsim variant: only the names and the size unit differ.
pub(super) struct FiveColumns {
    pub layout: &'static str,
    /// Name of the address column in error messages.
    pub addr: &'static str,
    /// Bytes per unit of the size column (512: sectors; 4096: pages).
    pub size_unit: u64,
}

pub(super) fn parse_five(line: &[u8], unit_ns: f64, c: &FiveColumns) -> Result<Parsed, FieldError> {
    let mut f: [&[u8]; 5] = [&[]; 5];
    expect_fields(fields(split_ws(line), &mut f), 5, c.layout)?;
    Ok(Parsed::Record(RawRecord {
        ts_ns: time_ns(f[0], unit_ns, "time")?,
        volume: uint(f[1], "dev")?,
        offset: mul(uint(f[2], c.addr)?, 512, c.addr)?,
        size: mul(uint(f[3], "size")?, c.size_unit, "size")?,
        op: op_code(f[4], 1, 0, "op")?,
        fingerprint: None,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Op;

    #[test]
    fn dtrs_line_with_rescaled_time() {
        let p = Ascii { unit_ns: 0.01 }
            .parse(b"97900000 0 287641400 128 1")
            .unwrap();
        assert_eq!(
            p,
            Parsed::Record(RawRecord {
                ts_ns: 979_000,
                volume: 0,
                offset: 287641400 * 512,
                size: 65536,
                op: Op::Read,
                fingerprint: None
            })
        );
        assert_eq!(
            Ascii { unit_ns: 1.0 }
                .parse(b"0 0 1 1 2")
                .unwrap_err()
                .field,
            "op"
        );
        assert_eq!(
            Ascii { unit_ns: 1.0 }.parse(b"0 0 1 1").unwrap_err().field,
            "line"
        );
    }
}
