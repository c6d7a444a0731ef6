//! The victim-selection extension point and the classic policies: greedy, cost-benefit,
//! random, FIFO and d-choices.
//!
//! Candidates are `Sealed` blocks (every page programmed) of the plane with at least
//! `min_invalid` invalid pages. Ties go to the lowest block id, so runs are deterministic.

use crate::ftl::{BlockState, Ftl};
use crate::nand::{Geometry, Timing};
use crate::units::{BlockId, Nanos, PlaneId};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub trait VictimPolicy: Send {
    fn name(&self) -> &str;
    /// Learn the device before the run (a policy that weighs pages by their timing needs it).
    fn attach(&mut self, _geo: &Geometry, _timing: &Timing) {}
    fn select(&mut self, ftl: &Ftl, plane: PlaneId, min_invalid: u32, now: Nanos) -> Option<BlockId>;
}

/// Iterate the candidate blocks of a plane as (block, valid pages).
pub(crate) fn candidates<'a>(ftl: &'a Ftl, plane: PlaneId, min_invalid: u32) -> impl Iterator<Item = (BlockId, u32)> + 'a {
    let first = ftl.geo.first_block(plane).0;
    let ppb = ftl.geo.pages_per_block;
    let b = &ftl.blocks;
    (first..first + ftl.geo.blocks_per_plane).filter_map(move |i| {
        let v = b.valid[i as usize];
        (b.state[i as usize] == BlockState::Sealed && ppb - v >= min_invalid.max(1)).then_some((BlockId(i), v))
    })
}

/// The candidate with the fewest valid pages, lowest block on ties: greedy's definition,
/// as a plain scan (the reference for `Greedy::select`'s packed-key scan).
fn fewest_valid(ftl: &Ftl, plane: PlaneId, min_invalid: u32) -> Option<BlockId> {
    candidates(ftl, plane, min_invalid).min_by_key(|&(b, v)| (v, b.0)).map(|(b, _)| b)
}

/// The fewest valid pages of any sealed block of `plane` (`None`: no sealed block): the
/// block greedy would take, without choosing it. Branch-free, so the compiler vectorises
/// it: the partial-GC schemes ask it for every plane in their trigger zone after every
/// request (a scalar scan with an early exit was nine tenths of an rlgc-aggressive run).
pub fn fewest_valid_sealed(ftl: &Ftl, plane: PlaneId) -> Option<u32> {
    let first = ftl.geo.first_block(plane).0 as usize;
    let blocks = first..first + ftl.geo.blocks_per_plane as usize;
    let (valid, state) = (&ftl.blocks.valid[blocks.clone()], &ftl.blocks.state[blocks]);
    let lane = |v: u32, st: BlockState| if st == BlockState::Sealed { v } else { u32::MAX };
    // Eight independent minimums, so the loop becomes vector code (a single running
    // minimum over mixed-width slices stayed scalar).
    let mut acc = [u32::MAX; 8];
    let (vs, ss) = (valid.chunks_exact(8), state.chunks_exact(8));
    let (vr, sr) = (vs.remainder(), ss.remainder());
    for (v8, s8) in vs.zip(ss) {
        for i in 0..8 {
            acc[i] = acc[i].min(lane(v8[i], s8[i]));
        }
    }
    let tail = vr.iter().zip(sr).fold(u32::MAX, |m, (&v, &st)| m.min(lane(v, st)));
    let best = acc.iter().fold(tail, |m, &a| m.min(a));
    (best != u32::MAX).then_some(best)
}

/// Fewest valid pages.
pub struct Greedy;
impl VictimPolicy for Greedy {
    fn name(&self) -> &str {
        "greedy"
    }
    /// The same choice as `fewest_valid`, as the minimum of the keys
    /// `valid × blocks_per_plane + index` (they fit in 32 bits: at most the plane's pages
    /// plus its blocks), which the compiler vectorises; it runs once per victim over
    /// every block of the plane, and the iterator took ~20 instructions a block.
    fn select(&mut self, ftl: &Ftl, plane: PlaneId, min_invalid: u32, _now: Nanos) -> Option<BlockId> {
        let first = ftl.geo.first_block(plane).0 as usize;
        let n = ftl.geo.blocks_per_plane;
        let (ppb, need) = (ftl.geo.pages_per_block, min_invalid.max(1));
        if (u64::from(ppb) + 1) * u64::from(n) > u64::from(u32::MAX) {
            // Keys would not fit (a plane of nearly 2^32 pages): the plain scan.
            return fewest_valid(ftl, plane, min_invalid);
        }
        let blocks = first..first + n as usize;
        let (valid, state) = (&ftl.blocks.valid[blocks.clone()], &ftl.blocks.state[blocks]);
        let mut best = u32::MAX;
        for (k, (&v, &st)) in (0u32..).zip(valid.iter().zip(state)) {
            let eligible = (st == BlockState::Sealed) & (ppb - v >= need);
            best = best.min(if eligible { v * n + k } else { u32::MAX });
        }
        let chosen = (best != u32::MAX).then(|| BlockId(first as u32 + best % n));
        debug_assert_eq!(chosen, fewest_valid(ftl, plane, min_invalid));
        chosen
    }
}

