//! SSDsim/DiskSim and MQSim ASCII traces: `time dev lsn size op`, whitespace separated.
//!
//! Both simulators use the same layout: arrival time (ns by default), device number, start
//! sector (512 B), size in sectors and op (`1` = read, `0` = write; checked against the
//! shared files: the WebSearch1 MQSim slice is ~100 % `1`, the DTRS slice 89 % `1`).
//! The time unit is configurable because some published slices were rescaled (DTRS: the
//! raw value / 100 is ns).

use super::super::error::FieldError;
use super::super::fields::{fields_ws, mul, op_code, time_ns, uint};
use super::super::record::{expect_fields, LineParser, Parsed, RawRecord};

pub struct Ascii {
    /// Nanoseconds per unit of the time column.
    pub unit_ns: f64,
}

const LAYOUT: &str = "time dev lsn(sectors) size(sectors) op(1=read,0=write)";

const COLUMNS: FiveColumns = FiveColumns { layout: LAYOUT, addr: "lsn", size_unit: 512 };

impl LineParser for Ascii {
    fn parse(&self, line: &[u8]) -> Result<Parsed, FieldError> {
        parse_five(line, self.unit_ns, &COLUMNS)
    }

    fn plain(&self) -> Option<PlainFive> {
        PlainFive::new(self.unit_ns, &COLUMNS)
    }
}

/// The fast path of a five-column format ([`LineParser::plain`]): its time unit and columns.
#[derive(Clone, Copy)]
pub struct PlainFive {
    /// Nanoseconds per unit of the time column, a whole number in 1..=1e12.
    unit: u64,
    columns: &'static FiveColumns,
}

impl PlainFive {
    /// The fast path of a format with `unit_ns` per time unit, or `None` when that is not
    /// a whole number of ns in 1..=1e12: every line then goes to the general parser, which
    /// reads fractional units (checked once here, not on every line).
    pub(super) fn new(unit_ns: f64, columns: &'static FiveColumns) -> Option<PlainFive> {
        // A cast and back, not `fract` (a library call); NaN casts to 0.
        let unit = unit_ns as i64;
        (unit as f64 == unit_ns && (1..=1_000_000_000_000).contains(&unit)).then_some(PlainFive { unit: unit as u64, columns })
    }

    /// The record of the plain line `buf[start..end]`, read in place
    /// (`plain::plain_fields_at`), or `None` whenever [`parse_five`] could do anything but
    /// accept it the same way: another byte, not five fields, a field of more than 19
    /// digits, a product beyond 64 bits, an op code other than 0 or 1 (or a line longer
    /// than `plain::MAX_PLAIN` bytes).
    #[inline(always)]
    pub fn parse(&self, buf: &[u8], start: usize, end: usize) -> Option<RawRecord> {
        let [time, dev, addr, size, op] = super::plain::plain_fields_at::<5>(buf, start, end)?;
        let op = match op {
            1 => crate::host::Op::Read,
            0 => crate::host::Op::Write,
            _ => return None,
        };
        Some(RawRecord {
            ts_ns: i128::from(time.checked_mul(self.unit)?),
            volume: dev,
            offset: addr.checked_mul(512)?,
            size: size.checked_mul(self.columns.size_unit)?,
            op,
            fingerprint: None,
        })
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
    expect_fields(fields_ws(line, &mut f), 5, c.layout)?;
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

    /// The fast path accepts exactly what the general parser accepts, with the same record,
    /// and leaves everything else to it.
    #[test]
    fn plain_lines_parse_as_the_general_parser_does() {
        let lines: [&[u8]; 16] = [
            b"0 0 13373800 16 1",
            b"332970 0 10681800 24 0",
            b"\t 1 2 3 4 1 ",
            b"18446744073709551615 0 1 1 1",
            b"9999999999999999999 0 1 1 1",
            b"18446744073709551616 0 1 1 1",
            b"1 0 36028797018963968 1 1",
            b"1 0 1 36028797018963968 1",
            b"1 0 1 1 2",
            b"1 0 1 1",
            b"1 0 1 1 1 1",
            b"1.5 0 1 1 1",
            b"1 0 -1 1 1",
            b"",
            b"   ",
            b"00000000000000000000001 0 1 1 1",
        ];
        for unit in [1.0, 1e3, 1e9, 0.01] {
            let a = Ascii { unit_ns: unit };
            for l in lines {
                let general = a.parse(l).ok().and_then(|p| match p {
                    Parsed::Record(r) => Some(r),
                    Parsed::NotRequest(_) => None,
                });
                if let Some(r) = a.plain().and_then(|p| p.parse(l, 0, l.len())) {
                    assert_eq!(Some(r), general, "{:?} at {unit}", String::from_utf8_lossy(l));
                }
            }
        }
        let fast: Vec<usize> = (0..lines.len()).filter(|&i| Ascii { unit_ns: 1.0 }.plain().and_then(|p| p.parse(lines[i], 0, lines[i].len())).is_some()).collect();
        assert_eq!(fast, [0, 1, 2, 4]);
        assert!(Ascii { unit_ns: 0.01 }.plain().and_then(|p| p.parse(lines[0], 0, lines[0].len())).is_none());
        let r = Ascii { unit_ns: 1.0 }.plain().and_then(|p| p.parse(b"332970 0 10681800 24 0", 0, 22)).unwrap();
        assert_eq!((r.ts_ns, r.volume, r.offset, r.size, r.op), (332970, 0, 10681800 * 512, 24 * 512, Op::Write));
    }

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
