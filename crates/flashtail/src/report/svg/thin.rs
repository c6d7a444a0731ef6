//! Turning reported points into drawn points: CDFs as step functions, and thinning of
//! large series to about a pixel so the inline SVG stays small. Pure functions on
//! `(x, y)` pairs; nothing here knows about plotters.

/// An empirical CDF drawn as what it is, a step function: between two reported points
/// the curve holds the earlier level and jumps at the next latency, rather than a
/// straight line that would invent values between sparse tail points.
pub(crate) fn steps(points: impl Iterator<Item = (f64, f64)>) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = Vec::new();
    for (x, y) in points {
        if let Some(&(_, prev_y)) = out.last() {
            out.push((x, prev_y));
        }
        out.push((x, y));
    }
    out
}

/// Fraction of an axis below which two points are drawn as one (about a pixel).
const THIN_RESOLUTION: f64 = 1.0 / 1000.0;

/// Drops points that would land within [`THIN_RESOLUTION`] of the previously kept point
/// on both axes, keeping the first and the last. `unit` maps a point to `[0, 1]²` axis
/// fractions (after any log scaling), so the error stays below a pixel whatever the
/// scale. Large inputs (hundreds of thousands of CDF points or free-block samples) would
/// otherwise make the inline SVG megabytes long without changing what is visible.
pub(crate) fn thin(
    points: impl ExactSizeIterator<Item = (f64, f64)>,
    unit: impl Fn((f64, f64)) -> (f64, f64),
) -> Vec<(f64, f64)> {
    let n = points.len();
    let mut out = Vec::with_capacity(n.min(4096));
    let mut last: Option<(f64, f64)> = None;
    for (i, p) in points.enumerate() {
        let u = unit(p);
        let keep = match last {
            None => true,
            Some(l) => {
                i + 1 == n
                    || (u.0 - l.0).abs() >= THIN_RESOLUTION
                    || (u.1 - l.1).abs() >= THIN_RESOLUTION
            }
        };
        if keep {
            out.push(p);
            last = Some(u);
        }
    }
    out
}

/// Thins a time series for drawing: points are grouped into buckets [`THIN_RESOLUTION`]
/// of the x span wide, and each bucket keeps its first, lowest, highest and last point
/// in time order. Unlike [`thin`], a noisy series cannot defeat it, and every dip and
/// peak (e.g. free blocks reaching the GC threshold) survives.
pub(crate) fn thin_timeline(points: &[(f64, f64)], x_span: f64) -> Vec<(f64, f64)> {
    let bucket_of = |x: f64| (x / (x_span * THIN_RESOLUTION)).floor() as i64;
    let mut out = Vec::new();
    let mut start = 0;
    while start < points.len() {
        let b = bucket_of(points[start].0);
        let mut end = start + 1;
        while end < points.len() && bucket_of(points[end].0) == b {
            end += 1;
        }
        let bucket = &points[start..end];
        let (mut lo, mut hi) = (0, 0);
        for (i, p) in bucket.iter().enumerate() {
            if p.1 < bucket[lo].1 {
                lo = i;
            }
            if p.1 > bucket[hi].1 {
                hi = i;
            }
        }
        let mut keep = vec![0, lo, hi, bucket.len() - 1];
        keep.sort_unstable();
        keep.dedup();
        out.extend(keep.into_iter().map(|i| bucket[i]));
        start = end;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_hold_the_level_until_the_next_point() {
        let s = steps([(1.0, 0.5), (2.0, 0.9), (4.0, 1.0)].into_iter());
        assert_eq!(
            s,
            vec![(1.0, 0.5), (2.0, 0.5), (2.0, 0.9), (4.0, 0.9), (4.0, 1.0)]
        );
        assert_eq!(steps([(3.0, 1.0)].into_iter()), vec![(3.0, 1.0)]);
    }

    #[test]
    fn thinning_keeps_ends_and_bounds_the_point_count() {
        let pts: Vec<(f64, f64)> = (0..100_000)
            .map(|i| (i as f64, i as f64 / 99_999.0))
            .collect();
        let t = thin(pts.iter().copied(), |(x, y)| (x / 99_999.0, y));
        assert_eq!(t.first(), Some(&(0.0, 0.0)));
        assert_eq!(t.last(), Some(&(99_999.0, 1.0)));
        assert!(t.len() <= 1001, "{}", t.len());
        // Nothing to drop when points are already far apart.
        assert_eq!(thin([(0.0, 0.0), (1.0, 1.0)].into_iter(), |p| p).len(), 2);
    }

    #[test]
    fn timeline_thinning_keeps_extremes() {
        let pts: Vec<(f64, f64)> = (0..100_000)
            .map(|i| (i as f64, if i == 51_234 { -5.0 } else { (i % 3) as f64 }))
            .collect();
        let t = thin_timeline(&pts, 100_000.0);
        assert!(t.len() <= 4000, "{}", t.len());
        assert!(t.contains(&(51_234.0, -5.0)));
        assert_eq!(t.first(), Some(&(0.0, 0.0)));
        assert_eq!(t.last(), pts.last());
    }
}