/// Cost-benefit (Rosenblum & Ousterhout): maximise age × (1 − u) / (2u).
pub struct CostBenefit;
impl VictimPolicy for CostBenefit {
    fn name(&self) -> &str {
        "cost-benefit"
    }
    fn select(&mut self, ftl: &Ftl, plane: PlaneId, min_invalid: u32, now: Nanos) -> Option<BlockId> {
        let ppb = ftl.geo.pages_per_block as f64;
        let mut best: Option<(f64, BlockId)> = None;
        for (b, v) in candidates(ftl, plane, min_invalid) {
            let u = v as f64 / ppb;
            let age = (now.0.saturating_sub(ftl.blocks.sealed_at[b.idx()]) + 1) as f64;
            let score = if u == 0.0 { f64::INFINITY } else { age * (1.0 - u) / (2.0 * u) };
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, b));
            }
        }
        best.map(|(_, b)| b)
    }
}

/// Oldest sealed block first.
pub struct Fifo;
impl VictimPolicy for Fifo {
    fn name(&self) -> &str {
        "fifo"
    }
    fn select(&mut self, ftl: &Ftl, plane: PlaneId, min_invalid: u32, _now: Nanos) -> Option<BlockId> {
        candidates(ftl, plane, min_invalid).min_by_key(|&(b, _)| (ftl.blocks.sealed_at[b.idx()], b.0)).map(|(b, _)| b)
    }
}

/// Uniformly random candidate (seeded).
pub struct RandomVictim(pub ChaCha8Rng);
impl VictimPolicy for RandomVictim {
    fn name(&self) -> &str {
        "random"
    }
    fn select(&mut self, ftl: &Ftl, plane: PlaneId, min_invalid: u32, _now: Nanos) -> Option<BlockId> {
        let n = candidates(ftl, plane, min_invalid).count();
        if n == 0 {
            return None;
        }
        let k = self.0.gen_range(0..n);
        candidates(ftl, plane, min_invalid).nth(k).map(|(b, _)| b)
    }
}

/// Largest `d` of d-choices: draws per victim choice (4294967295 hung a run; more draws
/// than a plane's blocks only repeat candidates).
pub const D_CHOICES_MAX: usize = 65_536;

/// d-choices: sample `d` candidates at random, take the greediest.
pub struct DChoices {
    pub d: usize,
    pub rng: ChaCha8Rng,
}
impl VictimPolicy for DChoices {
    fn name(&self) -> &str {
        "d-choices"
    }
    fn select(&mut self, ftl: &Ftl, plane: PlaneId, min_invalid: u32, _now: Nanos) -> Option<BlockId> {
        let c: Vec<(BlockId, u32)> = candidates(ftl, plane, min_invalid).collect();
        if c.is_empty() {
            return None;
        }
        (0..self.d).map(|_| c[self.rng.gen_range(0..c.len())]).min_by_key(|&(b, v)| (v, b.0)).map(|(b, _)| b)
    }
}

/// Every victim policy `--victim` accepts, with a one-line description: the one list the
/// error for an unknown name, `flashtail schemes` and the tests use.
pub const VICTIM_POLICIES: &[(&str, &str)] = &[
    ("greedy", "fewest valid pages (ties: lowest block id)"),
    ("cost-benefit", "Rosenblum and Ousterhout: largest age x (1 - u) / 2u"),
    ("fifo", "oldest sealed block"),
    ("random", "a random candidate (seeded)"),
    ("d-choices[:D]", "the greediest of D random candidates (D = 10 by default)"),
    ("wla", "WLA-GC: lowest t_read + t_program of the valid pages' levels"),
    ("splitgc", "splitgc's own rule: fewest non-duplicate valid pages; greedy under a scheme that tracks no content"),
    ("dagc", "dagc's own rule: fewest valid + kept invalid pages; greedy under a scheme that tracks no content"),
];

