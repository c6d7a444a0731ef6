//! `blkparse` text output (Linux blktrace):
//! `maj,min cpu seq time(s) pid action rwbs sector + nsectors [process]`.
//!
//! A request passes several events (A remap, Q queued, G, I, D issued, C completed, M
//! merged); one event type is chosen as "the request" (Q by default: what the application
//! asked for; D: what reached the device after merging). Other events, flushes without data,
//! discards and blkparse's per-CPU summary lines are well-formed non-requests, not errors.
//! The volume is `major << 20 | minor`.

use super::super::error::FieldError;
use super::super::fields::{fields, mul, split_ws, time_ns, uint};
use super::super::record::{LineParser, Parsed, RawRecord};
use crate::host::Op;

/// The events that can stand for a request: each happens once per request and carries its
/// sector range (Q queued, G got a request struct, I inserted, D issued, C completed).
/// Merges (M, F), remaps (A), plugs and messages do not.
pub const EVENTS: [&str; 5] = ["Q", "G", "I", "D", "C"];

/// The event name in upper case, or an error naming the allowed ones.
pub fn check_event(s: &str) -> Result<String, String> {
    let up = s.trim().to_ascii_uppercase();
    if EVENTS.contains(&up.as_str()) {
        Ok(up)
    } else {
        Err(format!(
            "unknown blkparse event '{s}' (allowed: {}: queued, got request, inserted, issued, completed)",
            EVENTS.join(", ")
        ))
    }
}

pub struct Blkparse {
    /// The action letter(s) taken as requests, e.g. `Q` or `D`.
    pub event: String,
}

fn device(f: &[u8]) -> Option<(u64, u64)> {
    let comma = f.iter().position(|b| *b == b',')?;
    let major = uint(&f[..comma], "device").ok()?;
    let minor = uint(&f[comma + 1..], "device").ok()?;
    Some((major, minor))
}

/// True when the fields after rwbs are those of an event with no data: an optional sector,
/// then one or more bracketed items (`[0]`, `[flush-8:16]`) and nothing else. A line cut
/// short after its sector has no bracket and stays an error.
fn without_range(rest: &[&[u8]], n: usize) -> bool {
    let rest = match rest {
        [s, tail @ ..] if uint(s, "sector").is_ok() => tail,
        _ => rest,
    };
    let bracketed = |t: &&[u8]| t.first() == Some(&b'[') && t.last() == Some(&b']');
    n <= 10 && !rest.is_empty() && rest.iter().all(bracketed)
}

/// The error for a line with fewer fields than an event has.
fn short_line(n: usize) -> FieldError {
    FieldError::new("line", format!("expected 'dev cpu seq time pid action rwbs ...', found {n} fields"))
}

