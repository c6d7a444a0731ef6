//! The fields of a plain trace line (decimal digits, spaces and tabs only): the line's bytes
//! classified 16 at a time (SSE2 on x86_64), each field's digits converted eight at a time.
//! The fast path of the five-column ASCII layouts (`ascii::PlainFive`).
//!
//! A line is plain when every byte is a digit, a space or a tab, it holds exactly `N` runs
//! of digits and none is longer than [`MAX_DIGITS`] (a 20-digit value could pass 64 bits).
//! Anything else gives `None` and goes to the general parser, which accepts or reports it.
//! What it does not do: signs, decimal points, hex, or lines longer than [`MAX_PLAIN`]
//! bytes (those go to the general parser too).

/// Longest line read here (one 64-bit mask covers it).
pub const MAX_PLAIN: usize = 64;
/// Most digits a field may have (every 19-digit value fits 64 bits).
pub const MAX_DIGITS: u32 = 19;

const ONES: u64 = 0x0101_0101_0101_0101;
const ZEROS: u64 = ONES * b'0' as u64;

/// The value of the eight digits of `d` (each byte 0..=9, the most significant one in the
/// lowest byte).
#[inline(always)]
fn eight_digits(d: u64) -> u64 {
    let d = d.wrapping_mul(10).wrapping_add(d >> 8);
    let lo = (d & 0x0000_00FF_0000_00FF).wrapping_mul(100 + (1_000_000 << 32));
    let hi = ((d >> 16) & 0x0000_00FF_0000_00FF).wrapping_mul(1 + (10_000 << 32));
    lo.wrapping_add(hi) >> 32
}

/// Which of 16 bytes are digits and which are blanks (spaces, tabs), one bit per byte.
#[cfg(all(target_arch = "x86_64", target_feature = "sse2"))]
#[inline(always)]
fn classify16(b: &[u8; 16]) -> (u64, u64) {
    use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8, _mm_sub_epi8};
    // SAFETY: the build enables SSE2 (as every x86_64 target does), and the one load reads
    // the 16 bytes of `b` (unaligned loads are allowed).
    unsafe {
        let v = _mm_loadu_si128(b.as_ptr().cast());
        // '0'..='9' minus 0xB0 (wrapping) are exactly the bytes 0x80..=0x89, the ten
        // smallest as signed bytes.
        let t = _mm_sub_epi8(v, _mm_set1_epi8(0xB0u8 as i8));
        let digit = _mm_cmplt_epi8(t, _mm_set1_epi8(-128 + 10));
        let blank = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(b' ' as i8)), _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\t' as i8)));
        (_mm_movemask_epi8(digit) as u16 as u64, _mm_movemask_epi8(blank) as u16 as u64)
    }
}

/// Which of 16 bytes are digits and which are blanks (spaces, tabs), one bit per byte.
#[cfg(not(all(target_arch = "x86_64", target_feature = "sse2")))]
#[inline(always)]
fn classify16(b: &[u8; 16]) -> (u64, u64) {
    let (mut digit, mut blank) = (0, 0);
    for (i, &x) in b.iter().enumerate() {
        digit |= u64::from(x.is_ascii_digit()) << i;
        blank |= u64::from(x == b' ' || x == b'\t') << i;
    }
    (digit, blank)
}

/// The `N` decimal fields of a plain line, or `None` when the line is not plain.
#[cfg(test)]
pub fn plain_fields<const N: usize>(line: &[u8]) -> Option<[u64; N]> {
    plain_fields_at(line, 0, line.len())
}

/// Bytes before a line that the field loads may read (see [`fields_in`]).
const AT: usize = 8;

