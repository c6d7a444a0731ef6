//! MSR Cambridge block traces (SNIA IOTTA): CSV
//! `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`.
//!
//! Timestamp is a Windows FILETIME (100 ns ticks since 1601), offsets and sizes are bytes,
//! Type is `Read`/`Write`. The response time is the original device's and is ignored: the
//! simulator produces its own. Several disks share a file; `DiskNumber` is the volume.

use super::super::error::FieldError;
use super::super::fields::{fields, op_letter, split_csv, uint};
use super::super::record::{expect_fields, LineParser, Parsed, RawRecord};

pub struct Msr;

const LAYOUT: &str = "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime";

impl LineParser for Msr {
    fn parse(&self, line: &[u8]) -> Result<Parsed, FieldError> {
        let mut f: [&[u8]; 7] = [&[]; 7];
        expect_fields(fields(split_csv(line), &mut f), 7, LAYOUT)?;
        let ticks = uint(f[0], "Timestamp")?;
        Ok(Parsed::Record(RawRecord {
            ts_ns: i128::from(ticks) * 100,
            volume: uint(f[2], "DiskNumber")?,
            op: op_letter(f[3], "Type")?,
            offset: uint(f[4], "Offset")?,
            size: uint(f[5], "Size")?,
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
        let p = Msr
            .parse(b"128166385295514663,hm,0,Write,9056014336,2048,2833")
            .unwrap();
        assert_eq!(
            p,
            Parsed::Record(RawRecord {
                ts_ns: 12_816_638_529_551_466_300,
                volume: 0,
                offset: 9056014336,
                size: 2048,
                op: Op::Write,
                fingerprint: None
            })
        );
        let e = Msr
            .parse(b"128166385295514663,hm,0,Erase,1,2,3")
            .unwrap_err();
        assert_eq!(e.field, "Type");
    }
}
