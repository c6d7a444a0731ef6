//! The baseline every tail is measured against: the `nogc` run, and ratios to it.

use crate::stats::RunReport;

/// Scheme name of the ideal no-GC-cost baseline (matched case-insensitively).
pub const BASELINE_SCHEME: &str = "nogc";

/// Index of the first report whose scheme is `nogc`, if any.
pub fn baseline_index(reports: &[RunReport]) -> Option<usize> {
    reports
        .iter()
        .position(|r| r.scheme.eq_ignore_ascii_case(BASELINE_SCHEME))
}

/// `value / base`, or `None` when the ratio is meaningless (base zero or not finite):
/// a blank is more honest than an infinite or NaN slowdown.
pub fn ratio(value: f64, base: f64) -> Option<f64> {
    if base > 0.0 && base.is_finite() && value.is_finite() {
        Some(value / base)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratio_guards_zero_and_nan() {
        assert_eq!(ratio(10.0, 2.0), Some(5.0));
        assert_eq!(ratio(1.0, 0.0), None);
        assert_eq!(ratio(f64::NAN, 1.0), None);
    }

    #[test]
    fn baseline_is_found_case_insensitively() {
        let a = RunReport {
            scheme: "base".into(),
            ..Default::default()
        };
        let b = RunReport {
            scheme: "NoGC".into(),
            ..Default::default()
        };
        assert_eq!(baseline_index(&[a.clone(), b]), Some(1));
        assert_eq!(baseline_index(&[a]), None);
    }
}
