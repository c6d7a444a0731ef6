//! Latency recording with exact percentiles.
//!
//! Every latency is kept (8 bytes a request) and sorted once at the end, so percentiles are
//! exact (nearest-rank: the value at rank ⌈q·n⌉). A 10M-request run keeps 80 MB of samples.
//! The reads + writes row is computed from the two sorted sets by rank ([`finish_three`]),
//! without a merged copy, so reporting needs no memory beyond the samples themselves.

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
        summarise(&self.samples.as_slice(), self.sum)
    }
}

/// Summaries of `a`, `b` and of both together (e.g. reads, writes, all), identical to
/// finishing each and `LatencyRecorder::merged(a, b)`, without the merged copy.
pub fn finish_three(mut a: LatencyRecorder, mut b: LatencyRecorder) -> [(LatencySummary, Cdf); 3] {
    a.samples.sort_unstable();
    b.samples.sort_unstable();
    let both = summarise(&Union(&a.samples, &b.samples), a.sum + b.sum);
    [summarise(&a.samples.as_slice(), a.sum), summarise(&b.samples.as_slice(), b.sum), both]
}

/// A sorted multiset read by rank.
trait Sorted {
    fn len(&self) -> usize;
    /// The value at 0-based rank `k` (< len).
    fn at(&self, k: usize) -> u64;
    /// How many values are < `v`.
    fn below(&self, v: u64) -> usize;
}

impl Sorted for &[u64] {
    fn len(&self) -> usize {
        <[u64]>::len(self)
    }
    fn at(&self, k: usize) -> u64 {
        self[k]
    }
    fn below(&self, v: u64) -> usize {
        self.partition_point(|&x| x < v)
    }
}

/// Two sorted slices viewed as their sorted union.
struct Union<'a>(&'a [u64], &'a [u64]);

impl Sorted for Union<'_> {
    fn len(&self) -> usize {
        self.0.len() + self.1.len()
    }
    /// The smallest value with more than `k` values at or below it (it is in one of the two).
    fn at(&self, k: usize) -> u64 {
        let le = |v: u64| self.0.partition_point(|&x| x <= v) + self.1.partition_point(|&x| x <= v);
        let first = |s: &[u64]| s.get(s.partition_point(|&x| le(x) <= k)).copied();
        match (first(self.0), first(self.1)) {
            (Some(x), Some(y)) => x.min(y),
            (x, y) => x.or(y).expect("rank within the union"),
        }
    }
    fn below(&self, v: u64) -> usize {
        self.0.below(v) + self.1.below(v)
    }
}

fn summarise(s: &impl Sorted, sum: u128) -> (LatencySummary, Cdf) {
    let n = s.len();
    if n == 0 {
        return (LatencySummary { exact: true, ..Default::default() }, Cdf::default());
    }
    let rank = |q: f64| -> usize { ((q * n as f64).ceil() as usize).clamp(1, n) - 1 };
    let at = |q: f64| s.at(rank(q));
    let mut above = BTreeMap::new();
    for (name, q) in PERCENTILES {
        let v = at(q);
        // Samples at or above the percentile value.
        let first = s.below(v);
        above.insert(name.to_string(), (n - first) as u64);
    }
    let summary = LatencySummary {
        count: n as u64,
        mean_ns: sum as f64 / n as f64,
        min_ns: s.at(0),
        p50_ns: at(0.50),
        p90_ns: at(0.90),
        p99_ns: at(0.99),
        p99_9_ns: at(0.999),
        p99_99_ns: at(0.9999),
        p99_999_ns: at(0.99999),
        max_ns: s.at(n - 1),
        samples_at_or_above: above,
        exact: true,
        relative_error: 0.0,
    };
    (summary, cdf_points(s))
}

/// CDF points: 200 evenly spaced quantiles plus a log-spaced tail (1 − F = 10^-k/20) down to
/// the single slowest sample, so a log-scale tail plot has real points.
fn cdf_points(s: &impl Sorted) -> Cdf {
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
    Cdf { points: idx.into_iter().map(|i| (s.at(i), (i + 1) as f64 / n as f64)).collect() }
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
    /// The union row equals finishing a merged copy, on ties and very unequal sizes too.
    #[test]
    fn union_row_matches_merged_copy() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for (na, nb, range) in [(1000, 3000, 50u64), (1, 20_000, 1_000_000), (0, 10, 5), (7, 0, 3), (5000, 5000, 1 << 40)] {
            let (mut a, mut b) = (LatencyRecorder::default(), LatencyRecorder::default());
            (0..na).for_each(|_| a.record(rng.gen_range(0..range)));
            (0..nb).for_each(|_| b.record(rng.gen_range(0..range)));
            let want = [a.clone().finish(), b.clone().finish(), LatencyRecorder::merged(&a, &b).finish()];
            let got = finish_three(a, b);
            for (w, g) in want.iter().zip(&got) {
                assert_eq!(format!("{w:?}"), format!("{g:?}"));
            }
        }
    }

    #[test]
    fn empty_is_zero() {
        let (s, c) = LatencyRecorder::default().finish();
        assert_eq!(s.count, 0);
        assert!(c.points.is_empty());
    }
}