/// The names of [`VICTIM_POLICIES`], comma-separated.
pub fn victim_policy_names() -> String {
    VICTIM_POLICIES.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
}

/// Build a victim policy by name (one of [`VICTIM_POLICIES`]).
pub fn build_victim(name: &str, seed: u64) -> Result<Box<dyn VictimPolicy>, String> {
    let rng = ChaCha8Rng::seed_from_u64(seed ^ 0x71c7);
    match name {
        "greedy" => Ok(Box::new(Greedy)),
        "cost-benefit" => Ok(Box::new(CostBenefit)),
        "fifo" => Ok(Box::new(Fifo)),
        "random" => Ok(Box::new(RandomVictim(rng))),
        "wla" => Ok(Box::new(super::wla::WordLineAware::default())),
        "splitgc" => Ok(Box::new(super::content::victim::SplitGcVictim)),
        "dagc" => Ok(Box::new(super::content::victim::DagcVictim)),
        _ if name == "d-choices" || name.starts_with("d-choices:") => {
            let d = match name.split_once(':') {
                Some((_, d)) => d
                    .parse::<usize>()
                    .ok()
                    .filter(|&d| (1..=D_CHOICES_MAX).contains(&d))
                    .ok_or_else(|| format!("victim policy '{name}': d must be an integer from 1 to {D_CHOICES_MAX} (random draws per victim choice)"))?,
                None => 10,
            };
            Ok(Box::new(DChoices { d, rng }))
        }
        _ => Err(format!("unknown victim policy '{name}' (known: {})", victim_policy_names())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::presets;
    use crate::units::Lpn;

    /// Plane 0 of the tiny device with 4 sealed blocks holding 30, 10, 20, 32 valid pages
    /// (of 32), sealed at times 400, 300, 200, 100.
    fn ftl() -> Ftl {
        let dev = presets::load("tiny").unwrap();
        let g = &dev.geometry;
        let mut f = Ftl::new(g, dev.logical_pages(), dev.logical_pages());
        let mut lpn = 0;
        for (i, (valid, sealed)) in [(30u32, 400u64), (10, 300), (20, 200), (32, 100)].into_iter().enumerate() {
            let b = BlockId(i as u32);
            f.blocks.state[b.idx()] = BlockState::Sealed;
            f.blocks.allocated[b.idx()] = 32;
            f.blocks.programmed[b.idx()] = 32;
            f.blocks.sealed_at[b.idx()] = sealed;
            for p in 0..valid {
                f.map(Lpn(lpn), g.ppn(b, p));
                lpn += 1;
            }
        }
        f
    }

    /// The listed names are exactly what `build_victim` accepts (the error message and
    /// `flashtail schemes` print the list).
    #[test]
    fn every_listed_victim_policy_builds() {
        for (n, _) in VICTIM_POLICIES {
            let name = n.strip_suffix("[:D]").unwrap_or(n);
            assert_eq!(build_victim(name, 1).unwrap().name(), name, "{n}");
        }
        assert!(build_victim("d-choices:3", 1).is_ok());
        let e = build_victim("bogus", 1).err().unwrap();
        assert_eq!(e, format!("unknown victim policy 'bogus' (known: {})", victim_policy_names()));
        assert!(e.contains("greedy, cost-benefit, fifo, random, d-choices[:D], wla, splitgc, dagc"), "{e}");
    }

    #[test]
    fn greedy_takes_fewest_valid_and_skips_full_blocks() {
        let f = ftl();
        assert_eq!(Greedy.select(&f, PlaneId(0), 1, Nanos(0)), Some(BlockId(1)));
        // A victim must have at least 23 invalid pages: only block 1 (22 invalid) fails too.
        assert_eq!(Greedy.select(&f, PlaneId(0), 23, Nanos(0)), None);
        assert_eq!(Greedy.select(&f, PlaneId(0), 12, Nanos(0)), Some(BlockId(1)));
    }

    /// Run `check` on `rounds` block tables of the tiny device (with `blocks_per_plane`
    /// blocks per plane) whose blocks have random states and valid counts drawn by `count`.
    fn on_random_tables(blocks_per_plane: u32, seed: u64, rounds: usize, count: fn(&mut rand_chacha::ChaCha8Rng) -> u32, mut check: impl FnMut(&Ftl, &crate::nand::Geometry)) {
        use rand::{Rng, SeedableRng};
        let mut dev = presets::load("tiny").unwrap();
        dev.geometry.blocks_per_plane = blocks_per_plane;
        let g = &dev.geometry;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let states = [BlockState::Free, BlockState::Open, BlockState::Full, BlockState::Sealed, BlockState::Victim];
        for _ in 0..rounds {
            let mut f = Ftl::new(g, dev.logical_pages(), dev.logical_pages());
            for b in 0..g.total_blocks() as usize {
                f.blocks.state[b] = states[rng.gen_range(0..states.len())];
                f.blocks.valid[b] = count(&mut rng);
            }
            check(&f, g);
        }
    }

    /// The packed-key scan chooses exactly what the plain minimum over the candidates does,
    /// ties (equal valid counts) going to the lowest block, on every plane and threshold.
    #[test]
    fn greedy_matches_the_plain_minimum_on_random_tables() {
        use rand::Rng;
        let bpp = presets::load("tiny").unwrap().geometry.blocks_per_plane;
        // Few distinct counts, so that ties are common.
        on_random_tables(bpp, 5, 200, |r| [0, 5, 5, 17, 31, 32][r.gen_range(0..6)], |f, g| {
            for p in 0..g.planes() {
                for min_invalid in [0, 1, 2, 15, 27, 32] {
                    let plain = fewest_valid(f, PlaneId(p), min_invalid);
                    assert_eq!(Greedy.select(f, PlaneId(p), min_invalid, Nanos(0)), plain, "plane {p}, min_invalid {min_invalid}");
                }
            }
        });
    }

    /// The vectorised minimum over sealed blocks equals the plain one, on planes of 19
    /// blocks (two chunks of eight and a remainder) with random states and counts.
    #[test]
    fn fewest_valid_sealed_matches_the_plain_minimum() {
        use rand::Rng;
        on_random_tables(19, 6, 300, |r| r.gen_range(0..=32), |f, g| {
            for p in 0..g.planes() {
                let first = g.first_block(PlaneId(p)).0 as usize;
                let plain = (first..first + 19).filter(|&b| f.blocks.state[b] == BlockState::Sealed).map(|b| f.blocks.valid[b]).min();
                assert_eq!(fewest_valid_sealed(f, PlaneId(p)), plain, "plane {p}");
            }
        });
    }

    #[test]
    fn fifo_takes_oldest_candidate_not_the_full_one() {
        let f = ftl();
        // Block 3 is oldest but fully valid (no invalid page): block 2 is the oldest candidate.
        assert_eq!(Fifo.select(&f, PlaneId(0), 1, Nanos(0)), Some(BlockId(2)));
    }

    #[test]
    fn cost_benefit_weighs_age_against_utilisation() {
        let f = ftl();
        // At t = 1000: scores age*(1-u)/2u: b0 601*0.0667 = 40, b1 701*1.1 = 771, b2 801*0.3 = 240.
        assert_eq!(CostBenefit.select(&f, PlaneId(0), 1, Nanos(1000)), Some(BlockId(1)));
    }

    #[test]
    fn random_and_dchoices_are_seeded_and_pick_candidates() {
        let f = ftl();
        let pick = |name: &str| {
            let mut v = build_victim(name, 9).unwrap();
            (0..20).map(|_| v.select(&f, PlaneId(0), 1, Nanos(0)).unwrap().0).collect::<Vec<_>>()
        };
        let a = pick("random");
        assert_eq!(a, pick("random"));
        assert!(a.iter().all(|&b| b < 3), "the full block is never a candidate");
        assert!(a.contains(&0) && a.contains(&1) && a.contains(&2));
        // d-choices with d = 3 over 3 candidates usually sees the greediest.
        let d = pick("d-choices:3");
        assert!(d.iter().filter(|&&b| b == 1).count() >= 10);
        assert!(build_victim("d-choices:0", 1).is_err());
        let e = build_victim("d-choices:4294967295", 1).err().unwrap();
        assert!(e.contains("from 1 to 65536"), "{e}");
        assert!(build_victim("d-choices:65536", 1).is_ok());
        assert!(build_victim("lru", 1).err().is_some_and(|e| e.contains("unknown victim policy")));
    }
}
