//! The FlashNet replayer's CSV (its per-I/O output, which FlashNet trains on):
//! `ts_ms,lat_us,op,size_B,offset_B[,submit_ms,io_size_B,...]`.
//!
//! Arrival time in milliseconds (a fraction allowed), the measured latency in µs (not used:
//! the simulator makes its own), op `1` = read, `0` = write, size and offset in bytes. Later
//! columns vary between FlashNet versions and are ignored. No volume (0).

use super::super::error::FieldError;
use super::super::fields::{fields, fixed, op_code, split_csv, time_ns, uint};
use super::super::record::{LineParser, Parsed, RawRecord};

pub struct Flashnet;

const LAYOUT: &str = "ts_ms,lat_us,op(1=read,0=write),size(bytes),offset(bytes)[,...]";

impl LineParser for Flashnet {
    fn parse(&self, line: &[u8]) -> Result<Parsed, FieldError> {
        let mut f: [&[u8]; 5] = [&[]; 5];
        let n = fields(split_csv(line), &mut f);
        if !(5..=16).contains(&n) {
            return Err(FieldError::new("line", format!("expected 5 to 16 fields ({LAYOUT}), found {n}")));
        }
        fixed(f[1], "lat_us")?;
        Ok(Parsed::Record(RawRecord {
            ts_ns: time_ns(f[0], 1e6, "ts_ms")?,
            volume: 0,
            op: op_code(f[2], 1, 0, "op")?,
            size: uint(f[3], "size")?,
            offset: uint(f[4], "offset")?,
            fingerprint: None,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Op;

    #[test]
    fn parses_a_replayer_line() {
        let p = Flashnet.parse(b"1000.000,1075,1,4096,282624,1000.070,4096").unwrap();
        assert_eq!(
            p,
            Parsed::Record(RawRecord { ts_ns: 1_000_000_000, volume: 0, offset: 282_624, size: 4096, op: Op::Read, fingerprint: None })
        );
        assert_eq!(Flashnet.parse(b"0.000,35,0,4096,90279936").unwrap(), Parsed::Record(RawRecord { ts_ns: 0, volume: 0, offset: 90_279_936, size: 4096, op: Op::Write, fingerprint: None }));
        assert_eq!(Flashnet.parse(b"0.000,35,2,4096,0").unwrap_err().field, "op");
        assert_eq!(Flashnet.parse(b"0.000,35,1,4096").unwrap_err().field, "line");
    }
}
