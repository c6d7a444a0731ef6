//! UMass / SPC traces (Financial, WebSearch originals): CSV
//! `ASU,LBA,Size,Opcode,Timestamp[,...]`.
//!
//! LBA in 512 B sectors, size in bytes, opcode `r`/`w` (either case), timestamp in seconds
//! with a fraction. Some published files carry extra trailing columns; they are ignored.
//! The ASU (application storage unit) is the volume.

use super::super::error::FieldError;
use super::super::fields::{fields, mul, op_letter, split_csv, time_ns, uint};
use super::super::record::{LineParser, Parsed, RawRecord};

pub struct Umass;

impl LineParser for Umass {
    fn parse(&self, line: &[u8]) -> Result<Parsed, FieldError> {
        let mut f: [&[u8]; 5] = [&[]; 5];
        let n = fields(split_csv(line), &mut f);
        if n < 5 {
            return Err(FieldError::new(
                "line",
                format!("expected at least 5 fields (ASU,LBA,size,opcode,timestamp), found {n}"),
            ));
        }
        Ok(Parsed::Record(RawRecord {
            volume: uint(f[0], "ASU")?,
            offset: mul(uint(f[1], "LBA")?, 512, "LBA")?,
            size: uint(f[2], "size")?,
            op: op_letter(f[3], "opcode")?,
            ts_ns: time_ns(f[4], 1e9, "timestamp")?,
            fingerprint: None,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Op;

    #[test]
    fn parses_spc_line() {
        let p = Umass.parse(b"0,303567,3584,w,0.000000").unwrap();
        assert_eq!(
            p,
            Parsed::Record(RawRecord {
                ts_ns: 0,
                volume: 0,
                offset: 303567 * 512,
                size: 3584,
                op: Op::Write,
                fingerprint: None
            })
        );
        assert_eq!(Umass.parse(b"0,1,512,x,0.5").unwrap_err().field, "opcode");
    }
}
