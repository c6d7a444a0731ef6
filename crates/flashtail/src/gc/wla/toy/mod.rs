//! The WLA-GC paper's two idealised experiments (de Campos et al., "Word-Line-Aware Garbage
//! Collector for QLC-based NAND Flash Memories", IEEE Latin America Transactions), so that
//! their numbers can be checked and compared with what the simulator measures.
//!
//! # The model
//! A word-line holds `bits` levels (LSB..TSB) of `pages_per_level` 4 KiB logical pages each
//! (QLC in the paper: 4 x 4 = 16 pages). Page `i` of a block sits on level
//! `(i % (bits * pages_per_level)) / pages_per_level` ([`level_of`]), the simulator's layout
//! rule. Moving a valid page costs `read[level] + program[level]`, so a victim block costs
//! `latency = sum over valid pages (read[level] + program[level]) + erase` (the paper's
//! equations (1)-(3), with a per-level `t_program` as in Table I). Vanilla GC ranks blocks by
//! valid-page count only; WLA-GC ranks them by that latency.
//!
//! - [`analytic`] is Section IV-A: one word-line filled a page at a time, vanilla taking the
//!   worst placement of `n` valid pages and WLA the best. It is a bound on what placement can
//!   be worth, not something a victim choice achieves (25.4% with Table I).
//! - [`emulate`] is Section IV-B: pools of blocks with random valid pages; each policy picks a
//!   fraction of them and we compare the mean latency of the picks. That is what choosing
//!   among random blocks actually gains.
//!
//! # What this is not
//! There are no queues, no channel or bus transfers, no die or plane contention, no device
//! timing, and no FTL state that evolves under a workload: blocks are independent random
//! draws, and the costs are the paper's illustrative units. The simulator's `wla` victim
//! policy, running real traces against the timed device, is the real thing; this module only
//! reproduces the paper's arithmetic so its claims can be checked.
//!
//! # Deliberate departures from the public C emulator
//! The paper's Section IV-B numbers (up to 55% at 5% valid, 17.7% on average) come from
//! `codes/src/equation.c` in github.com/campescassiano/ieee-latin-america-wla-gc-paper. Its
//! defects are NOT reproduced, because each one changes the measurement:
//! - Its WLA loop never resets its running minimum after a pick, so after the first pick no
//!   unselected block is lower and it copies the same cheapest block again and again: its WLA
//!   total is `k x` the single best block, which inflates the gain. Here each policy picks `k`
//!   *distinct* blocks, the `k` lowest keys ([`pick_lowest`]).
//! - Its "vanilla" copies blocks chosen by a coin flip into a list it then ignores, and costs
//!   `blocks[0..k]`: either way a random sample, not the fewest valid pages. Here vanilla picks
//!   the fewest valid pages, ties to the lowest index (the simulator's greedy rule).
//! - Its per-policy totals are never reset between batches and the running totals are added
//!   again each batch, so the "average" is not one. Here every (step, batch) starts from fresh
//!   blocks and fresh totals, and the step reports the mean over batches.
//! - It seeds `rand()` from the CPU time-stamp counter, so no run can be repeated. Here each
//!   (seed, valid %, batch) gets its own `ChaCha8Rng` seed (SplitMix64-derived): same
//!   parameters, same numbers, and a step's numbers do not depend on which other steps run.
//! - Its constants are not Table I's (read weights 1/2/3/4, a flat write weight 2, erase 9, and
//!   a selection weight of read terms only). Here the costs are [`ToyLevels`] (Table I by
//!   default) and WLA's key is the full latency.
//!
//! # Sampling
//! A block's latency depends only on how many valid pages each level holds, and every level
//! holds `pages_per_block / bits` pages, so blocks are drawn as per-level counts, never as page
//! bitmaps: [`ValidLayout::Exact`] (exactly `K` valid pages at uniformly random positions) is a
//! multivariate hypergeometric draw, done level by level by inversion; [`ValidLayout::Bernoulli`]
//! (each page valid with probability `pct%`, as in the C emulator) is an independent binomial
//! count per level, by inversion of its CDF. Both are the same distributions as placing pages
//! one by one, at a cost per block of a few random numbers instead of thousands.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

/// Most levels per cell the model supports (QLC).
pub const MAX_LEVELS: usize = 4;
/// Most blocks [`emulate`] accepts per pool (4x the paper's 1,000,000); bounds memory.
pub const MAX_BLOCKS: usize = 1 << 22;
/// Most pages per block (and per word-line in [`analytic`]); bounds memory and run time.
pub const MAX_PAGES_PER_BLOCK: u32 = 1 << 20;

