//! Allocation-free field parsing helpers shared by the format parsers.
//!
//! Parsers split a line into byte slices and convert them here. Integers are parsed by hand
//! (no UTF-8 validation, no allocation) because trace statistics must run at millions of
//! lines per second. Decimal timestamps are parsed as fixed point so that nanosecond
//! resolution survives (an `f64` of a Unix time in ns would lose the last digits).

use super::error::FieldError;

/// Splits on any run of spaces/tabs, ignoring leading and trailing whitespace.
pub fn split_ws(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|b| *b == b' ' || *b == b'\t')
        .filter(|f| !f.is_empty())
}

/// Collects up to `N` fields into an array; returns how many fields there were in total
/// (so the caller can report a wrong count).
pub fn fields<'a, const N: usize>(
    it: impl Iterator<Item = &'a [u8]>,
    out: &mut [&'a [u8]; N],
) -> usize {
    let mut n = 0;
    for f in it {
        if n < N {
            out[n] = f;
        }
        n += 1;
    }
    n
}

/// Collects the whitespace-separated fields of `line` (as [`split_ws`] splits it) into
/// `out`, up to `N`; returns how many fields there were in total. The same result as
/// `fields(split_ws(line), out)` in one pass over the bytes (the hot path of the
/// whitespace-separated formats).
pub fn fields_ws<'a, const N: usize>(line: &'a [u8], out: &mut [&'a [u8]; N]) -> usize {
    let mut n = 0;
    let mut i = 0;
    let len = line.len();
    while i < len {
        while i < len && matches!(line[i], b' ' | b'\t') {
            i += 1;
        }
        if i == len {
            break;
        }
        let start = i;
        while i < len && !matches!(line[i], b' ' | b'\t') {
            i += 1;
        }
        if n < N {
            out[n] = &line[start..i];
        }
        n += 1;
    }
    n
}

/// Splits a CSV line on commas and trims spaces around each field (no quoting: none of the
/// supported CSV traces quotes fields).
pub fn split_csv(line: &[u8]) -> impl Iterator<Item = &[u8]> {
    line.split(|b| *b == b',').map(trim)
}

pub fn trim(mut f: &[u8]) -> &[u8] {
    while let [b' ' | b'\t' | b'\r', rest @ ..] = f {
        f = rest;
    }
    while let [rest @ .., b' ' | b'\t' | b'\r'] = f {
        f = rest;
    }
    f
}

/// A field as messages quote it: at most 40 bytes, in quotes.
pub(crate) fn show(f: &[u8]) -> String {
    let s = String::from_utf8_lossy(&f[..f.len().min(40)]);
    if f.len() > 40 {
        format!("'{s}...'")
    } else {
        format!("'{s}'")
    }
}

/// An unsigned decimal integer.
pub fn uint(f: &[u8], field: &'static str) -> Result<u64, FieldError> {
    if f.is_empty() {
        return Err(FieldError::new(field, "missing value"));
    }
    let mut v: u64 = 0;
    for &b in f {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return Err(FieldError::new(
                field,
                format!("{} is not an unsigned integer", show(f)),
            ));
        }
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(d)))
            .ok_or_else(|| FieldError::new(field, format!("{} is too large", show(f))))?;
    }
    Ok(v)
}

/// A non-negative decimal number as (mantissa, number of fraction digits), e.g. "26.214000" →
/// (26214000, 6). Exponents are not accepted (no supported trace uses them).
pub fn fixed(f: &[u8], field: &'static str) -> Result<(u128, u32), FieldError> {
    if f.is_empty() {
        return Err(FieldError::new(field, "missing value"));
    }
    // Up to 19 digits without a point (the usual integer timestamp): one u64 pass.
    if f.len() <= 19 {
        let mut v: u64 = 0;
        let mut plain = true;
        for &b in f {
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                plain = false;
                break;
            }
            v = v * 10 + u64::from(d);
        }
        if plain {
            return Ok((u128::from(v), 0));
        }
    }
    let mut mant: u128 = 0;
    let mut frac: Option<u32> = None;
    let mut digits = 0u32;
    for &b in f {
        if b == b'.' && frac.is_none() {
            frac = Some(0);
            continue;
        }
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return Err(FieldError::new(
                field,
                format!("{} is not a non-negative number", show(f)),
            ));
        }
        digits += 1;
        if digits > 30 {
            return Err(FieldError::new(
                field,
                format!("{} has too many digits", show(f)),
            ));
        }
        mant = mant * 10 + u128::from(d);
        if let Some(k) = frac.as_mut() {
            *k += 1;
        }
    }
    if digits == 0 {
        return Err(FieldError::new(
            field,
            format!("{} is not a number", show(f)),
        ));
    }
    Ok((mant, frac.unwrap_or(0)))
}

