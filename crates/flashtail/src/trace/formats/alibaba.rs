//! Alibaba Cloud block traces (the 2020 EBS release): CSV
//! `device_id,opcode,offset,length,timestamp`.
//!
//! `opcode` is `R` or `W`, offset and length in bytes, timestamp in microseconds (Unix
//! epoch). Hundreds of virtual disks are interleaved; `device_id` is the volume.

use super::super::error::FieldError;
use super::super::fields::{fields, op_letter, split_csv, time_ns, uint};
use super::super::record::{expect_fields, LineParser, Parsed, RawRecord};

pub struct Alibaba;

const LAYOUT: &str = "device_id,opcode(R/W),offset(bytes),length(bytes),timestamp(us)";

impl LineParser for Alibaba {
    fn parse(&self, line: &[u8]) -> Result<Parsed, FieldError> {
        let mut f: [&[u8]; 5] = [&[]; 5];
        expect_fields(fields(split_csv(line), &mut f), 5, LAYOUT)?;
        // A single letter only: `Read`/`Write` words belong to other layouts.
        if f[1].len() != 1 {
            return Err(FieldError::new("opcode", format!("{} is not R or W", super::super::fields::show(f[1]))));
        }
        Ok(Parsed::Record(RawRecord {
            volume: uint(f[0], "device_id")?,
            op: op_letter(f[1], "opcode")?,
            offset: uint(f[2], "offset")?,
            size: uint(f[3], "length")?,
            ts_ns: time_ns(f[4], 1e3, "timestamp")?,
            fingerprint: None,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Op;

    #[test]
    fn parses_the_published_example() {
        let p = Alibaba.parse(b"419,W,8792731648,16384,1577808144360767").unwrap();
        assert_eq!(
            p,
            Parsed::Record(RawRecord {
                ts_ns: 1_577_808_144_360_767_000,
                volume: 419,
                offset: 8_792_731_648,
                size: 16384,
                op: Op::Write,
                fingerprint: None
            })
        );
        assert_eq!(Alibaba.parse(b"419,X,0,4096,1").unwrap_err().field, "opcode");
    }
}
