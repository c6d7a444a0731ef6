//! Across seeds: for every (device, workload, parameters, scheme, op, statistic), the mean
//! over the seeds, their sample standard deviation and a percentile-bootstrap confidence
//! interval of the mean (`[ci]`: `level`, default 0.95; `resamples`, default 2,000; `seed`).
//! Each group's resampling draws from its own ChaCha8 stream, seeded from the `[ci]` seed
//! and the group's key, so the interval does not depend on which other groups exist or on
//! the order points finished in. With one seed the interval is that seed's value; with few
//! seeds a bootstrap interval is narrow (it cannot see beyond the values it has): read it
//! as a description of the seeds run, not a promise (docs/sweeps.md).

use super::spec::CiSettings;
use super::table::{csv_text, float, Table};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use sha1::{Digest, Sha1};
use std::collections::BTreeMap;

/// One row of the across-seed table.
#[derive(Clone, Debug, PartialEq)]
pub struct CiRow {
    pub device: String,
    pub workload: String,
    pub params: Vec<String>,
    pub scheme: String,
    pub op: String,
    pub stat: String,
    pub seeds: usize,
    pub mean: f64,
    pub std: f64,
    pub ci_low: f64,
    pub ci_high: f64,
}

/// The across-seed table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CiTable {
    pub params: Vec<String>,
    pub level: f64,
    pub rows: Vec<CiRow>,
}

/// The bootstrap interval of the mean of `xs` at `level`, from `resamples` resamples.
pub fn bootstrap_mean(xs: &[f64], level: f64, resamples: u32, rng: &mut ChaCha8Rng) -> (f64, f64) {
    let n = xs.len();
    if n == 0 {
        return (f64::NAN, f64::NAN);
    }
    if n == 1 || xs.iter().all(|&x| x == xs[0]) {
        return (xs[0], xs[0]);
    }
    let mut means: Vec<f64> = (0..resamples).map(|_| (0..n).map(|_| xs[rng.gen_range(0..n)]).sum::<f64>() / n as f64).collect();
    means.sort_by(f64::total_cmp);
    let alpha = (1.0 - level) / 2.0;
    // Nearest rank of each tail quantile.
    let at = |q: f64| means[((q * resamples as f64).ceil() as usize).clamp(1, means.len()) - 1];
    (at(alpha), at(1.0 - alpha))
}

/// Groups the tidy rows over their seeds (rows of one group in seed order) and summarises.
pub fn across_seeds(t: &Table, ci: &CiSettings) -> CiTable {
    type Key = (String, String, Vec<String>, String, String, String);
    let mut groups: BTreeMap<usize, (Key, Vec<f64>)> = BTreeMap::new();
    let mut index: BTreeMap<Key, usize> = BTreeMap::new();
    for r in &t.rows {
        let k: Key = (r.device.clone(), r.workload.clone(), r.params.clone(), r.scheme.clone(), r.op.clone(), r.stat.clone());
        let n = index.len();
        let i = *index.entry(k.clone()).or_insert(n);
        groups.entry(i).or_insert_with(|| (k, Vec::new())).1.push(r.value);
    }
    let rows = groups
        .into_values()
        .map(|(k, xs)| {
            let n = xs.len();
            let mean = xs.iter().sum::<f64>() / n as f64;
            let std = if n > 1 { (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt() } else { 0.0 };
            let digest = Sha1::digest(format!("{k:?}").as_bytes());
            let mut b = [0u8; 8];
            b.copy_from_slice(&digest[..8]);
            let mut rng = ChaCha8Rng::seed_from_u64(ci.seed ^ u64::from_le_bytes(b));
            let (ci_low, ci_high) = bootstrap_mean(&xs, ci.level, ci.resamples, &mut rng);
            let (device, workload, params, scheme, op, stat) = k;
            CiRow { device, workload, params, scheme, op, stat, seeds: n, mean, std, ci_low, ci_high }
        })
        .collect();
    CiTable { params: t.params.clone(), level: ci.level, rows }
}

impl CiTable {
    pub fn header(&self) -> Vec<String> {
        let mut h: Vec<String> = ["device", "workload"].map(String::from).to_vec();
        h.extend(self.params.iter().cloned());
        h.extend(["scheme", "op", "stat", "seeds", "mean", "std", "ci_low", "ci_high", "ci_level"].map(String::from));
        h
    }

    /// `ci.csv`.
    pub fn to_csv(&self) -> Result<String, String> {
        csv_text(
            &self.header(),
            self.rows.iter().map(|r| {
                let mut v = vec![r.device.clone(), r.workload.clone()];
                v.extend(r.params.iter().cloned());
                v.extend([r.scheme.clone(), r.op.clone(), r.stat.clone(), r.seeds.to_string(), float(r.mean), float(r.std), float(r.ci_low), float(r.ci_high), float(self.level)]);
                v
            }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_interval_brackets_the_mean_and_is_reproducible() {
        let xs = [10.0, 12.0, 14.0, 30.0];
        let mut a = ChaCha8Rng::seed_from_u64(7);
        let mut b = ChaCha8Rng::seed_from_u64(7);
        let (lo, hi) = bootstrap_mean(&xs, 0.95, 2000, &mut a);
        assert_eq!((lo, hi), bootstrap_mean(&xs, 0.95, 2000, &mut b));
        assert!(lo < 16.5 && 16.5 < hi, "{lo} {hi}");
        // The mean of a resample lies between the smallest and largest values.
        assert!(lo >= 10.0 && hi <= 30.0);
        let mut c = ChaCha8Rng::seed_from_u64(1);
        assert_eq!(bootstrap_mean(&[5.0], 0.95, 100, &mut c), (5.0, 5.0));
    }
}
