//! Section IV-B of the WLA-GC paper, done correctly: fresh pools of blocks with random valid
//! pages per (valid %, batch); vanilla GC and WLA-GC each pick a fraction of the pool as
//! victims, and each step reports the mean latency and valid pages of the picks.
//!
//! What it models: what choosing among random blocks actually gains, with reproducible seeds
//! per (seed, valid %, batch) and steps run in parallel (rayon). What it does not: blocks that
//! evolve under a workload, queues or device timing (the simulator's `wla` victim policy is
//! the real thing), or the public C emulator's defects (see the `toy` module doc; they are
//! available on request, [`Emulator::PaperDefects`], in `defects.rs`). The exact samplers it
//! draws blocks with are in `sampling.rs`.

use super::sampling::{binomial_cdf, hypergeometric, ln_factorials, sample_cdf, splitmix64};
use super::{gain_of, pick_lowest, ToyLevels, MAX_BLOCKS, MAX_PAGES_PER_BLOCK};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// How [`emulate`] places the valid pages of a block.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ValidLayout {
    /// every block has exactly round(pct% x pages) valid pages at uniformly random positions
    Exact,
    /// each page valid independently with probability pct%
    Bernoulli,
}

/// Which emulation [`emulate`] runs.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Emulator {
    /// Distinct picks, greedy vanilla, fresh totals per batch (this module's doc).
    #[default]
    Corrected,
    /// The public C emulator's selection and accounting, defects included (`defects.rs`):
    /// WLA charges the single cheapest block `k` times, vanilla costs the pool's first `k`
    /// blocks, totals accumulate across batches. Seeded like [`Emulator::Corrected`].
    PaperDefects,
}

/// Parameters of [`emulate`].
#[derive(Clone, Debug, PartialEq)]
pub struct EmulateParams {
    /// Blocks in each pool (1..=[`MAX_BLOCKS`]); the paper used 1,000,000.
    pub blocks: usize,
    /// Pages per block, a multiple of `bits * pages_per_level` (at most [`MAX_PAGES_PER_BLOCK`]).
    pub pages_per_block: u32,
    /// Pages per level of a word-line (4 in the paper's QLC: 16 pages per word-line).
    pub pages_per_level: u32,
    /// Fraction of the pool each policy picks, in (0, 1]; `round(blocks * pick_fraction)`
    /// blocks, at least 1. The paper: 0.25.
    pub pick_fraction: f64,
    /// Fresh pools per step (at least 1); the paper: 10.
    pub batches: u32,
    /// Seed of every random draw.
    pub seed: u64,
    /// How valid pages are placed.
    pub layout: ValidLayout,
    /// Valid-page percentages to run, each in 0..=100.
    pub steps_pct: Vec<u32>,
    /// Corrected emulation, or the public C emulator's defects.
    pub emulator: Emulator,
}

impl Default for EmulateParams {
    /// 20,000 blocks of 4096 pages (QLC, 4 pages per level), a quarter picked, 10 batches,
    /// seed 1, exact layout, 5%..=100% in 5% steps: the paper's setup on a 50x smaller pool.
    fn default() -> Self {
        EmulateParams {
            blocks: 20_000,
            pages_per_block: 4096,
            pages_per_level: 4,
            pick_fraction: 0.25,
            batches: 10,
            seed: 1,
            layout: ValidLayout::Exact,
            steps_pct: (1..=20).map(|i| i * 5).collect(),
            emulator: Emulator::Corrected,
        }
    }
}

/// One valid-page percentage of [`emulate`].
#[derive(Clone, Debug, PartialEq)]
pub struct EmulateStep {
    /// Valid pages, percent.
    pub valid_pct: u32,
    /// Mean latency of vanilla's picks, averaged over batches.
    pub vanilla_mean: f64,
    /// Mean latency of WLA's picks, averaged over batches.
    pub wla_mean: f64,
    /// 1 - wla/vanilla
    pub gain: f64,
    /// Blocks each policy picked per batch.
    pub picked: usize,
    /// mean valid pages of the picked blocks, each policy
    pub vanilla_valid: f64,
    /// Mean valid pages of WLA's picks, averaged over batches.
    pub wla_valid: f64,
}

