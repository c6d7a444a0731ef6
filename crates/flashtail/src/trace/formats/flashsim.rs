//! The flashsim variant of Financial1: `time_ms dev lba size op`, tab separated.
//!
//! Time is in milliseconds with a fraction, the start address in 512 B sectors, the size in
//! 4 KiB pages, op `1` = read, `0` = write (58 % reads in the shared 50k slice, matching the
//! published Financial1 mix).

use super::super::error::FieldError;
use super::super::record::{LineParser, Parsed};
use super::ascii::{parse_five, FiveColumns, PlainFive};

pub struct Flashsim {
    /// Nanoseconds per unit of the time column (1e6: milliseconds).
    pub unit_ns: f64,
}

const COLUMNS: FiveColumns =
    FiveColumns { layout: "time_ms dev lba(sectors) size(4KiB pages) op(1=read,0=write)", addr: "lba", size_unit: 4096 };

impl LineParser for Flashsim {
    fn parse(&self, line: &[u8]) -> Result<Parsed, FieldError> {
        parse_five(line, self.unit_ns, &COLUMNS)
    }

    fn plain(&self) -> Option<PlainFive> {
        PlainFive::new(self.unit_ns, &COLUMNS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Op;
    use crate::trace::record::RawRecord;

    #[test]
    fn parses_fractional_ms() {
        let p = Flashsim { unit_ns: 1e6 }
            .parse(b"853429.443000\t0\t395512\t2\t1")
            .unwrap();
        assert_eq!(
            p,
            Parsed::Record(RawRecord {
                ts_ns: 853_429_443_000,
                volume: 0,
                offset: 395512 * 512,
                size: 8192,
                op: Op::Read,
                fingerprint: None
            })
        );
    }
}
