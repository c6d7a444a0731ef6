//! libCacheSim's block-trace CSV, as its CloudPhysics VMware sample (`cloudPhysicsIO.csv`,
//! converted from the vscsi binary trace): `version,time,op,size,lbn` with a header line.
//!
//! `time` in whole seconds (the vscsi trace's microsecond clock divided by 10^6, as
//! libCacheSim's converter writes it: the sample's first record has ts 5633898368802 µs in
//! the vscsi file and time 5633898 in the CSV), `op` the SCSI command in hex (`28`/`88`/`08`/`a8` READ, `2a`/`8a`/`0a`/`aa`
//! WRITE; other commands, such as SYNCHRONIZE CACHE, are not requests and are counted
//! apart), `size` in bytes, `lbn` the logical block in 512 B sectors. No volume (0).

use super::super::error::FieldError;
use super::super::fields::{fields, mul, show, split_csv, time_ns, uint};
use super::super::record::{expect_fields, LineParser, Parsed, RawRecord};
use crate::host::Op;

pub struct CloudPhysics;

const LAYOUT: &str = "version,time(s),op(SCSI hex),size(bytes),lbn(sectors)";

/// The SCSI read and write commands (6, 10, 12 and 16-byte CDBs).
fn scsi_op(f: &[u8]) -> Result<Option<Op>, FieldError> {
    if f.is_empty() || f.len() > 2 || !f.iter().all(u8::is_ascii_hexdigit) {
        return Err(FieldError::new("op", format!("{} is not a SCSI command in hex (28 = READ(10), 2a = WRITE(10))", show(f))));
    }
    let v = f.iter().fold(0u8, |a, b| a * 16 + (*b as char).to_digit(16).unwrap_or(0) as u8);
    Ok(match v {
        0x08 | 0x28 | 0x88 | 0xa8 => Some(Op::Read),
        0x0a | 0x2a | 0x8a | 0xaa => Some(Op::Write),
        _ => None,
    })
}

impl LineParser for CloudPhysics {
    fn parse(&self, line: &[u8]) -> Result<Parsed, FieldError> {
        let mut f: [&[u8]; 5] = [&[]; 5];
        expect_fields(fields(split_csv(line), &mut f), 5, LAYOUT)?;
        uint(f[0], "version")?;
        let ts_ns = time_ns(f[1], 1e9, "time")?;
        let Some(op) = scsi_op(f[2])? else {
            return Ok(Parsed::NotRequest("SCSI command other than read/write"));
        };
        Ok(Parsed::Record(RawRecord {
            ts_ns,
            volume: 0,
            op,
            size: uint(f[3], "size")?,
            offset: mul(uint(f[4], "lbn")?, 512, "lbn")?,
            fingerprint: None,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_sample_lines() {
        let p = CloudPhysics.parse(b"1,5633898,2a,6656,40409911").unwrap();
        assert_eq!(
            p,
            Parsed::Record(RawRecord { ts_ns: 5_633_898_000_000_000, volume: 0, offset: 40409911 * 512, size: 6656, op: Op::Write, fingerprint: None })
        );
        assert!(matches!(CloudPhysics.parse(b"1,5633898,28,512,1").unwrap(), Parsed::Record(RawRecord { op: Op::Read, .. })));
        assert_eq!(CloudPhysics.parse(b"1,5633898,35,0,0").unwrap(), Parsed::NotRequest("SCSI command other than read/write"));
        assert_eq!(CloudPhysics.parse(b"1,5633898,zz,512,1").unwrap_err().field, "op");
    }
}
