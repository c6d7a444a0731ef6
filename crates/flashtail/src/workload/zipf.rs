//! Zipf sampling over ranks 1..=n with exponent theta: P(k) proportional to k^-theta.
//!
//! Uses rejection-inversion (Hörmann and Derflinger, "Rejection-inversion to generate variates
//! from monotone discrete distributions", ACM TOMACS 1996): O(1) expected time per draw, no
//! table and no allocation, so n may be the page count of a whole device or a pool that
//! grows with every write. The n-independent constants are precomputed; `sample_n` accepts a
//! different n per call at the cost of one extra log/exp. theta = 0 degenerates to uniform.
//! Does not map ranks to addresses (see `address`).

use super::rng::{below, unit};
use rand_chacha::ChaCha8Rng;

/// A Zipf sampler for a fixed exponent.
#[derive(Clone, Debug)]
pub struct Zipf {
    theta: f64,
    /// H(1.5) - 1, where H is the integral of h(x) = x^-theta.
    h_x1: f64,
    /// Acceptance shortcut constant: 2 - H^-1(H(2.5) - h(2)).
    s: f64,
    /// Default number of ranks for `sample`.
    n: u64,
    h_n: f64,
}

/// (e^x - 1) / x, accurate near 0.
fn expm1_over_x(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.exp_m1() / x
    } else {
        1.0 + x * 0.5 * (1.0 + x / 3.0 * (1.0 + 0.25 * x))
    }
}

/// ln(1 + x) / x, accurate near 0.
fn ln1p_over_x(x: f64) -> f64 {
    if x.abs() > 1e-8 {
        x.ln_1p() / x
    } else {
        1.0 - x * (0.5 - x * (1.0 / 3.0 - 0.25 * x))
    }
}

impl Zipf {
    /// A sampler over 1..=n (n >= 1) with exponent theta >= 0.
    pub fn new(n: u64, theta: f64) -> Zipf {
        let mut z = Zipf { theta, h_x1: 0.0, s: 0.0, n: n.max(1), h_n: 0.0 };
        z.h_x1 = z.big_h(1.5) - 1.0;
        z.s = 2.0 - z.big_h_inv(z.big_h(2.5) - z.h(2.0));
        z.h_n = z.big_h(z.n as f64 + 0.5);
        z
    }

    /// Number of ranks of `sample`.
    pub fn n(&self) -> u64 {
        self.n
    }

    fn h(&self, x: f64) -> f64 {
        (-self.theta * x.ln()).exp()
    }

    /// Antiderivative of h: (x^(1-theta) - 1) / (1 - theta), or ln x when theta = 1.
    fn big_h(&self, x: f64) -> f64 {
        let lx = x.ln();
        expm1_over_x((1.0 - self.theta) * lx) * lx
    }

    fn big_h_inv(&self, y: f64) -> f64 {
        // Clamp guards the domain against rounding at the extreme end (t = -1 is x = 0).
        let t = (y * (1.0 - self.theta)).max(-1.0);
        (ln1p_over_x(t) * y).exp()
    }

    /// A rank in 1..=self.n().
    #[inline]
    pub fn sample(&self, r: &mut ChaCha8Rng) -> u64 {
        self.draw(r, self.n, self.h_n)
    }

    /// A rank in 1..=n for this call's n (n >= 1).
    #[inline]
    pub fn sample_n(&self, r: &mut ChaCha8Rng, n: u64) -> u64 {
        let n = n.max(1);
        self.draw(r, n, self.big_h(n as f64 + 0.5))
    }

    fn draw(&self, r: &mut ChaCha8Rng, n: u64, h_n: f64) -> u64 {
        if self.theta == 0.0 || n == 1 {
            return 1 + below(r, n);
        }
        loop {
            let u = h_n + unit(r) * (self.h_x1 - h_n);
            let x = self.big_h_inv(u);
            let k = ((x + 0.5) as u64).clamp(1, n);
            let kf = k as f64;
            if kf - x <= self.s || u >= self.big_h(kf + 0.5) - self.h(kf) {
                return k;
            }
        }
    }
}

/// Exact P(rank = k) for n ranks and exponent theta, by summation (O(n); for tests and checks).
pub fn zipf_pmf(n: u64, theta: f64, k: u64) -> f64 {
    let norm: f64 = (1..=n).map(|i| (i as f64).powf(-theta)).sum();
    (k as f64).powf(-theta) / norm
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::rng::stream;

    fn freqs(n: u64, theta: f64, draws: usize) -> Vec<f64> {
        let z = Zipf::new(n, theta);
        let mut r = stream(3, 9);
        let mut c = vec![0u64; n as usize + 1];
        for _ in 0..draws {
            let k = z.sample(&mut r);
            assert!((1..=n).contains(&k));
            c[k as usize] += 1;
        }
        c.iter().map(|&x| x as f64 / draws as f64).collect()
    }

    #[test]
    fn head_probabilities_match_pmf() {
        // 200k draws: sd of a frequency p is sqrt(p(1-p)/200k) <= 0.0011; allow 5 sd.
        for &theta in &[0.1, 0.5, 0.99, 1.0, 1.2, 2.0] {
            let f = freqs(1000, theta, 200_000);
            for k in 1..=4u64 {
                let p = zipf_pmf(1000, theta, k);
                let tol = 5.0 * (p * (1.0 - p) / 200_000.0).sqrt();
                assert!((f[k as usize] - p).abs() < tol, "theta {theta} k {k}: {} vs {p}", f[k as usize]);
            }
        }
    }

    #[test]
    fn sample_n_respects_bound() {
        let z = Zipf::new(10, 0.9);
        let mut r = stream(1, 1);
        for n in 1..200u64 {
            let k = z.sample_n(&mut r, n);
            assert!(k >= 1 && k <= n);
        }
    }
}
