//! Axis scales for the figures: log-axis bounds on 1-2-5 steps, tick positions, and the
//! mapping of a value to its fraction of a log axis. No drawing happens here.

/// Tick positions for a log axis over `[lo, hi]`: every decade, plus 2× and 5× steps
/// when the range spans three decades or less (otherwise a couple of ticks is all).
pub(crate) fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let dense = (hi / lo).log10() <= 3.01;
    let mut ticks = Vec::new();
    for e in a..=b {
        let d = 10f64.powi(e);
        let mults: &[f64] = if dense { &[1.0, 2.0, 5.0] } else { &[1.0] };
        for m in mults {
            let t = d * m;
            if t >= lo * (1.0 - 1e-9) && t <= hi * (1.0 + 1e-9) {
                ticks.push(t);
            }
        }
    }
    ticks
}

/// Nearest 1-2-5 step (1, 2, 5 × 10^k) at or below `v` (`up` false) or at or above it.
fn step125(v: f64, up: bool) -> f64 {
    let d = 10f64.powi(v.log10().floor() as i32);
    let steps = [d, 2.0 * d, 5.0 * d, 10.0 * d];
    // Tolerate float noise so a value of exactly 0.2 stays 0.2.
    let eps = 1e-9 * v;
    if up {
        steps
            .into_iter()
            .find(|s| *s >= v - eps)
            .unwrap_or(10.0 * d)
    } else {
        steps.into_iter().rev().find(|s| *s <= v + eps).unwrap_or(d)
    }
}

/// Log-axis bounds on 1-2-5 steps around the positive values, or `default` when there
/// are none; never a zero-width range (a log axis needs lo < hi).
pub(crate) fn nice_log_range(values: impl Iterator<Item = f64>, default: (f64, f64)) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, 0f64);
    for v in values.filter(|v| v.is_finite() && *v > 0.0) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return default;
    }
    let lo = step125(lo, false);
    let mut hi = step125(hi, true);
    if hi <= lo {
        hi = step125(lo * 1.5, true);
    }
    (lo, hi)
}

/// Axis fraction of `v` on a log axis over `[lo, hi]`.
pub(crate) fn log_frac(v: f64, lo: f64, hi: f64) -> f64 {
    (v / lo).log10() / (hi / lo).log10()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_decades_or_1_2_5() {
        assert_eq!(log_ticks(1e-5, 1.0).len(), 6);
        assert_eq!(
            log_ticks(0.1, 10.0),
            vec![0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0]
        );
        assert_eq!(log_ticks(0.05, 50.0).len(), 10);
    }

    #[test]
    fn nice_range_ignores_zero_and_never_collapses() {
        assert_eq!(
            nice_log_range([0.0, 0.03, 4.0].into_iter(), (1.0, 2.0)),
            (0.02, 5.0)
        );
        assert_eq!(nice_log_range([0.0].into_iter(), (1.0, 2.0)), (1.0, 2.0));
        assert_eq!(nice_log_range([1.0].into_iter(), (1.0, 2.0)), (1.0, 2.0));
        assert_eq!(
            nice_log_range([0.2, 0.2].into_iter(), (1.0, 2.0)),
            (0.2, 0.5)
        );
        assert_eq!(
            nice_log_range([0.09, 40.2].into_iter(), (1.0, 2.0)),
            (0.05, 50.0)
        );
    }
}
