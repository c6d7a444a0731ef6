//! Number formatting shared by the table, the HTML page and the figures.

/// Nanoseconds as milliseconds with 3 significant digits (`12.3`, `0.0805`, `1230`).
/// Values of 1000 ms and more keep all their integer digits rather than turning into
/// `1.23e3`: a terminal reader compares magnitudes at a glance.
pub fn ms3(ns: f64) -> String {
    if !ns.is_finite() {
        return "-".into();
    }
    sig3(ns / 1e6)
}

/// `v` rounded to 3 significant digits, without exponent notation.
pub fn sig3(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    if v == 0.0 {
        return "0".into();
    }
    let round3 = |x: f64| {
        let e = x.abs().log10().floor() as i32;
        // Divide or multiply by an exact power of ten so 1230 stays 1230, not 1229.999...
        if e >= 2 {
            let p = 10f64.powi(e - 2);
            (x / p).round() * p
        } else {
            let p = 10f64.powi(2 - e);
            (x * p).round() / p
        }
    };
    // Round first, then pick decimals from the rounded value so 9.996 becomes "10.0", not "10.00".
    let r = round3(v);
    let e = r.abs().log10().floor() as i32;
    let decimals = (2 - e).max(0) as usize;
    format!("{r:.decimals$}")
}

/// A slowdown ratio: `8.1×`, `138×` (no decimals from 1000× up), `<0.1×` for positive
/// ratios that one decimal would show as `0.0×` (kept short for the terminal table), or
/// `n/a`.
pub fn ratio_str(r: Option<f64>) -> String {
    match r {
        Some(r) if r.is_finite() && r > 0.0 && r < 0.095 => "<0.1×".into(),
        Some(r) if r.is_finite() && r >= 999.95 => format!("{r:.0}×"),
        Some(r) if r.is_finite() => format!("{r:.1}×"),
        _ => "n/a".into(),
    }
}

/// A duration in ns as seconds for a caption: whole seconds with thousands separators
/// from 100 s up (`1,964 s`), else 3 significant digits (`12.3 s`, `0.0456 s`).
pub fn seconds(ns: u64) -> String {
    let s = ns as f64 / 1e9;
    if s < 99.95 {
        return format!("{} s", sig3(s));
    }
    let digits = format!("{:.0}", s);
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out.push_str(" s");
    out
}

/// A ratio as a figure label: like [`ratio_str`], but small ratios keep 3 significant
/// digits (`0.000207×`): a bar label has room, and its bar is otherwise unexplained.
pub fn ratio_label(r: f64) -> String {
    if r.is_finite() && r > 0.0 && r < 0.095 {
        format!("{}×", sig3(r))
    } else {
        ratio_str(Some(r))
    }
}

/// A share in `[0, 1]` as a percentage with one decimal.
pub fn pct(share: f64) -> String {
    if share.is_finite() {
        format!("{:.1}%", share * 100.0)
    } else {
        "-".into()
    }
}

/// A share with its count, as in the terminal table: `1.7%`, or `<0.1% (1)` when the count
/// is not 0 but the share would print as `0.0%` (one read in ten thousand waited is not
/// none).
pub fn pct_count(share: f64, count: u64) -> String {
    if count > 0 && share.is_finite() && share * 100.0 < 0.05 {
        format!("<0.1% ({count})")
    } else {
        pct(share)
    }
}

/// Write amplification with 3 decimals, or `n/a` when no host page was programmed (the
/// ratio has no denominator: a read-only trace, or `ttflash` keeping every host write in its
/// stripe buffer), however much GC programmed.
pub fn waf_str(f: &crate::stats::FlashCounts) -> String {
    if f.host_pages_programmed == 0 {
        "n/a".into()
    } else {
        format!("{:.3}", f.waf)
    }
}

/// Compact axis label for a positive value on a log axis: `0.001`, `0.5`, `20`, `1000`.
pub fn axis_num(v: f64) -> String {
    if !v.is_finite() {
        return String::new();
    }
    if v.abs() >= 1.0 || v == 0.0 {
        return format!("{}", (v * 1000.0).round() / 1000.0);
    }
    // Enough decimals to show the first significant digit, and no trailing zeros.
    let decimals = (-(v.abs().log10().floor()) as usize).min(12) + 1;
    let s = format!("{v:.decimals$}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

/// Power of ten written with superscripts (`10⁻³`), for probability axes.
pub fn pow10_label(exp: i32) -> String {
    if exp == 0 {
        return "1".into();
    }
    const SUP: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let mut s = String::from("10");
    if exp < 0 {
        s.push('⁻');
    }
    for d in exp.unsigned_abs().to_string().bytes() {
        s.push(SUP[(d - b'0') as usize]);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_significant_digits() {
        assert_eq!(ms3(12_345_678.0), "12.3");
        assert_eq!(ms3(80_456.0), "0.0805");
        assert_eq!(ms3(9_996_000.0), "10.0");
        assert_eq!(ms3(1_234_567_890.0), "1230");
        assert_eq!(ms3(1_000_000.0), "1.00");
        assert_eq!(ms3(0.0), "0");
        assert_eq!(ms3(f64::NAN), "-");
    }

    #[test]
    fn ratios_and_shares() {
        assert_eq!(ratio_str(Some(10.0)), "10.0×");
        assert_eq!(ratio_str(Some(8.06)), "8.1×");
        assert_eq!(ratio_str(Some(1234.4)), "1234×");
        assert_eq!(ratio_str(None), "n/a");
        assert_eq!(ratio_str(Some(0.000207)), "<0.1×");
        assert_eq!(ratio_label(0.000207), "0.000207×");
        assert_eq!(ratio_label(12.34), "12.3×");
        assert_eq!(ratio_str(Some(0.5)), "0.5×");
        assert_eq!(ratio_str(Some(0.0)), "0.0×");
        assert_eq!(pct(0.1234), "12.3%");
        assert_eq!(pct_count(0.1234, 5), "12.3%");
        assert_eq!(pct_count(1.0 / 8896.0, 1), "<0.1% (1)");
        assert_eq!(pct_count(0.0, 0), "0.0%");
        assert_eq!(pct_count(0.0005, 3), "0.1%");
        let mut f = crate::stats::FlashCounts { gc_pages_programmed: 42490, erases: 579, ..Default::default() };
        assert_eq!(waf_str(&f), "n/a");
        f.host_pages_programmed = 100;
        f.waf = 1.2345;
        assert_eq!(waf_str(&f), "1.234");
        assert_eq!(seconds(1_963_845_816_075), "1,964 s");
        assert_eq!(seconds(121_524_160_775), "122 s");
        assert_eq!(seconds(12_345_000_000), "12.3 s");
        assert_eq!(seconds(45_600_000), "0.0456 s");
        assert_eq!(seconds(1_234_567_000_000_000), "1,234,567 s");
        assert_eq!(seconds(0), "0 s");
    }

    #[test]
    fn axis_labels() {
        assert_eq!(axis_num(0.001), "0.001");
        assert_eq!(axis_num(0.05), "0.05");
        assert_eq!(axis_num(20.0), "20");
        assert_eq!(axis_num(1.0), "1");
        assert_eq!(pow10_label(-3), "10⁻³");
        assert_eq!(pow10_label(-12), "10⁻¹²");
        assert_eq!(pow10_label(0), "1");
    }
}