/// Per-level costs of the toy model in the paper's units (µs).
#[derive(Clone, Debug, PartialEq)]
pub struct ToyLevels {
    /// Read time of a page, by level (0 = LSB).
    pub read: Vec<f64>,
    /// Program time of a page written at the same level elsewhere (`t_program`), by level.
    pub program: Vec<f64>,
    /// Erase time of a block.
    pub erase: f64,
}

impl ToyLevels {
    /// Table I: read 1/2/2.5/3, write = t_program 2/3/3.5/4, erase 60.
    pub fn table_one() -> ToyLevels {
        ToyLevels {
            read: vec![1.0, 2.0, 2.5, 3.0],
            program: vec![2.0, 3.0, 3.5, 4.0],
            erase: 60.0,
        }
    }

    /// Levels per cell: `read.len()` (saturating at `u32::MAX`).
    pub fn bits(&self) -> u32 {
        u32::try_from(self.read.len()).unwrap_or(u32::MAX)
    }

    /// Cost of moving one valid page of `level`: `read[level] + program[level]`; NaN for a
    /// level the model does not have (no panic).
    pub fn page_cost(&self, level: usize) -> f64 {
        match (self.read.get(level), self.program.get(level)) {
            (Some(r), Some(p)) => r + p,
            _ => f64::NAN,
        }
    }

    /// 1..=4 levels, `read.len() == program.len()`, every cost finite and `>= 0`.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.read.len();
        if n == 0 || n > MAX_LEVELS {
            return Err(format!("levels.read: {n} levels given; 1..={MAX_LEVELS} are supported"));
        }
        if self.program.len() != n {
            return Err(format!("levels.program: {} entries, but levels.read has {n}", self.program.len()));
        }
        for (name, v) in [("read", &self.read), ("program", &self.program)] {
            if let Some((i, x)) = v.iter().enumerate().find(|(_, x)| !(x.is_finite() && **x >= 0.0)) {
                return Err(format!("levels.{name}[{i}] must be finite and >= 0 (got {x})"));
            }
        }
        if !(self.erase.is_finite() && self.erase >= 0.0) {
            return Err(format!("levels.erase must be finite and >= 0 (got {})", self.erase));
        }
        Ok(())
    }

    /// The largest per-page cost.
    fn max_page_cost(&self) -> f64 {
        (0..self.read.len()).map(|l| self.page_cost(l)).fold(0.0, f64::max)
    }
}

/// Level (0 = LSB) of page `page` of a block: `(page % (bits * pages_per_level)) /
/// pages_per_level`, the simulator's layout; 0 when `bits` or `pages_per_level` is 0.
pub fn level_of(page: u32, bits: u32, pages_per_level: u32) -> usize {
    match bits.checked_mul(pages_per_level) {
        Some(wl) if wl > 0 => crate::nand::geometry::level_in_block(page, bits, pages_per_level),
        _ => 0,
    }
}

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

