//! Line triage before parsing: blank, header-like, non-text (binary bytes), or text.
//!
//! Real trace files carry junk that is harmless and must not stop a run: CSV header lines,
//! blank lines, comments, and binary bytes (the FIU sample was cut out of a tar archive, so
//! its first lines are tar headers and the first record sits after them on line 3). Such
//! lines are always skipped and counted, whatever the error policy. A non-text line whose
//! text after the last binary byte parses as a record is *salvaged* (counted too).

/// What a line is, before any format parser sees it.
#[derive(Debug, PartialEq, Eq)]
pub enum LineKind<'a> {
    /// Empty or whitespace only.
    Blank,
    /// Starts with a letter or `#`, or holds no digit at all: a header or comment.
    HeaderLike,
    /// Contains control or non-ASCII bytes; `tail` is the text after the last such byte.
    NonText {
        tail: &'a [u8],
    },
    Text,
}

pub fn classify(line: &[u8]) -> LineKind<'_> {
    // One branch-free pass for the usual clean line; the position of the last bad byte only
    // when there is one.
    let mut bad = false;
    let mut digits = false;
    for &b in line {
        bad |= (b < 0x20 && b != b'\t') | (b >= 0x7f);
        digits |= b.is_ascii_digit();
    }
    let last_bad = if bad { line.iter().rposition(|&b| (b < 0x20 && b != b'\t') || b >= 0x7f) } else { None };
    if let Some(i) = last_bad {
        return LineKind::NonText {
            tail: &line[i + 1..],
        };
    }
    match line.iter().find(|b| **b != b' ' && **b != b'\t') {
        None => LineKind::Blank,
        Some(b) if b.is_ascii_alphabetic() || *b == b'#' || !digits => LineKind::HeaderLike,
        Some(_) if !digits => LineKind::HeaderLike,
        Some(_) => LineKind::Text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triage() {
        assert_eq!(classify(b""), LineKind::Blank);
        assert_eq!(classify(b"Timestamp,Response,IOType"), LineKind::HeaderLike);
        assert_eq!(classify(b"# comment 1"), LineKind::HeaderLike);
        assert_eq!(classify(b"0 0 1 1 1"), LineKind::Text);
        assert_eq!(
            classify(b"ustar\0\x001 2 3"),
            LineKind::NonText { tail: b"1 2 3" }
        );
        assert_eq!(classify(b"\0\0"), LineKind::NonText { tail: b"" });
    }
}