/// Section IV-B, done correctly: per step and batch, fresh blocks; each policy picks `blocks*pick_fraction`
/// distinct blocks (vanilla: fewest valid pages, ties to the lowest index; WLA: lowest latency including erase, ties
/// to the lowest index); means are of the picked blocks' latencies, averaged over batches.
///
/// Steps run in parallel (rayon), each from its own seeds, so results do not depend on the
/// thread count.
pub fn emulate(levels: &ToyLevels, p: &EmulateParams) -> Result<Vec<EmulateStep>, String> {
    let ctx = Ctx::new(levels, p)?;
    Ok(p.steps_pct.par_iter().map(|&pct| ctx.step(pct)).collect())
}

/// Checks `p` as [`emulate`] does, without running it (so a caller can refuse bad
/// parameters before it prints anything).
pub fn check(levels: &ToyLevels, p: &EmulateParams) -> Result<(), String> {
    Ctx::new(levels, p).map(|_| ())
}

/// The seed of one (valid %, batch) pool.
pub(super) fn pool_seed(seed: u64, pct: u32, batch: u32) -> u64 {
    splitmix64(splitmix64(splitmix64(seed) ^ u64::from(pct)) ^ u64::from(batch))
}

/// How one step draws a block's per-level valid counts.
pub(super) enum Sampler {
    /// Every level holds this many valid pages (0% and 100%).
    Const(u32),
    /// Exactly this many valid pages per block, uniformly placed.
    Exact(u32),
    /// Independent binomial count per level, from this CDF table.
    Binomial(Vec<f64>),
}

/// Validated parameters plus the tables every step shares.
pub(super) struct Ctx<'a> {
    pub(super) p: &'a EmulateParams,
    pub(super) costs: Vec<f64>,
    /// Read cost of a page by level (the C emulator's selection key counts only these).
    pub(super) read: Vec<f64>,
    pub(super) erase: f64,
    /// Pages per level in a block.
    per_level: u32,
    /// Blocks each policy picks.
    pub(super) k: usize,
    /// `ln(k!)` for `k = 0..=pages_per_block`.
    lf: Vec<f64>,
}