/// `1 - wla/vanilla`, 0 when vanilla costs nothing.
pub fn gain_of(vanilla: f64, wla: f64) -> f64 {
    if vanilla > 0.0 {
        1.0 - wla / vanilla
    } else {
        0.0
    }
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

/// How [`emulate`] places the valid pages of a block.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ValidLayout {
    /// every block has exactly round(pct% x pages) valid pages at uniformly random positions
    Exact,
    /// each page valid independently with probability pct%
    Bernoulli,
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

/// Indices of the `k` smallest `keys` (`k` clamped to `keys.len()`), distinct, in increasing
/// (key, index) order: equal keys go to the lowest index. Keys compare by [`f64::total_cmp`]
/// with -0.0 treated as 0.0 (so a NaN sorts after every number).
pub fn pick_lowest(keys: &[f64], k: usize) -> Vec<usize> {
    let k = k.min(keys.len());
    if k == 0 {
        return Vec::new();
    }
    let mut pairs: Vec<(f64, usize)> = keys.iter().enumerate().map(|(i, &x)| (if x == 0.0 { 0.0 } else { x }, i)).collect();
    let cmp = |a: &(f64, usize), b: &(f64, usize)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
    if k < pairs.len() {
        pairs.select_nth_unstable_by(k - 1, cmp);
        pairs.truncate(k);
    }
    pairs.sort_unstable_by(cmp);
    pairs.into_iter().map(|(_, i)| i).collect()
}

/// SplitMix64's output function: decorrelates nearby seeds.
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of one (valid %, batch) pool.
fn pool_seed(seed: u64, pct: u32, batch: u32) -> u64 {
    splitmix64(splitmix64(splitmix64(seed) ^ u64::from(pct)) ^ u64::from(batch))
}

/// `ln(k!)` for `k = 0..=n`.
fn ln_factorials(n: u32) -> Vec<f64> {
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
fn hypergeometric<R: Rng>(rng: &mut R, lf: &[f64], pop: u32, succ: u32, draws: u32) -> u32 {
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
fn binomial_cdf(lf: &[f64], n: u32, p: f64) -> Vec<f64> {
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
fn sample_cdf<R: Rng>(rng: &mut R, cdf: &[f64]) -> u32 {
    let total = cdf.last().copied().unwrap_or(0.0);
    let u = rng.gen::<f64>() * total;
    cdf.partition_point(|&c| c <= u).min(cdf.len().saturating_sub(1)) as u32
}

/// How one step draws a block's per-level valid counts.
enum Sampler {
    /// Every level holds this many valid pages (0% and 100%).
    Const(u32),
    /// Exactly this many valid pages per block, uniformly placed.
    Exact(u32),
    /// Independent binomial count per level, from this CDF table.
    Binomial(Vec<f64>),
}

/// Validated parameters plus the tables every step shares.
struct Ctx<'a> {
    p: &'a EmulateParams,
    costs: Vec<f64>,
    erase: f64,
    /// Pages per level in a block.
    per_level: u32,
    /// Blocks each policy picks.
    k: usize,
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
            erase: levels.erase,
            per_level: p.pages_per_block / bits,
            k,
            lf: ln_factorials(p.pages_per_block),
        })
    }

    fn sampler(&self, pct: u32) -> Sampler {
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
    fn draw_block<R: Rng>(&self, rng: &mut R, sampler: &Sampler, counts: &mut [u32]) {
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
    fn table_one_is_the_paper() {
        let t = ToyLevels::table_one();
        assert_eq!(t.bits(), 4);
        assert_eq!((0..4).map(|l| t.page_cost(l)).collect::<Vec<_>>(), vec![3.0, 5.0, 6.0, 7.0]);
        assert!(t.page_cost(4).is_nan());
        assert_eq!(t.erase, 60.0);
        assert!(t.validate().is_ok());
    }

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

    #[test]
    fn level_layout_rule() {
        assert_eq!(
            (0..20).map(|i| level_of(i, 4, 4)).collect::<Vec<_>>(),
            [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 0, 0, 0, 0]
        );
        assert_eq!((0..5).map(|i| level_of(i, 4, 1)).collect::<Vec<_>>(), [0, 1, 2, 3, 0]);
        assert_eq!(level_of(7, 0, 4), 0);
        // Every level holds pages_per_block / bits pages: what the count-based sampling assumes.
        let mut per = [0u32; 4];
        (0..4096).for_each(|i| per[level_of(i, 4, 4)] += 1);
        assert_eq!(per, [1024; 4]);
    }

    #[test]
    fn pick_lowest_ties_go_to_lowest_index_and_picks_are_distinct() {
        let keys = [3.0, 1.0, 2.0, 1.0, 1.0, 0.5];
        assert_eq!(pick_lowest(&keys, 0), Vec::<usize>::new());
        assert_eq!(pick_lowest(&keys, 1), [5]);
        assert_eq!(pick_lowest(&keys, 3), [5, 1, 3]);
        assert_eq!(pick_lowest(&keys, 4), [5, 1, 3, 4]);
        assert_eq!(pick_lowest(&keys, 99), [5, 1, 3, 4, 2, 0]);
        assert_eq!(pick_lowest(&[0.0, -0.0], 1), [0]);
        assert_eq!(pick_lowest(&[f64::NAN, 1.0], 1), [1]);
        // All equal: the first k, each once (the C emulator's WLA returned one block k times).
        let same = vec![7.0; 1000];
        assert_eq!(pick_lowest(&same, 250), (0..250).collect::<Vec<_>>());
        // Against a full sort on many duplicate keys.
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let keys: Vec<f64> = (0..5000).map(|_| f64::from(rng.gen_range(0..40u32))).collect();
        let mut all: Vec<usize> = (0..keys.len()).collect();
        all.sort_by(|&a, &b| keys[a].total_cmp(&keys[b]).then(a.cmp(&b)));
        let got = pick_lowest(&keys, 1234);
        assert_eq!(got, all[..1234]);
        let mut d = got.clone();
        d.sort_unstable();
        d.dedup();
        assert_eq!(d.len(), 1234);
    }

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
