//! Small continuous and discrete draws on top of a ChaCha8 stream: exponential, lognormal,
//! geometric, and uniform-in-(0,1).
//!
//! Written here (not taken from `rand_distr`) so the exact sequence of draws is pinned by this
//! crate: output bytes then cannot change under a dependency upgrade. Does not cover any
//! workload logic; callers decide what the draws mean.

use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// One independent random stream of the generator, derived from the user seed and a stream id.
/// Separate streams per concern (arrivals, addresses, sizes, ...) keep e.g. the arrival times
/// unchanged when only the size distribution is edited: common random numbers across runs.
pub fn stream(seed: u64, id: u64) -> ChaCha8Rng {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    r.set_stream(id);
    r
}

/// Uniform in the open-closed interval (0, 1]: safe to take the logarithm of.
#[inline]
pub fn unit_open0(r: &mut ChaCha8Rng) -> f64 {
    // 53 random bits, shifted by one step so 0 cannot occur and 1 can.
    ((r.next_u64() >> 11) as f64 + 1.0) * (1.0 / (1u64 << 53) as f64)
}

/// Uniform in [0, 1).
#[inline]
pub fn unit(r: &mut ChaCha8Rng) -> f64 {
    (r.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// Uniform integer in 0..n (n > 0).
#[inline]
pub fn below(r: &mut ChaCha8Rng, n: u64) -> u64 {
    r.gen_range(0..n)
}

/// Exponential with the given mean.
#[inline]
pub fn exponential(r: &mut ChaCha8Rng, mean: f64) -> f64 {
    -unit_open0(r).ln() * mean
}

/// Standard normal by the Box-Muller transform (one value per call; the second is dropped to
/// keep the generator state simple).
#[inline]
pub fn std_normal(r: &mut ChaCha8Rng) -> f64 {
    let u1 = unit_open0(r);
    let u2 = unit(r);
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// Lognormal with the given mean and log-space standard deviation `sigma`:
/// mu = ln(mean) - sigma^2 / 2 makes E\[X\] = mean exactly.
#[inline]
pub fn lognormal(r: &mut ChaCha8Rng, mean: f64, sigma: f64) -> f64 {
    let mu = mean.ln() - 0.5 * sigma * sigma;
    (mu + sigma * std_normal(r)).exp()
}

/// Geometric count on {0, 1, 2, ...} with the given mean (>= 0), by inversion.
#[inline]
pub fn geometric(r: &mut ChaCha8Rng, mean: f64) -> u64 {
    if mean <= 0.0 {
        return 0;
    }
    // P(X >= k) = q^k with q = mean / (1 + mean), so E[X] = q / (1 - q) = mean.
    let q = mean / (1.0 + mean);
    let x = (unit_open0(r).ln() / q.ln()).floor();
    if x >= u64::MAX as f64 {
        u64::MAX
    } else {
        x as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_open0_never_zero_and_bounded() {
        let mut r = stream(1, 0);
        for _ in 0..10_000 {
            let u = unit_open0(&mut r);
            assert!(u > 0.0 && u <= 1.0);
        }
    }

    #[test]
    fn geometric_mean_matches() {
        // 100k draws of mean 3: sd of the sample mean = sqrt(3*4/100k) ~ 0.011; allow 5 sd.
        let mut r = stream(7, 1);
        let n = 100_000;
        let s: u64 = (0..n).map(|_| geometric(&mut r, 3.0)).sum();
        let m = s as f64 / n as f64;
        assert!((m - 3.0).abs() < 0.055, "mean {m}");
    }

    #[test]
    fn lognormal_mean_matches() {
        // sigma 1: variance = mean^2 (e^1 - 1) = 1.718; 200k draws: sd of mean ~ 0.0029; 5 sd.
        let mut r = stream(7, 2);
        let n = 200_000;
        let s: f64 = (0..n).map(|_| lognormal(&mut r, 1.0, 1.0)).sum();
        let m = s / n as f64;
        assert!((m - 1.0).abs() < 0.015, "mean {m}");
    }
}
