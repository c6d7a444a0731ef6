//! Request size sampling: fixed, uniform over aligned sizes, weighted list, and truncated
//! geometric with an exact mean.
//!
//! Discrete distributions other than fixed/uniform are turned into a cumulative table once at
//! construction; a draw is then one uniform variate and a binary search, with no allocation.
//! Does not decide offsets (see `address`).

use super::config::SizeDist;
use super::rng::{below, unit};
use rand_chacha::ChaCha8Rng;

/// Largest number of distinct sizes a geometric distribution may span (table memory bound).
pub const MAX_TABLE_PAGES: u64 = 65_536;

/// A ready-to-draw size distribution.
#[derive(Clone, Debug)]
pub struct SizeSampler {
    kind: Kind,
    mean: f64,
}

#[derive(Clone, Debug)]
enum Kind {
    Fixed(u64),
    Uniform {
        min: u64,
        steps: u64,
        align: u64,
    },
    /// (size, cumulative probability), cumulative strictly increasing, last = 1.
    Table(Vec<(u64, f64)>),
}

fn table(entries: &[(u64, f64)]) -> Vec<(u64, f64)> {
    let total: f64 = entries.iter().map(|e| e.1).sum();
    let mut acc = 0.0;
    let mut t: Vec<(u64, f64)> = Vec::with_capacity(entries.len());
    for &(b, w) in entries {
        if w <= 0.0 {
            continue;
        }
        acc += w / total;
        t.push((b, acc));
    }
    if let Some(last) = t.last_mut() {
        last.1 = 1.0;
    }
    t
}

/// Mean page count of P(k) proportional to q^(k-1), k = 1..=m, for q = exp(lq).
fn trunc_geo_mean(lq: f64, m: u64) -> f64 {
    // Work relative to the largest weight so neither tiny nor huge q overflows.
    let top = if lq > 0.0 { (m - 1) as f64 * lq } else { 0.0 };
    let (mut s, mut sk) = (0.0, 0.0);
    for k in 1..=m {
        let w = ((k - 1) as f64 * lq - top).exp();
        s += w;
        sk += w * k as f64;
    }
    sk / s
}

/// Solves ln q so the truncated geometric on 1..=m pages has mean `target` pages.
fn solve_lq(target: f64, m: u64) -> f64 {
    // The mean rises monotonically with q; bisect ln q.
    let (mut lo, mut hi) = (-60.0f64, 60.0f64);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if trunc_geo_mean(mid, m) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

impl SizeSampler {
    /// Builds a sampler; `d` must have passed `GenConfig::validate` with this `align`.
    pub fn new(d: &SizeDist, align: u64) -> SizeSampler {
        match d {
            SizeDist::Fixed { bytes } => SizeSampler { kind: Kind::Fixed(*bytes), mean: *bytes as f64 },
            SizeDist::Uniform { min_bytes, max_bytes } => {
                let steps = (max_bytes - min_bytes) / align + 1;
                let mean = (*min_bytes + *max_bytes) as f64 / 2.0;
                SizeSampler { kind: Kind::Uniform { min: *min_bytes, steps, align }, mean }
            }
            SizeDist::Weighted { sizes } => {
                let e: Vec<(u64, f64)> = sizes.iter().map(|w| (w.bytes, w.weight)).collect();
                SizeSampler::from_table(table(&e))
            }
            SizeDist::Geometric { mean_bytes, max_bytes } => {
                let m = max_bytes / align;
                if m <= 1 {
                    return SizeSampler { kind: Kind::Fixed(align), mean: align as f64 };
                }
                let lq = solve_lq(mean_bytes / align as f64, m);
                let top = if lq > 0.0 { (m - 1) as f64 * lq } else { 0.0 };
                let e: Vec<(u64, f64)> = (1..=m).map(|k| (k * align, ((k - 1) as f64 * lq - top).exp())).collect();
                SizeSampler::from_table(table(&e))
            }
        }
    }

    fn from_table(t: Vec<(u64, f64)>) -> SizeSampler {
        let mut prev = 0.0;
        let mut mean = 0.0;
        for &(b, c) in &t {
            mean += b as f64 * (c - prev);
            prev = c;
        }
        SizeSampler { kind: Kind::Table(t), mean }
    }

    /// Expected size in bytes (exact for the distribution as built).
    pub fn mean_bytes(&self) -> f64 {
        self.mean
    }

    /// Smallest and largest size the sampler can return.
    pub fn bounds(&self) -> (u64, u64) {
        match &self.kind {
            Kind::Fixed(b) => (*b, *b),
            Kind::Uniform { min, steps, align } => (*min, min + (steps - 1) * align),
            Kind::Table(t) => {
                let lo = t.iter().map(|e| e.0).min().unwrap_or(0);
                let hi = t.iter().map(|e| e.0).max().unwrap_or(0);
                (lo, hi)
            }
        }
    }

    /// One size in bytes.
    #[inline]
    pub fn sample(&self, r: &mut ChaCha8Rng) -> u64 {
        match &self.kind {
            Kind::Fixed(b) => *b,
            Kind::Uniform { min, steps, align } => min + below(r, *steps) * align,
            Kind::Table(t) => {
                let u = unit(r);
                let i = t.partition_point(|e| e.1 <= u);
                t[i.min(t.len() - 1)].0
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::config::WeightedSize;

    #[test]
    fn geometric_mean_is_exact() {
        for &(mean, max) in &[(8.08 * 1024.0, 64 * 1024), (4.46 * 1024.0, 64 * 1024), (57.85 * 1024.0, 512 * 1024)] {
            let s = SizeSampler::new(&SizeDist::Geometric { mean_bytes: mean, max_bytes: max }, 4096);
            assert!((s.mean_bytes() - mean).abs() < 1e-6 * mean, "{} vs {mean}", s.mean_bytes());
            assert_eq!(s.bounds(), (4096, max));
        }
    }

    #[test]
    fn weighted_mean_and_bounds() {
        let d = SizeDist::Weighted {
            sizes: vec![WeightedSize { bytes: 4096, weight: 3.0 }, WeightedSize { bytes: 8192, weight: 1.0 }],
        };
        let s = SizeSampler::new(&d, 4096);
        assert_eq!(s.mean_bytes(), 5120.0);
        assert_eq!(s.bounds(), (4096, 8192));
    }
}