impl LineParser for Blkparse {
    fn parse(&self, line: &[u8]) -> Result<Parsed, FieldError> {
        let mut f: [&[u8]; 10] = [&[]; 10];
        let n = fields(split_ws(line), &mut f);
        let Some((major, minor)) = (if n > 0 { device(f[0]) } else { None }) else {
            // Summary sections ("CPU0 (8,16):", "Total ...", "Reads Queued: ...") start with
            // a word. Anything else is a record with a damaged device, or not blkparse at all
            // (a wrong --format): skipping it as a summary line dropped every line of an MSR
            // trace without an error.
            if n == 0 || f[0].first().is_some_and(u8::is_ascii_alphabetic) {
                return Ok(Parsed::NotRequest("blkparse summary line"));
            }
            // A line of another shape is a wrong field count, as in the other formats (and
            // for detection no near miss); only an event-sized line blames its device.
            if n < 7 {
                return Err(short_line(n));
            }
            return Err(FieldError::new("device", format!("expected MAJOR,MINOR (e.g. 8,16), found {}", super::super::fields::show(f[0]))));
        };
        if n < 7 {
            return Err(short_line(n));
        }
        if f[5] != self.event.as_bytes() {
            return Ok(Parsed::NotRequest("other blkparse event"));
        }
        let rwbs = f[6];
        // D (discard) and E (secure erase) carry no data to write; N/F alone are barriers.
        let op = if rwbs.iter().any(|b| *b == b'D' || *b == b'E') {
            return Ok(Parsed::NotRequest("discard"));
        } else if rwbs.contains(&b'W') {
            Op::Write
        } else if rwbs.contains(&b'R') {
            Op::Read
        } else {
            return Ok(Parsed::NotRequest("flush or barrier without data"));
        };
        if n < 10 || f[8] != b"+" {
            if rwbs.contains(&b'F') || without_range(&f[7..n.min(f.len())], n) {
                // A flush (F, FWS, ...) carries no sector range; nor does the completion of
                // one, printed as `C WS 1950885322 [0]` (sector, then the error code).
                return Ok(Parsed::NotRequest("flush or barrier without data"));
            }
            return Err(FieldError::new(
                "sector",
                "expected 'sector + nsectors' after rwbs",
            ));
        }
        Ok(Parsed::Record(RawRecord {
            ts_ns: time_ns(f[3], 1e9, "time")?,
            volume: (major << 20) | (minor & 0xF_FFFF),
            offset: mul(uint(f[7], "sector")?, 512, "sector")?,
            size: mul(uint(f[9], "nsectors")?, 512, "nsectors")?,
            op,
            fingerprint: None,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_chosen_event_only() {
        let q = Blkparse { event: "Q".into() };
        let p =
            q.parse(b"  8,16   5        2     0.000001850 18615  Q   R 1444645666 + 256 [java]");
        assert_eq!(
            p,
            Ok(Parsed::Record(RawRecord {
                ts_ns: 1850,
                volume: (8 << 20) | 16,
                offset: 1444645666 * 512,
                size: 131072,
                op: Op::Read,
                fingerprint: None
            }))
        );
        let a = q.parse(
            b"  8,16   5        1     0.000000000 18615  A   R 1444645666 + 256 <- (8,17) 1",
        );
        assert_eq!(a, Ok(Parsed::NotRequest("other blkparse event")));
        assert_eq!(
            q.parse(b"CPU0 (8,16):"),
            Ok(Parsed::NotRequest("blkparse summary line"))
        );
        let fl = q.parse(b"  8,16   2    5     9.3  16766  Q  FWS [flush-8:16]");
        assert_eq!(fl, Ok(Parsed::NotRequest("flush or barrier without data")));
    }

    /// Only a line that starts with a word is a summary line: a line of another format
    /// (`--format blkparse` on an MSR trace) is a wrong field count, and an event with a
    /// damaged device an error naming the device field (every line of an MSR trace was
    /// skipped as a summary line, silently under `--on-error stop`).
    #[test]
    fn a_line_without_a_device_is_an_error_unless_it_is_a_summary_line() {
        let q = Blkparse { event: "Q".into() };
        for summary in [&b" Reads Queued:           0,        0KiB"[..], b"Throughput (R/W): 0KiB/s / 1KiB/s", b"Events (8,16): 366 entries", b"Total (sdb):"] {
            assert_eq!(q.parse(summary), Ok(Parsed::NotRequest("blkparse summary line")), "{}", String::from_utf8_lossy(summary));
        }
        let e = q.parse(b"128166385295514663,hm,0,Write,9056014336,2048,2833").unwrap_err();
        assert_eq!(e, FieldError::new("line", "expected 'dev cpu seq time pid action rwbs ...', found 1 fields"));
        let e = q.parse(b"  8;16   5        2     0.000001850 18615  Q   R 1444645666 + 256 [java]").unwrap_err();
        assert_eq!(e, FieldError::new("device", "expected MAJOR,MINOR (e.g. 8,16), found '8;16'"));
    }

    #[test]
    fn completions_without_a_sector_range_are_not_requests() {
        let c = Blkparse { event: "C".into() };
        // Line 804 of the shared Hadoop slice: a flush completion (sector, error code).
        let fl = c.parse(b"  8,16   5      324     3.832956675     0  C  WS 1950885322 [0]");
        assert_eq!(fl, Ok(Parsed::NotRequest("flush or barrier without data")));
        let p = c.parse(b"  8,16   5      325     3.832957000     0  C   W 1950885322 + 8 [0]");
        assert!(matches!(p, Ok(Parsed::Record(RawRecord { size: 4096, .. }))), "{p:?}");
        // Cut short after the sector, or a range without its size: still errors.
        for (bad, field) in [
            (&b"  8,16   5  1  3.8  0  C  WS 1950885322"[..], "sector"),
            (b"  8,16   5  1  3.8  0  C  WS 1950885322 junk [0]", "sector"),
            (b"  8,16   5  1  3.8  0  C  WS 1950885322 + [0]", "nsectors"),
        ] {
            let e = c.parse(bad).unwrap_err();
            assert_eq!(e.field, field, "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn only_per_request_events_are_accepted() {
        assert_eq!(check_event("d"), Ok("D".to_string()));
        assert_eq!(check_event("C"), Ok("C".to_string()));
        let e = check_event("X").unwrap_err();
        assert!(e.contains("'X'") && e.contains("Q, G, I, D, C"), "{e}");
        assert!(check_event("M").is_err() && check_event("").is_err());
    }
}
