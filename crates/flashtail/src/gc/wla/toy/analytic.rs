//! Section IV-A of the WLA-GC paper: one word-line filled a page at a time, vanilla GC
//! costing the worst placement of `n` valid pages and WLA-GC the best, read + program terms
//! only.
//!
//! What it models: the bound on what the placement of valid pages across levels can be worth
//! (25.4% with Table I). What it does not: a victim choice among blocks (that is `emulate.rs`),
//! the erase (the same for both), or any device timing.

use super::{gain_of, level_of, ToyLevels, MAX_PAGES_PER_BLOCK};

/// One fill step of [`analytic`]: `valid` pages of the word-line are valid.
#[derive(Clone, Debug, PartialEq)]
pub struct FillStep {
    /// Valid pages in the word-line (1..=pages).
    pub valid: u32,
    /// Vanilla's cost: the `valid` most expensive pages.
    pub vanilla: f64,
    /// WLA's cost: the `valid` cheapest pages.
    pub wla: f64,
}

/// Result of [`analytic`].
#[derive(Clone, Debug, PartialEq)]
pub struct Analytic {
    /// One entry per fill step, `valid` = 1..=pages.
    pub steps: Vec<FillStep>,
    /// Mean of `vanilla` over the steps.
    pub vanilla_mean: f64,
    /// Mean of `wla` over the steps.
    pub wla_mean: f64,
    /// 1 - wla_mean/vanilla_mean
    pub gain: f64,
    /// largest per-step 1 - wla/vanilla
    pub max_gain: f64,
}

/// Section IV-A: one word-line of bits*pages_per_level pages filled one page at a time, n = 1..=pages;
/// vanilla = the worst case (the n most expensive pages valid: top levels first), wla = the best case
/// (the n cheapest: bottom levels first); read + program terms only (no erase: it is the same for both).
///
/// Pages are ranked by cost, so with costs that do not grow with the level the cases stay the
/// worst and the best. With Table I and 4 pages per level: vanilla 51.125, WLA 38.125, gain 25.4%.
pub fn analytic(levels: &ToyLevels, pages_per_level: u32) -> Result<Analytic, String> {
    levels.validate().map_err(|e| format!("analytic: {e}"))?;
    if pages_per_level == 0 {
        return Err("analytic: pages_per_level must be at least 1".into());
    }
    let bits = levels.bits();
    let pages = u64::from(bits) * u64::from(pages_per_level);
    if pages > u64::from(MAX_PAGES_PER_BLOCK) {
        return Err(format!(
            "analytic: pages_per_level: a word-line of {bits} x {pages_per_level} pages exceeds {MAX_PAGES_PER_BLOCK} pages"
        ));
    }
    let pages = pages as u32;
    if !(levels.max_page_cost() * f64::from(pages) * f64::from(pages)).is_finite() {
        return Err("analytic: levels: costs too large, the sums overflow f64".into());
    }
    let mut cheap_first: Vec<f64> = (0..pages).map(|i| levels.page_cost(level_of(i, bits, pages_per_level))).collect();
    cheap_first.sort_by(f64::total_cmp);
    let mut steps = Vec::with_capacity(pages as usize);
    let (mut vanilla, mut wla) = (0.0, 0.0);
    let (mut vanilla_sum, mut wla_sum, mut max_gain) = (0.0, 0.0, 0.0f64);
    for n in 0..pages as usize {
        vanilla += cheap_first[cheap_first.len() - 1 - n];
        wla += cheap_first[n];
        vanilla_sum += vanilla;
        wla_sum += wla;
        max_gain = max_gain.max(gain_of(vanilla, wla));
        steps.push(FillStep {
            valid: n as u32 + 1,
            vanilla,
            wla,
        });
    }
    let vanilla_mean = vanilla_sum / f64::from(pages);
    let wla_mean = wla_sum / f64::from(pages);
    Ok(Analytic {
        steps,
        vanilla_mean,
        wla_mean,
        gain: gain_of(vanilla_mean, wla_mean),
        max_gain,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn analytic_matches_section_iv_a() {
        let a = analytic(&ToyLevels::table_one(), 4).unwrap();
        assert_eq!(a.steps.len(), 16);
        assert_eq!(a.vanilla_mean, 51.125);
        assert_eq!(a.wla_mean, 38.125);
        assert!((a.gain - 0.2543).abs() < 1e-4, "gain {}", a.gain);
        assert_eq!(
            a.steps[0],
            FillStep {
                valid: 1,
                vanilla: 7.0,
                wla: 3.0
            }
        );
        assert_eq!(
            a.steps[15],
            FillStep {
                valid: 16,
                vanilla: 84.0,
                wla: 84.0
            }
        );
        // Vanilla fills QLC, TLC, MLC, LSB; WLA the reverse.
        let vanilla: Vec<f64> = a.steps.iter().map(|s| s.vanilla).collect();
        let wla: Vec<f64> = a.steps.iter().map(|s| s.wla).collect();
        assert_eq!(vanilla, [7., 14., 21., 28., 34., 40., 46., 52., 57., 62., 67., 72., 75., 78., 81., 84.]);
        assert_eq!(wla, [3., 6., 9., 12., 17., 22., 27., 32., 38., 44., 50., 56., 63., 70., 77., 84.]);
        assert!((a.max_gain - 4.0 / 7.0).abs() < 1e-12);
        assert!(a.steps.iter().all(|s| s.wla <= s.vanilla));
    }

    #[test]
    fn analytic_other_shapes() {
        // One page per level: 4 steps.
        let a = analytic(&ToyLevels::table_one(), 1).unwrap();
        assert_eq!(a.steps.iter().map(|s| s.vanilla).collect::<Vec<_>>(), [7., 13., 18., 21.]);
        assert_eq!(a.steps.iter().map(|s| s.wla).collect::<Vec<_>>(), [3., 8., 14., 21.]);
        // Uniform costs: placement is worth nothing.
        let flat = ToyLevels {
            read: vec![1.0; 3],
            program: vec![2.0; 3],
            erase: 5.0,
        };
        let a = analytic(&flat, 2).unwrap();
        assert_eq!((a.steps.len(), a.gain, a.max_gain), (6, 0.0, 0.0));
        // All-zero costs: gain is 0, not NaN.
        let zero = ToyLevels {
            read: vec![0.0],
            program: vec![0.0],
            erase: 0.0,
        };
        let a = analytic(&zero, 3).unwrap();
        assert_eq!((a.vanilla_mean, a.gain, a.max_gain), (0.0, 0.0, 0.0));
    }
}
