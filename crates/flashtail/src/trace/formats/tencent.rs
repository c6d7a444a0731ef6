//! Tencent Cloud Block Storage traces: CSV `Timestamp,Offset,Size,IOType,VolumeID`.
//!
//! Timestamp in whole seconds (so many requests share one), offset and size in 512 B
//! sectors, IOType `0` = read, `1` = write (49 % zeros in the shared sample, matching the
//! published read share). Thousands of volumes are interleaved; `VolumeID` is the volume.

use super::super::error::FieldError;
use super::super::fields::{fields, mul, op_code, split_csv, time_ns, uint};
use super::super::record::{expect_fields, LineParser, Parsed, RawRecord};

pub struct Tencent;

const LAYOUT: &str = "Timestamp(s),Offset(sectors),Size(sectors),IOType(0=read,1=write),VolumeID";

impl LineParser for Tencent {
    fn parse(&self, line: &[u8]) -> Result<Parsed, FieldError> {
        let mut f: [&[u8]; 5] = [&[]; 5];
        expect_fields(fields(split_csv(line), &mut f), 5, LAYOUT)?;
        Ok(Parsed::Record(RawRecord {
            ts_ns: time_ns(f[0], 1e9, "Timestamp")?,
            offset: mul(uint(f[1], "Offset")?, 512, "Offset")?,
            size: mul(uint(f[2], "Size")?, 512, "Size")?,
            op: op_code(f[3], 0, 1, "IOType")?,
            volume: uint(f[4], "VolumeID")?,
            fingerprint: None,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Op;

    #[test]
    fn parses_the_readme_example() {
        let p = Tencent.parse(b"1538323200,4247200,128,1,1058").unwrap();
        assert_eq!(
            p,
            Parsed::Record(RawRecord {
                ts_ns: 1_538_323_200_000_000_000,
                volume: 1058,
                offset: 4247200 * 512,
                size: 65536,
                op: Op::Write,
                fingerprint: None
            })
        );
    }
}