impl<'a> Ctx<'a> {
    fn new(levels: &ToyLevels, p: &'a EmulateParams) -> Result<Ctx<'a>, String> {
        levels.validate().map_err(|e| format!("emulate: {e}"))?;
        if p.blocks == 0 {
            return Err("emulate: blocks must be at least 1".into());
        }
        if p.blocks > MAX_BLOCKS {
            return Err(format!("emulate: blocks must be at most {MAX_BLOCKS} (got {})", p.blocks));
        }
        if p.pages_per_level == 0 {
            return Err("emulate: pages_per_level must be at least 1".into());
        }
        if p.pages_per_block == 0 {
            return Err("emulate: pages_per_block must be at least 1".into());
        }
        if p.pages_per_block > MAX_PAGES_PER_BLOCK {
            return Err(format!(
                "emulate: pages_per_block must be at most {MAX_PAGES_PER_BLOCK} (got {})",
                p.pages_per_block
            ));
        }
        let bits = levels.bits();
        let wl = u64::from(bits) * u64::from(p.pages_per_level);
        if u64::from(p.pages_per_block) % wl != 0 {
            return Err(format!(
                "emulate: pages_per_block ({}) must be a multiple of bits x pages_per_level ({bits} x {} = {wl})",
                p.pages_per_block, p.pages_per_level
            ));
        }
        if !(p.pick_fraction > 0.0 && p.pick_fraction <= 1.0) {
            return Err(format!("emulate: pick_fraction must be in (0, 1] (got {})", p.pick_fraction));
        }
        if p.batches == 0 {
            return Err("emulate: batches must be at least 1".into());
        }
        if p.steps_pct.is_empty() {
            return Err("emulate: steps_pct must not be empty".into());
        }
        if let Some(bad) = p.steps_pct.iter().find(|&&s| s > 100) {
            return Err(format!("emulate: steps_pct entries must be in 0..=100 (got {bad})"));
        }
        let max_latency = levels.erase + levels.max_page_cost() * f64::from(p.pages_per_block);
        if !(max_latency * p.blocks as f64 * f64::from(p.batches)).is_finite() {
            return Err("emulate: levels: costs too large, the sums overflow f64".into());
        }
        let k = ((p.blocks as f64 * p.pick_fraction).round() as usize).clamp(1, p.blocks);
        Ok(Ctx {
            p,
            costs: (0..levels.read.len()).map(|l| levels.page_cost(l)).collect(),
            read: levels.read.clone(),
            erase: levels.erase,
            per_level: p.pages_per_block / bits,
            k,
            lf: ln_factorials(p.pages_per_block),
        })
    }

    pub(super) fn sampler(&self, pct: u32) -> Sampler {
        match (pct, self.p.layout) {
            (0, _) => Sampler::Const(0),
            (100, _) => Sampler::Const(self.per_level),
            (_, ValidLayout::Exact) => {
                let valid = (u64::from(pct) * u64::from(self.p.pages_per_block) + 50) / 100;
                match valid as u32 {
                    0 => Sampler::Const(0),
                    v if v == self.p.pages_per_block => Sampler::Const(self.per_level),
                    v => Sampler::Exact(v),
                }
            }
            (_, ValidLayout::Bernoulli) => Sampler::Binomial(binomial_cdf(&self.lf, self.per_level, f64::from(pct) / 100.0)),
        }
    }

    /// One block's per-level valid counts, into `counts[..bits]`.
    pub(super) fn draw_block<R: Rng>(&self, rng: &mut R, sampler: &Sampler, counts: &mut [u32]) {
        match sampler {
            Sampler::Const(c) => counts.fill(*c),
            Sampler::Binomial(cdf) => counts.iter_mut().for_each(|c| *c = sample_cdf(rng, cdf)),
            Sampler::Exact(valid) => {
                let (mut left, mut pop) = (*valid, self.p.pages_per_block);
                let last = counts.len() - 1;
                for c in &mut counts[..last] {
                    *c = hypergeometric(rng, &self.lf, pop, self.per_level, left);
                    left -= *c;
                    pop -= self.per_level;
                }
                counts[last] = left;
            }
        }
    }

    fn step(&self, pct: u32) -> EmulateStep {
        if self.p.emulator == Emulator::PaperDefects {
            return super::defects::step(self, pct);
        }
        let sampler = self.sampler(pct);
        let blocks = self.p.blocks;
        let mut latency = vec![0.0; blocks];
        let mut valid = vec![0.0; blocks];
        let mut counts = vec![0u32; self.costs.len()];
        let mut sums = [0.0f64; 4];
        for batch in 0..self.p.batches {
            let mut rng = ChaCha8Rng::seed_from_u64(pool_seed(self.p.seed, pct, batch));
            for (lat, val) in latency.iter_mut().zip(valid.iter_mut()) {
                self.draw_block(&mut rng, &sampler, &mut counts);
                let mut l = 0.0;
                for (&c, &cost) in counts.iter().zip(&self.costs) {
                    l += f64::from(c) * cost;
                }
                *lat = l + self.erase;
                *val = f64::from(counts.iter().sum::<u32>());
            }
            let k = self.k as f64;
            let mean = |picks: &[usize], of: &[f64]| picks.iter().map(|&i| of[i]).sum::<f64>() / k;
            let by_count = pick_lowest(&valid, self.k);
            let by_latency = pick_lowest(&latency, self.k);
            sums[0] += mean(&by_count, &latency);
            sums[1] += mean(&by_latency, &latency);
            sums[2] += mean(&by_count, &valid);
            sums[3] += mean(&by_latency, &valid);
        }
        let b = f64::from(self.p.batches);
        let (vanilla_mean, wla_mean) = (sums[0] / b, sums[1] / b);
        EmulateStep {
            valid_pct: pct,
            vanilla_mean,
            wla_mean,
            gain: gain_of(vanilla_mean, wla_mean),
            picked: self.k,
            vanilla_valid: sums[2] / b,
            wla_valid: sums[3] / b,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gc::wla::toy::{analytic, level_of};
    use std::time::Instant;

    fn small(layout: ValidLayout) -> EmulateParams {
        EmulateParams {
            blocks: 2_000,
            pages_per_block: 256,
            pages_per_level: 4,
            batches: 2,
            layout,
            ..EmulateParams::default()
        }
    }

    fn at(steps: &[EmulateStep], pct: u32) -> &EmulateStep {
        steps.iter().find(|s| s.valid_pct == pct).expect("step present")
    }

    #[test]
    fn exact_blocks_have_exactly_k_valid_pages() {
        let p = small(ValidLayout::Exact);
        let ctx = Ctx::new(&ToyLevels::table_one(), &p).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        for pct in [1, 5, 37, 50, 99] {
            let k = (pct * 256 + 50) / 100;
            let s = ctx.sampler(pct);
            let mut c = [0u32; 4];
            let mut level_sum = [0u64; 4];
            for _ in 0..4000 {
                ctx.draw_block(&mut rng, &s, &mut c);
                assert_eq!(c.iter().sum::<u32>(), k);
                assert!(c.iter().all(|&x| x <= 64));
                c.iter().zip(level_sum.iter_mut()).for_each(|(&x, s)| *s += u64::from(x));
            }
            // Each level gets a quarter of the valid pages on average.
            for s in level_sum {
                let m = s as f64 / 4000.0;
                assert!((m - f64::from(k) / 4.0).abs() < 0.02 * f64::from(k) + 0.1, "pct {pct} level mean {m}");
            }
        }
    }

    #[test]
    fn full_blocks_give_zero_gain() {
        for layout in [ValidLayout::Exact, ValidLayout::Bernoulli] {
            let p = EmulateParams {
                steps_pct: vec![100],
                ..small(layout)
            };
            let s = &emulate(&ToyLevels::table_one(), &p).unwrap()[0];
            assert_eq!(s.gain, 0.0);
            assert_eq!(s.vanilla_mean, s.wla_mean);
            assert_eq!(s.vanilla_mean, 256.0 * 5.25 + 60.0);
            assert_eq!((s.vanilla_valid, s.wla_valid, s.picked), (256.0, 256.0, 500));
        }
    }

    #[test]
    fn exact_layout_gain_shrinks_with_valid_pages() {
        let steps = emulate(&ToyLevels::table_one(), &small(ValidLayout::Exact)).unwrap();
        assert_eq!(steps.len(), 20);
        for s in &steps {
            assert!(s.wla_mean <= s.vanilla_mean, "{s:?}");
            assert_eq!(s.picked, 500);
            // Exact: every block has the same count, so both policies move the same pages.
            let k = f64::from((s.valid_pct * 256 + 50) / 100);
            assert_eq!((s.vanilla_valid, s.wla_valid), (k, k));
        }
        let (g5, g50, g95) = (at(&steps, 5).gain, at(&steps, 50).gain, at(&steps, 95).gain);
        assert!(at(&steps, 5).wla_mean < at(&steps, 5).vanilla_mean);
        assert!(g5 > g50 && g50 > g95 && g95 >= 0.0, "{g5} {g50} {g95}");
        // Vanilla picks blocks 0..k, a random sample: its mean is K x mean page cost + erase.
        let v5 = at(&steps, 5).vanilla_mean;
        assert!((v5 - (13.0 * 5.25 + 60.0)).abs() < 1.0, "vanilla at 5%: {v5}");
    }

    #[test]
    fn bernoulli_vanilla_moves_fewest_pages() {
        let p = small(ValidLayout::Bernoulli);
        let steps = emulate(&ToyLevels::table_one(), &p).unwrap();
        for s in &steps {
            assert!(s.vanilla_valid <= s.wla_valid, "{s:?}");
            assert!(s.wla_mean <= s.vanilla_mean, "{s:?}");
        }
        let s5 = at(&steps, 5);
        assert!(s5.wla_mean < s5.vanilla_mean);
        // The picked quarter sits below the pool mean (12.8 valid pages at 5%).
        assert!(s5.vanilla_valid < 12.8 && s5.vanilla_valid > 6.0, "{s5:?}");
    }

    #[test]
    fn deterministic_and_seed_sensitive() {
        for layout in [ValidLayout::Exact, ValidLayout::Bernoulli] {
            let p = EmulateParams {
                steps_pct: vec![5, 30, 60],
                ..small(layout)
            };
            let a = emulate(&ToyLevels::table_one(), &p).unwrap();
            let b = emulate(&ToyLevels::table_one(), &p).unwrap();
            assert_eq!(a, b);
            let c = emulate(&ToyLevels::table_one(), &EmulateParams { seed: 2, ..p.clone() }).unwrap();
            assert_ne!(a, c);
            assert!(a.iter().zip(&c).all(|(x, y)| x.wla_mean != y.wla_mean));
            // A step's numbers do not depend on which other steps run.
            let single = emulate(
                &ToyLevels::table_one(),
                &EmulateParams {
                    steps_pct: vec![30],
                    ..p.clone()
                },
            )
            .unwrap();
            assert_eq!(single[0], a[1]);
        }
    }

    #[test]
    fn uniform_costs_make_policies_identical() {
        // Same cost on every level: latency is a function of the count, so WLA must pick
        // exactly vanilla's blocks (same tie rule) and gain nothing.
        let flat = ToyLevels {
            read: vec![1.0; 4],
            program: vec![2.0; 4],
            erase: 60.0,
        };
        let steps = emulate(
            &flat,
            &EmulateParams {
                steps_pct: vec![5, 50, 95],
                ..small(ValidLayout::Bernoulli)
            },
        )
        .unwrap();
        for s in &steps {
            assert_eq!((s.vanilla_mean, s.vanilla_valid, s.gain), (s.wla_mean, s.wla_valid, 0.0), "{s:?}");
        }
    }

    #[test]
    fn matches_a_page_bitmap_reference() {
        // Brute force: place valid pages by Floyd's sampling, level by the layout rule, and
        // pick by full sorts. Different random streams, so compare statistically.
        let t = ToyLevels::table_one();
        let (blocks, ppb, batches, pct) = (2_000usize, 256u32, 6u32, 20u32);
        let valid = (pct * ppb + 50) / 100;
        let mut rng = ChaCha8Rng::seed_from_u64(99);
        let (mut van, mut wla) = (0.0, 0.0);
        for _ in 0..batches {
            let mut lat = Vec::with_capacity(blocks);
            for _ in 0..blocks {
                let mut chosen = std::collections::BTreeSet::new();
                for j in ppb - valid..ppb {
                    let r = rng.gen_range(0..=j);
                    if !chosen.insert(r) {
                        chosen.insert(j);
                    }
                }
                lat.push(chosen.iter().map(|&i| t.page_cost(level_of(i, 4, 4))).sum::<f64>() + t.erase);
            }
            let mut order: Vec<usize> = (0..blocks).collect();
            order.sort_by(|&a, &b| lat[a].total_cmp(&lat[b]).then(a.cmp(&b)));
            van += lat[..500].iter().sum::<f64>() / 500.0;
            wla += order[..500].iter().map(|&i| lat[i]).sum::<f64>() / 500.0;
        }
        let (van, wla) = (van / f64::from(batches), wla / f64::from(batches));
        let p = EmulateParams {
            steps_pct: vec![pct],
            batches,
            ..small(ValidLayout::Exact)
        };
        let s = &emulate(&t, &p).unwrap()[0];
        assert!((s.vanilla_mean / van - 1.0).abs() < 0.003, "vanilla {} vs {van}", s.vanilla_mean);
        assert!((s.wla_mean / wla - 1.0).abs() < 0.003, "wla {} vs {wla}", s.wla_mean);
    }

    #[test]
    fn invalid_parameters_are_errors_naming_the_field() {
        let t = ToyLevels::table_one();
        let ok = small(ValidLayout::Exact);
        let err = |levels: &ToyLevels, p: EmulateParams| emulate(levels, &p).expect_err("should be rejected");
        let lv = |read: Vec<f64>, program: Vec<f64>| ToyLevels { read, program, erase: 1.0 };
        let cases: Vec<(&str, String)> = vec![
            ("blocks", err(&t, EmulateParams { blocks: 0, ..ok.clone() })),
            (
                "blocks",
                err(
                    &t,
                    EmulateParams {
                        blocks: MAX_BLOCKS + 1,
                        ..ok.clone()
                    },
                ),
            ),
            (
                "blocks",
                err(
                    &t,
                    EmulateParams {
                        blocks: usize::MAX,
                        ..ok.clone()
                    },
                ),
            ),
            (
                "pages_per_block",
                err(
                    &t,
                    EmulateParams {
                        pages_per_block: 0,
                        ..ok.clone()
                    },
                ),
            ),
            (
                "pages_per_block",
                err(
                    &t,
                    EmulateParams {
                        pages_per_block: 250,
                        ..ok.clone()
                    },
                ),
            ),
            (
                "pages_per_block",
                err(
                    &t,
                    EmulateParams {
                        pages_per_block: u32::MAX,
                        ..ok.clone()
                    },
                ),
            ),
            (
                "pages_per_level",
                err(
                    &t,
                    EmulateParams {
                        pages_per_level: 0,
                        ..ok.clone()
                    },
                ),
            ),
            (
                "pages_per_block",
                err(
                    &t,
                    EmulateParams {
                        pages_per_level: u32::MAX,
                        ..ok.clone()
                    },
                ),
            ),
            (
                "pick_fraction",
                err(
                    &t,
                    EmulateParams {
                        pick_fraction: 0.0,
                        ..ok.clone()
                    },
                ),
            ),
            (
                "pick_fraction",
                err(
                    &t,
                    EmulateParams {
                        pick_fraction: -0.5,
                        ..ok.clone()
                    },
                ),
            ),
            (
                "pick_fraction",
                err(
                    &t,
                    EmulateParams {
                        pick_fraction: 1.5,
                        ..ok.clone()
                    },
                ),
            ),
            (
                "pick_fraction",
                err(
                    &t,
                    EmulateParams {
                        pick_fraction: f64::NAN,
                        ..ok.clone()
                    },
                ),
            ),
            (
                "pick_fraction",
                err(
                    &t,
                    EmulateParams {
                        pick_fraction: f64::INFINITY,
                        ..ok.clone()
                    },
                ),
            ),
            ("batches", err(&t, EmulateParams { batches: 0, ..ok.clone() })),
            (
                "steps_pct",
                err(
                    &t,
                    EmulateParams {
                        steps_pct: vec![],
                        ..ok.clone()
                    },
                ),
            ),
            (
                "steps_pct",
                err(
                    &t,
                    EmulateParams {
                        steps_pct: vec![5, 101],
                        ..ok.clone()
                    },
                ),
            ),
            ("levels.read", err(&lv(vec![], vec![]), ok.clone())),
            ("levels.read", err(&lv(vec![1.0; 5], vec![1.0; 5]), ok.clone())),
            ("levels.program", err(&lv(vec![1.0; 4], vec![1.0; 3]), ok.clone())),
            ("levels.read[2]", err(&lv(vec![1.0, 1.0, f64::NAN, 1.0], vec![1.0; 4]), ok.clone())),
            ("levels.program[0]", err(&lv(vec![1.0; 4], vec![-1.0, 1.0, 1.0, 1.0]), ok.clone())),
            (
                "levels.erase",
                err(
                    &ToyLevels {
                        erase: f64::INFINITY,
                        ..t.clone()
                    },
                    ok.clone(),
                ),
            ),
            (
                "levels",
                err(
                    &ToyLevels {
                        read: vec![1e306; 4],
                        ..t.clone()
                    },
                    ok.clone(),
                ),
            ),
        ];
        for (field, e) in cases {
            assert!(e.starts_with("emulate: ") && e.contains(field), "{field}: {e}");
        }
        let a = |levels: &ToyLevels, ppl: u32| analytic(levels, ppl).expect_err("should be rejected");
        assert!(a(&t, 0).contains("pages_per_level"));
        assert!(a(&t, u32::MAX).contains("pages_per_level"));
        assert!(a(
            &ToyLevels {
                read: vec![1.0; 2],
                program: vec![1.0],
                erase: 0.0
            },
            4
        )
        .contains("levels.program"));
        assert!(a(
            &ToyLevels {
                read: vec![1e306; 4],
                ..t.clone()
            },
            4
        )
        .contains("levels"));
        assert!(a(
            &ToyLevels {
                read: vec![1.0; 4],
                program: vec![1.0; 4],
                erase: -0.1
            },
            4
        )
        .contains("levels.erase"));
    }

    #[test]
    fn tiny_pools_do_not_panic() {
        let t = ToyLevels::table_one();
        let p = EmulateParams {
            blocks: 1,
            pages_per_block: 16,
            pick_fraction: 1e-9,
            batches: 1,
            steps_pct: vec![0, 1, 50, 100],
            ..small(ValidLayout::Exact)
        };
        for layout in [ValidLayout::Exact, ValidLayout::Bernoulli] {
            let s = emulate(&t, &EmulateParams { layout, ..p.clone() }).unwrap();
            assert!(s.iter().all(|s| s.picked == 1 && s.gain == 0.0));
            assert_eq!(s[0].vanilla_mean, 60.0);
        }
        let one = ToyLevels {
            read: vec![1.0],
            program: vec![1.0],
            erase: 0.0,
        };
        let s = emulate(
            &one,
            &EmulateParams {
                pages_per_block: 3,
                pages_per_level: 3,
                ..p
            },
        )
        .unwrap();
        assert_eq!(s[2].vanilla_mean, 4.0); // round(1.5) = 2 valid pages x 2
    }

    /// `cargo test --release -p flashtail --lib gc::wla::toy -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn print_default_tables() {
        let t = ToyLevels::table_one();
        let a = analytic(&t, 4).unwrap();
        println!(
            "analytic: vanilla {} wla {} gain {:.4} max_gain {:.4}",
            a.vanilla_mean, a.wla_mean, a.gain, a.max_gain
        );
        for layout in [ValidLayout::Exact, ValidLayout::Bernoulli] {
            let p = EmulateParams {
                layout,
                ..EmulateParams::default()
            };
            let t0 = Instant::now();
            let steps = emulate(&t, &p).unwrap();
            let secs = t0.elapsed().as_secs_f64();
            println!("{layout:?}: {secs:.2} s");
            println!("valid_pct, vanilla_mean, wla_mean, gain, vanilla_valid, wla_valid");
            for s in &steps {
                println!(
                    "{}, {:.3}, {:.3}, {:.5}, {:.2}, {:.2}",
                    s.valid_pct, s.vanilla_mean, s.wla_mean, s.gain, s.vanilla_valid, s.wla_valid
                );
            }
            let mean_gain = steps.iter().map(|s| s.gain).sum::<f64>() / steps.len() as f64;
            println!("mean gain {mean_gain:.5}");
        }
    }
}
