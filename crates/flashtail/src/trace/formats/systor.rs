//! SYSTOR'17 (Lenovo VDI) traces: CSV `Timestamp,Response,IOType,LUN,Offset,Size` with a
//! header line.
//!
//! Timestamp in seconds with 9 decimals, IOType `R`/`W`, offset and size in bytes. The
//! records are *not* time-sorted (they are logged at completion); the reader's reorder window
//! restores arrival order. The header line is skipped by the reader as header-like.

use super::super::error::FieldError;
use super::super::fields::{fields, op_letter, split_csv, time_ns, uint};
use super::super::record::{expect_fields, LineParser, Parsed, RawRecord};

pub struct Systor;

const LAYOUT: &str = "Timestamp(s),Response(s),IOType(R/W),LUN,Offset(bytes),Size(bytes)";

impl LineParser for Systor {
    fn parse(&self, line: &[u8]) -> Result<Parsed, FieldError> {
        let mut f: [&[u8]; 6] = [&[]; 6];
        expect_fields(fields(split_csv(line), &mut f), 6, LAYOUT)?;
        Ok(Parsed::Record(RawRecord {
            ts_ns: time_ns(f[0], 1e9, "Timestamp")?,
            op: op_letter(f[2], "IOType")?,
            volume: uint(f[3], "LUN")?,
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
        let p = Systor
            .parse(b"1456095145.133076000,0.000806000,R,0,899056122368,131072")
            .unwrap();
        assert_eq!(
            p,
            Parsed::Record(RawRecord {
                ts_ns: 1_456_095_145_133_076_000,
                volume: 0,
                offset: 899056122368,
                size: 131072,
                op: Op::Read,
                fingerprint: None
            })
        );
    }
}
