//! The fields of a plain trace line (decimal digits, spaces and tabs only), each field's
//! digits found and converted eight at a time: the fast path of the five-column ASCII
//! layouts (`ascii::plain_five`).
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
const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
const HIGH: u64 = 0x8080_8080_8080_8080;
const ZEROS: u64 = ONES * b'0' as u64;
const POW10: [u64; 9] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000];

/// The value of the eight digits of `d` (each byte 0..=9, the most significant one in the
/// lowest byte).
#[inline(always)]
fn eight_digits(d: u64) -> u64 {
    let d = d.wrapping_mul(10).wrapping_add(d >> 8);
    let lo = (d & 0x0000_00FF_0000_00FF).wrapping_mul(100 + (1_000_000 << 32));
    let hi = ((d >> 16) & 0x0000_00FF_0000_00FF).wrapping_mul(1 + (10_000 << 32));
    lo.wrapping_add(hi) >> 32
}

/// How many of the bytes of `d` (a word of the line XOR `'0'` per byte), from the lowest
/// one on, are digits (0..=8).
#[inline(always)]
fn leading_digits(d: u64) -> u32 {
    // A digit XOR '0' is 0..=9: the high bit of each byte of `ge10` marks every other byte
    // (no carry crosses a byte: 0x7F + 0x76 < 0x100).
    let ge10 = (((d & LOW7) + ONES * (0x80 - 10)) | d) & HIGH;
    ge10.trailing_zeros() / 8
}

#[inline(always)]
fn blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// The `N` decimal fields of a plain line, or `None` when the line is not plain.
#[inline]
pub fn plain_fields<const N: usize>(line: &[u8]) -> Option<[u64; N]> {
    let len = line.len();
    if len > MAX_PLAIN {
        return None;
    }
    // The line, then zero bytes (neither digit nor blank: they end a field and the line):
    // every 8-byte load below stays within the buffer.
    let mut buf = [0u8; MAX_PLAIN + 16];
    buf[..len].copy_from_slice(line);
    let word = |at: usize| u64::from_le_bytes(buf[at..at + 8].try_into().expect("8 bytes"));
    let mut pos = 0;
    let mut v = [0u64; N];
    for slot in &mut v {
        while blank(buf[pos]) {
            pos += 1;
        }
        // The field's digits, up to eight per load.
        let (mut x, mut digits) = (0u64, 0);
        loop {
            let d = word(pos) ^ ZEROS;
            let n = leading_digits(d);
            digits += n;
            if n == 0 || digits > MAX_DIGITS {
                break;
            }
            x = x * POW10[n as usize] + eight_digits(d << (8 * (8 - n)));
            pos += n as usize;
            if n < 8 {
                break;
            }
        }
        // No digit, more than 19, or another byte right after them.
        if digits == 0 || digits > MAX_DIGITS || (pos < len && !blank(buf[pos])) {
            return None;
        }
        *slot = x;
    }
    while pos < len && blank(buf[pos]) {
        pos += 1;
    }
    (pos == len).then_some(v)
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
            for _ in 0..rng.gen_range(0..=2) {
                line.push(b' ');
            }
            if rng.gen_bool(0.1) {
                let at = rng.gen_range(0..=line.len());
                line.insert(at, stray[rng.gen_range(0..stray.len())]);
            }
            let want = reference::<5>(&line);
            let got = plain_fields::<5>(&line);
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
