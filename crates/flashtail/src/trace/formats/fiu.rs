//! FIU SRCMap / I/O-deduplication traces:
//! `ts_ns pid process lba size R/W major minor md5`, whitespace separated.
//!
//! LBA and size are 512 B sectors; each line is normally one 4 KiB block whose content MD5
//! is given, which we keep as the page fingerprint (`u64` of the first 8 bytes of the MD5,
//! big-endian). The process name is taken as "whatever lies between pid and lba" so a name
//! containing spaces does not shift the columns. The volume is `major << 20 | minor`.
//! Not handled here: the tar-header bytes of the shared sample (the reader skips or salvages
//! non-text lines before they reach a parser).

use super::super::error::FieldError;
use super::super::fields::{mul, op_letter, split_ws, time_ns, uint};
use super::super::record::{LineParser, Parsed, RawRecord};

pub struct Fiu;

/// `u64` from the first 16 hex digits of an MD5 (big-endian).
pub fn fingerprint(md5: &[u8]) -> Result<u64, FieldError> {
    if md5.len() != 32 {
        return Err(FieldError::new(
            "md5",
            format!("expected 32 hex digits, found {}", md5.len()),
        ));
    }
    let mut v = 0u64;
    for &b in &md5[..16] {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            _ => return Err(FieldError::new("md5", "not a hexadecimal digest")),
        };
        v = (v << 4) | u64::from(d);
    }
    if !md5[16..].iter().all(u8::is_ascii_hexdigit) {
        return Err(FieldError::new("md5", "not a hexadecimal digest"));
    }
    Ok(v)
}

impl LineParser for Fiu {
    fn parse(&self, line: &[u8]) -> Result<Parsed, FieldError> {
        // Fixed columns at both ends; the process name may contain spaces.
        let mut all: [&[u8]; 16] = [&[]; 16];
        let mut n = 0;
        for f in split_ws(line) {
            if n == all.len() {
                return Err(FieldError::new("line", "too many fields for an FIU record"));
            }
            all[n] = f;
            n += 1;
        }
        if n < 9 {
            return Err(FieldError::new(
                "line",
                format!(
                    "expected 9 fields (ts_ns pid process lba size R/W major minor md5), found {n}"
                ),
            ));
        }
        let t = &all[n - 6..n];
        let major = uint(t[3], "major")?;
        let minor = uint(t[4], "minor")?;
        uint(all[1], "pid")?;
        Ok(Parsed::Record(RawRecord {
            ts_ns: time_ns(all[0], 1.0, "ts_ns")?,
            offset: mul(uint(t[0], "lba")?, 512, "lba")?,
            size: mul(uint(t[1], "size")?, 512, "size")?,
            op: op_letter(t[2], "op")?,
            volume: (major << 20) | (minor & 0xF_FFFF),
            fingerprint: Some(fingerprint(t[5])?),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Op;

    #[test]
    fn keeps_the_md5_prefix_as_fingerprint() {
        let p = Fiu
            .parse(b"89966527950584 4253 nfsd 508516672 8 W 6 0 88b93b628d84082186026d9da044f173")
            .unwrap();
        assert_eq!(
            p,
            Parsed::Record(RawRecord {
                ts_ns: 89966527950584,
                volume: 6 << 20,
                offset: 508516672 * 512,
                size: 4096,
                op: Op::Write,
                fingerprint: Some(0x88b9_3b62_8d84_0821),
            })
        );
        // A process name with a space does not shift the columns.
        let p = Fiu
            .parse(b"1 2 my proc 8 8 R 6 0 00000000000000010000000000000000")
            .unwrap();
        match p {
            Parsed::Record(r) => assert_eq!((r.offset, r.fingerprint), (4096, Some(1))),
            other => panic!("{other:?}"),
        }
        assert_eq!(Fiu.parse(b"1 2 p 8 8 R 6 0 88b9").unwrap_err().field, "md5");
    }
}
