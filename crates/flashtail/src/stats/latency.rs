//! Latency recording with exact percentiles.
//!
//! Every latency is kept (8 bytes a request) and sorted once at the end, so percentiles are
//! exact (nearest-rank: the value at rank ⌈q·n⌉). A 10M-request run keeps 80 MB of samples.

use super::report::{Cdf, LatencySummary};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default)]
pub struct LatencyRecorder {
    samples: Vec<u64>,
    sum: u128,
}

pub const PERCENTILES: [(&str, f64); 6] =
    [("p50", 0.50), ("p90", 0.90), ("p99", 0.99), ("p99.9", 0.999), ("p99.99", 0.9999), ("p99.999", 0.99999)];

impl LatencyRecorder {
    #[inline]
    pub fn record(&mut self, ns: u64) {
        self.samples.push(ns);
        self.sum += ns as u128;
    }
    pub fn len(&self) -> usize {
        self.samples.len()
    }
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// Merge another recorder's samples (reads + writes = all).
    pub fn merged(a: &LatencyRecorder, b: &LatencyRecorder) -> LatencyRecorder {
        let mut samples = Vec::with_capacity(a.len() + b.len());
        samples.extend_from_slice(&a.samples);
        samples.extend_from_slice(&b.samples);
        LatencyRecorder { samples, sum: a.sum + b.sum }
    }

    /// Sort and summarise; also returns the CDF points.
    pub fn finish(mut self) -> (LatencySummary, Cdf) {
        self.samples.sort_unstable();
        let s = &self.samples;
        let n = s.len();
        if n == 0 {
            return (LatencySummary { exact: true, ..Default::default() }, Cdf::default());
        }
        let rank = |q: f64| -> usize { ((q * n as f64).ceil() as usize).clamp(1, n) - 1 };
        let at = |q: f64| s[rank(q)];
        let mut above = BTreeMap::new();
        for (name, q) in PERCENTILES {
            let v = at(q);
            // Samples at or above the percentile value.
            let first = s.partition_point(|&x| x < v);
            above.insert(name.to_string(), (n - first) as u64);
        }
        let summary = LatencySummary {
            count: n as u64,
            mean_ns: self.sum as f64 / n as f64,
            min_ns: s[0],
            p50_ns: at(0.50),
            p90_ns: at(0.90),
            p99_ns: at(0.99),
            p99_9_ns: at(0.999),
            p99_99_ns: at(0.9999),
            p99_999_ns: at(0.99999),
            max_ns: s[n - 1],
            samples_at_or_above: above,
            exact: true,
            relative_error: 0.0,
        };
        (summary, cdf_points(s))
    }
}

/// CDF points: 200 evenly spaced quantiles plus a log-spaced tail (1 − F = 10^-k/20) down to
/// the single slowest sample, so a log-scale tail plot has real points.
fn cdf_points(s: &[u64]) -> Cdf {
    let n = s.len();
    let mut idx: Vec<usize> = (1..=200).map(|k| ((k as f64 / 200.0) * n as f64).ceil() as usize - 1).collect();
    let mut k = 1;
    loop {
        let tail = 10f64.powf(-(k as f64) / 20.0);
        let r = ((1.0 - tail) * n as f64).ceil() as usize;
        if r >= n || tail * (n as f64) < 1.0 {
            break;
        }
        idx.push(r.saturating_sub(1));
        k += 1;
    }
    idx.push(n - 1);
    idx.sort_unstable();
    idx.dedup();
    Cdf { points: idx.into_iter().map(|i| (s[i], (i + 1) as f64 / n as f64)).collect() }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn nearest_rank_percentiles_are_exact() {
        let mut r = LatencyRecorder::default();
        for v in 1..=10_000u64 {
            r.record(v);
        }
        let (s, cdf) = r.finish();
        assert_eq!(s.p50_ns, 5000);
        assert_eq!(s.p99_ns, 9900);
        assert_eq!(s.p99_99_ns, 9999);
        assert_eq!(s.max_ns, 10_000);
        assert_eq!(s.samples_at_or_above["p99.99"], 2);
        assert_eq!(s.mean_ns, 5000.5);
        assert_eq!(cdf.points.last(), Some(&(10_000, 1.0)));
        assert!(cdf.points.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 < w[1].1));
    }
    #[test]
    fn empty_is_zero() {
        let (s, c) = LatencyRecorder::default().finish();
        assert_eq!(s.count, 0);
        assert!(c.points.is_empty());
    }
}