/// [`plain_fields`] of the line `buf[start..end]`. The line is read in place when `buf`
/// holds 8 bytes before it and 64 from its start (the reader's buffer, around nearly every
/// line); else from a padded copy. In place saves the copy, and the loads that spanned
/// its stores (which missed store-to-load forwarding). Bytes around the line are masked
/// off either way, so both read the same fields.
#[inline]
pub fn plain_fields_at<const N: usize>(buf: &[u8], start: usize, end: usize) -> Option<[u64; N]> {
    let len = end.checked_sub(start)?;
    if len > MAX_PLAIN {
        return None;
    }
    // A fixed-size window, so that the loads in it need no bounds checks.
    match start.checked_sub(AT).and_then(|s| buf.get(s..)?.first_chunk::<{ AT + MAX_PLAIN }>()) {
        Some(window) => fields_in(window, len),
        _ => {
            // The line after 8 bytes of padding, so that the 8 bytes ending at any of its
            // bytes can be loaded; bytes past the line are cut off the masks.
            let mut pad = [0u8; AT + MAX_PLAIN];
            pad[AT..AT + len].copy_from_slice(buf.get(start..end)?);
            fields_in(&pad, len)
        }
    }
}

/// The fields of the `len`-byte line at `w[AT..]`.
#[inline(always)]
fn fields_in<const N: usize>(w: &[u8; AT + MAX_PLAIN], len: usize) -> Option<[u64; N]> {
    let (mut digits, mut blanks) = (0u64, 0u64);
    for k in 0..len.div_ceil(16) {
        let block: &[u8; 16] = w[AT + 16 * k..AT + 16 * k + 16].try_into().expect("16 bytes");
        let (d, b) = classify16(block);
        digits |= d << (16 * k);
        blanks |= b << (16 * k);
    }
    let in_line = if len == 64 { u64::MAX } else { (1u64 << len) - 1 };
    digits &= in_line;
    if (digits | blanks) & in_line != in_line {
        return None;
    }
    // First and last digit of each field.
    let (mut firsts, mut lasts) = (digits & !(digits << 1), digits & !(digits >> 1));
    let word = |end: usize| u64::from_le_bytes(w[AT + end - 8..AT + end].try_into().expect("8 bytes")) ^ ZEROS;
    let mut v = [0u64; N];
    for slot in &mut v {
        if firsts == 0 {
            return None;
        }
        let (first, last) = (firsts.trailing_zeros(), lasts.trailing_zeros());
        firsts &= firsts - 1;
        lasts &= lasts - 1;
        let n = last + 1 - first;
        let end = last as usize + 1;
        // The last (up to) eight digits, the ones before them masked to zeros.
        *slot = if n <= 8 {
            eight_digits(word(end) & (u64::MAX << (8 * (8 - n))))
        } else if n <= 16 {
            eight_digits(word(end - 8) & (u64::MAX << (8 * (16 - n)))) * 100_000_000 + eight_digits(word(end))
        } else if n <= MAX_DIGITS {
            let top = eight_digits(word(end - 16) & (u64::MAX << (8 * (24 - n))));
            (top * 100_000_000 + eight_digits(word(end - 8))) * 100_000_000 + eight_digits(word(end))
        } else {
            return None;
        };
    }
    (firsts == 0).then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// The byte-at-a-time reading this module replaces: the reference it must agree with.
    fn reference<const N: usize>(line: &[u8]) -> Option<[u64; N]> {
        let blank = |b: u8| b == b' ' || b == b'\t';
        let (len, mut i) = (line.len(), 0);
        let mut v = [0u64; N];
        for slot in &mut v {
            while i < len && blank(line[i]) {
                i += 1;
            }
            let start = i;
            let mut x = 0u64;
            while i < len && line[i].is_ascii_digit() {
                x = x.wrapping_mul(10).wrapping_add(u64::from(line[i] - b'0'));
                i += 1;
            }
            if i == start || i - start > 19 || (i < len && !blank(line[i])) {
                return None;
            }
            *slot = x;
        }
        while i < len && blank(line[i]) {
            i += 1;
        }
        (i == len).then_some(v)
    }

    #[test]
    fn fields_and_rejections() {
        assert_eq!(plain_fields::<5>(b"332970 0 10681800 24 0"), Some([332970, 0, 10681800, 24, 0]));
        assert_eq!(plain_fields::<5>(b"\t 1 2\t3 4 1 \t"), Some([1, 2, 3, 4, 1]));
        assert_eq!(plain_fields::<5>(b"9999999999999999999 0 1 1 1"), Some([9_999_999_999_999_999_999, 0, 1, 1, 1]));
        assert_eq!(plain_fields::<1>(b"0000000000000000012"), Some([12]));
        assert_eq!(plain_fields::<1>(b"12345678"), Some([12_345_678]));
        assert_eq!(plain_fields::<1>(b"123456789"), Some([123_456_789]));
        for bad in [&b"18446744073709551615 0 1 1 1"[..], b"1 0 1 1", b"1 0 1 1 1 1", b"1.5 0 1 1 1", b"1 0 -1 1 1", b"", b"   ", b"1 0 1 1 1\r", b"1 0 1 1 1\0"] {
            assert_eq!(plain_fields::<5>(bad), None, "{:?}", String::from_utf8_lossy(bad));
        }
        let long = format!("{}1 2 3 4 5", " ".repeat(MAX_PLAIN));
        assert_eq!(plain_fields::<5>(long.as_bytes()), None);
        let exact = format!("{}1 2 3 4 5", " ".repeat(MAX_PLAIN - 9));
        assert_eq!(plain_fields::<5>(exact.as_bytes()), Some([1, 2, 3, 4, 5]));
    }

    /// On random lines built to sit on every edge (19 and 20 digits, leading zeros, tabs,
    /// trailing blanks, stray bytes, 4 to 6 fields, the 64-byte limit) the fast reading
    /// agrees with the reference wherever it reads a line, and reads every plain line of
    /// up to 64 bytes.
    #[test]
    fn agrees_with_the_byte_at_a_time_reading() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
        let stray = [b'x', b'-', b'.', b'\r', b'\n', 0, 0xFF, b'/', b':', b'+', 0x80 | b'0', 0x89];
        let (mut read, mut plain) = (0, 0);
        for _ in 0..200_000 {
            let mut line = Vec::new();
            let fields = rng.gen_range(4..=6);
            for f in 0..fields {
                for _ in 0..rng.gen_range(usize::from(f > 0)..=2) {
                    line.push(if rng.gen_bool(0.7) { b' ' } else { b'\t' });
                }
                let digits = match rng.gen_range(0..10) {
                    0 => 19,
                    1 => 20,
                    2 => rng.gen_range(1..=21),
                    _ => rng.gen_range(1..=8),
                };
                for i in 0..digits {
                    let top = if i == 0 && rng.gen_bool(0.3) { b'1' } else { b'9' };
                    line.push(rng.gen_range(b'0'..=top));
                }
            }
            let trailing = rng.gen_range(0..=2);
            line.resize(line.len() + trailing, b' ');
            if rng.gen_bool(0.1) {
                let at = rng.gen_range(0..=line.len());
                line.insert(at, stray[rng.gen_range(0..stray.len())]);
            }
            let want = reference::<5>(&line);
            let got = plain_fields::<5>(&line);
            // Read in place inside a buffer, with any bytes around it (none to a few
            // before, up to 80 after): the same fields as from the padded copy.
            let (before, after) = (rng.gen_range(0..=12), rng.gen_range(0..=80));
            let mut buf: Vec<u8> = (0..before).map(|_| rng.gen()).collect();
            buf.extend_from_slice(&line);
            buf.extend((0..after).map(|_| rng.gen::<u8>()));
            assert_eq!(plain_fields_at::<5>(&buf, before, before + line.len()), got, "{:?} in {buf:?}", String::from_utf8_lossy(&line));
            if line.len() <= MAX_PLAIN {
                assert_eq!(got, want, "{:?}", String::from_utf8_lossy(&line));
            } else {
                assert_eq!(got, None);
            }
            read += usize::from(got.is_some());
            plain += usize::from(want.is_some());
        }
        // A sixth of the lines are plain, and nearly all of those short enough to read here.
        assert!(plain > 30_000 && read > 30_000, "{plain} {read}");
    }

    #[test]
    fn eight_digits_of_every_group_size() {
        for n in 1..=8u32 {
            for x in [0u64, 1, 7, 10u64.pow(n) - 1, 10u64.pow(n - 1), 31_415_926 % 10u64.pow(n)] {
                let s = format!("{x:0width$}", width = n as usize);
                assert_eq!(plain_fields::<1>(s.as_bytes()), Some([x]), "{s}");
            }
        }
    }
}
