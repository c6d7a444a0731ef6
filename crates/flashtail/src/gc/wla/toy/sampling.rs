//! Exact discrete samplers for the Section IV-B emulation (`emulate.rs`): a block's per-level
//! valid counts are drawn as hypergeometric or binomial counts by inversion, never as page
//! bitmaps, plus SplitMix64 to derive independent seeds.
//!
//! What it models: the same distributions as placing valid pages one by one (see "Sampling"
//! in the `toy` module doc), at a few random numbers per block. What it does not: any
//! approximation (no normal or Poisson shortcut), parameter checks (callers pass arguments
//! within the stated bounds), or the choice of layout (`emulate.rs`).

use rand::Rng;

/// SplitMix64's output function: decorrelates nearby seeds.
pub(super) fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `ln(k!)` for `k = 0..=n`.
pub(super) fn ln_factorials(n: u32) -> Vec<f64> {
    let mut v = Vec::with_capacity(n as usize + 1);
    let mut acc = 0.0f64;
    v.push(acc);
    for k in 1..=n {
        acc += f64::from(k).ln();
        v.push(acc);
    }
    v
}

/// `ln C(n, k)` from a table of `ln(k!)`; needs `k <= n < lf.len()`.
fn ln_choose(lf: &[f64], n: u32, k: u32) -> f64 {
    lf[n as usize] - lf[k as usize] - lf[(n - k) as usize]
}

/// Inversion of a discrete distribution on `lo..=hi` for `u` in [0, 1), visiting outcomes
/// outward from `mode` (pmf `p_mode`): `up(k)` is p(k+1)/p(k), `down(k)` is p(k-1)/p(k).
/// Costs O(distance of the outcome from the mode). Any visiting order is exact inversion; the
/// mode only makes it short. If rounding leaves `u` unspent (probability ~1e-15), the mode.
fn invert_outward(mut u: f64, lo: u32, hi: u32, mode: u32, p_mode: f64, up: impl Fn(u32) -> f64, down: impl Fn(u32) -> f64) -> u32 {
    u -= p_mode;
    if u < 0.0 {
        return mode;
    }
    let (mut k_up, mut p_up, mut k_dn, mut p_dn) = (mode, p_mode, mode, p_mode);
    loop {
        let mut moved = false;
        if k_up < hi {
            p_up *= up(k_up);
            k_up += 1;
            u -= p_up;
            if u < 0.0 {
                return k_up;
            }
            moved = true;
        }
        if k_dn > lo {
            p_dn *= down(k_dn);
            k_dn -= 1;
            u -= p_dn;
            if u < 0.0 {
                return k_dn;
            }
            moved = true;
        }
        if !moved {
            return mode;
        }
    }
}

/// Successes among `draws` taken without replacement from `pop` items of which `succ` are
/// successes (hypergeometric); needs `succ, draws <= pop < lf.len()`.
pub(super) fn hypergeometric<R: Rng>(rng: &mut R, lf: &[f64], pop: u32, succ: u32, draws: u32) -> u32 {
    let fail = pop - succ;
    let lo = draws.saturating_sub(fail);
    let hi = succ.min(draws);
    if lo >= hi {
        return lo;
    }
    let mode = ((u64::from(draws) + 1) * (u64::from(succ) + 1) / (u64::from(pop) + 2)) as u32;
    let mode = mode.clamp(lo, hi);
    let p_mode = (ln_choose(lf, succ, mode) + ln_choose(lf, fail, draws - mode) - ln_choose(lf, pop, draws)).exp();
    let (s, d, f) = (f64::from(succ), f64::from(draws), f64::from(fail));
    let up = |k: u32| {
        let k = f64::from(k);
        ((s - k) * (d - k)) / ((k + 1.0) * (f - d + k + 1.0))
    };
    let down = |k: u32| {
        let k = f64::from(k);
        (k * (f - d + k)) / ((s - k + 1.0) * (d - k + 1.0))
    };
    invert_outward(rng.gen::<f64>(), lo, hi, mode, p_mode, up, down)
}

/// Cumulative (unnormalised) Binomial(n, p) probabilities, `p` in (0, 1); needs `n < lf.len()`.
pub(super) fn binomial_cdf(lf: &[f64], n: u32, p: f64) -> Vec<f64> {
    let (lp, lq) = (p.ln(), (-p).ln_1p());
    let mut acc = 0.0;
    (0..=n)
        .map(|k| {
            acc += (ln_choose(lf, n, k) + f64::from(k) * lp + f64::from(n - k) * lq).exp();
            acc
        })
        .collect()
}

/// Draw from a table made by [`binomial_cdf`].
pub(super) fn sample_cdf<R: Rng>(rng: &mut R, cdf: &[f64]) -> u32 {
    let total = cdf.last().copied().unwrap_or(0.0);
    let u = rng.gen::<f64>() * total;
    cdf.partition_point(|&c| c <= u).min(cdf.len().saturating_sub(1)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn hypergeometric_matches_exact_pmf() {
        // pop 16, 4 successes, 6 draws: compare frequencies with C(4,k)C(12,6-k)/C(16,6).
        let lf = ln_factorials(16);
        let choose = |n: u64, k: u64| (0..k).fold(1u64, |a, i| a * (n - i) / (i + 1));
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let n = 200_000;
        let mut hist = [0u32; 5];
        for _ in 0..n {
            hist[hypergeometric(&mut rng, &lf, 16, 4, 6) as usize] += 1;
        }
        for (k, &h) in hist.iter().enumerate() {
            let exact = (choose(4, k as u64) * choose(12, 6 - k as u64)) as f64 / choose(16, 6) as f64;
            let freq = f64::from(h) / f64::from(n);
            assert!((freq - exact).abs() < 0.004, "k={k} freq {freq} exact {exact}");
        }
        // Large: pop 4096, 1024 successes, 2048 draws. Mean 512, variance 192.05.
        let lf = ln_factorials(4096);
        let xs: Vec<f64> = (0..20_000).map(|_| f64::from(hypergeometric(&mut rng, &lf, 4096, 1024, 2048))).collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (xs.len() - 1) as f64;
        let var_exact = 2048.0 * 0.25 * 0.75 * 2048.0 / 4095.0;
        assert!((mean - 512.0).abs() < 0.5, "mean {mean}");
        assert!((var / var_exact - 1.0).abs() < 0.1, "var {var} vs {var_exact}");
        // Degenerate supports.
        assert_eq!(hypergeometric(&mut rng, &lf, 4096, 1024, 0), 0);
        assert_eq!(hypergeometric(&mut rng, &lf, 4096, 1024, 4096), 1024);
        assert_eq!(hypergeometric(&mut rng, &lf, 1024, 1024, 77), 77);
    }

    #[test]
    fn binomial_matches_moments() {
        let lf = ln_factorials(1024);
        let cdf = binomial_cdf(&lf, 1024, 0.3);
        assert!((cdf[1024] - 1.0).abs() < 1e-9);
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let xs: Vec<f64> = (0..20_000).map(|_| f64::from(sample_cdf(&mut rng, &cdf))).collect();
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (xs.len() - 1) as f64;
        assert!((mean - 307.2).abs() < 0.5, "mean {mean}");
        assert!((var / 215.04 - 1.0).abs() < 0.1, "var {var}");
    }
}