/// A decimal time value times `unit_ns` (nanoseconds per unit), rounded to whole ns.
/// Exact when `unit_ns` is a whole number (seconds, ms, µs, ns); otherwise computed in `f64`,
/// which is exact to the ns for spans below ~100 days.
pub fn time_ns(f: &[u8], unit_ns: f64, field: &'static str) -> Result<i128, FieldError> {
    let (mant, frac) = fixed(f, field)?;
    let whole_unit = unit_ns.fract() == 0.0 && (1.0..=1e12).contains(&unit_ns);
    // Whole nanoseconds in a u64: the product is the value (no rounding, no u128 division).
    if whole_unit && frac == 0 {
        if let Some(ns) = u64::try_from(mant).ok().and_then(|m| m.checked_mul(unit_ns as u64)) {
            return Ok(i128::from(ns));
        }
    }
    let pow = 10u128.pow(frac);
    if whole_unit {
        let u = unit_ns as u128;
        let v = mant
            .checked_mul(u)
            .ok_or_else(|| FieldError::new(field, format!("{} overflows", show(f))))?;
        // Round half up to whole nanoseconds.
        let ns = v.saturating_add(pow / 2) / pow;
        i128::try_from(ns).map_err(|_| FieldError::new(field, format!("{} overflows", show(f))))
    } else {
        let v = (mant as f64) * unit_ns / (pow as f64);
        if !v.is_finite() || v > 1e30 {
            return Err(FieldError::new(field, format!("{} overflows", show(f))));
        }
        Ok(v.round() as i128)
    }
}

/// A read/write code given as a word or letter (`Read`, `R`, `w`, ...).
pub fn op_letter(f: &[u8], field: &'static str) -> Result<crate::host::Op, FieldError> {
    match f.first().map(|b| b.to_ascii_lowercase()) {
        Some(b'r') if f.len() == 1 || f.eq_ignore_ascii_case(b"read") => Ok(crate::host::Op::Read),
        Some(b'w') if f.len() == 1 || f.eq_ignore_ascii_case(b"write") => {
            Ok(crate::host::Op::Write)
        }
        _ => Err(FieldError::new(
            field,
            format!("{} is not a read/write code (R/W)", show(f)),
        )),
    }
}

/// A numeric op code where `read_code` means read and `write_code` means write.
pub fn op_code(
    f: &[u8],
    read_code: u64,
    write_code: u64,
    field: &'static str,
) -> Result<crate::host::Op, FieldError> {
    let v = uint(f, field)?;
    if v == read_code {
        Ok(crate::host::Op::Read)
    } else if v == write_code {
        Ok(crate::host::Op::Write)
    } else {
        Err(FieldError::new(
            field,
            format!("{v} is not an op code ({read_code}=read, {write_code}=write)"),
        ))
    }
}

/// Checked multiplication for unit conversions (sectors → bytes).
pub fn mul(v: u64, k: u64, field: &'static str) -> Result<u64, FieldError> {
    v.checked_mul(k)
        .ok_or_else(|| FieldError::new(field, format!("{v} x {k} overflows")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_and_fixed_point() {
        assert_eq!(uint(b"303567", "x"), Ok(303567));
        assert!(uint(b"-1", "x").is_err());
        assert!(uint(b"99999999999999999999999", "x").is_err());
        assert_eq!(fixed(b"26.214000", "t"), Ok((26214000, 6)));
        assert_eq!(time_ns(b"26.214000", 1e6, "t"), Ok(26_214_000));
        assert_eq!(
            time_ns(b"1456095145.133076000", 1e9, "t"),
            Ok(1_456_095_145_133_076_000)
        );
        assert_eq!(time_ns(b"29999951600000", 0.01, "t"), Ok(299_999_516_000));
        assert!(time_ns(b"1.2.3", 1.0, "t").is_err());
        assert!(time_ns(b".", 1.0, "t").is_err());
    }

    #[test]
    fn fast_paths_agree_with_the_general_ones() {
        for f in [&b"0"[..], b"123", b"18446744073709551615", b"9999999999999999999", b"18446744073709551616", b"99999999999999999999999"] {
            let (m, k) = fixed(f, "t").unwrap();
            let want: u128 = std::str::from_utf8(f).unwrap().parse().unwrap();
            assert_eq!((m, k), (want, 0));
            for unit in [1.0, 1e3, 1e9] {
                let t = time_ns(f, unit, "t");
                match (want * unit as u128) <= i128::MAX as u128 {
                    true => assert_eq!(t, Ok((want * unit as u128) as i128)),
                    false => assert!(t.is_err()),
                }
            }
        }
        assert!(fixed(b"12a", "t").is_err());
        assert_eq!(fixed(b"1.5", "t"), Ok((15, 1)));
    }

    #[test]
    fn fields_ws_splits_as_split_ws() {
        for line in [&b""[..], b"   ", b"a", b" a\tb  c ", b"1 2 3 4 5", b"1 2 3 4 5 6 7", b"\t\t1\t2"] {
            let (mut a, mut b): ([&[u8]; 5], [&[u8]; 5]) = ([&[]; 5], [&[]; 5]);
            assert_eq!(fields_ws(line, &mut a), fields(split_ws(line), &mut b));
            assert_eq!(a, b);
        }
    }

    #[test]
    fn splitting() {
        let v: Vec<&[u8]> = split_ws(b"  a \tb  c ").collect();
        assert_eq!(v, vec![&b"a"[..], b"b", b"c"]);
        let v: Vec<&[u8]> = split_csv(b"1, 2 ,3\r").collect();
        assert_eq!(v, vec![&b"1"[..], b"2", b"3"]);
    }
}
