//! The victim-selection extension point and the classic policies: greedy, cost-benefit,
//! random, FIFO and d-choices.
//!
//! Candidates are `Sealed` blocks (every page programmed) of the plane with at least
//! `min_invalid` invalid pages. Ties go to the lowest block id, so runs are deterministic.

use crate::ftl::{BlockState, Ftl};
use crate::units::{BlockId, Nanos, PlaneId};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub trait VictimPolicy: Send {
    fn name(&self) -> &str;
    fn select(&mut self, ftl: &Ftl, plane: PlaneId, min_invalid: u32, now: Nanos) -> Option<BlockId>;
}

/// Iterate the candidate blocks of a plane as (block, valid pages).
fn candidates<'a>(ftl: &'a Ftl, plane: PlaneId, min_invalid: u32) -> impl Iterator<Item = (BlockId, u32)> + 'a {
    let first = ftl.geo.first_block(plane).0;
    let ppb = ftl.geo.pages_per_block;
    let b = &ftl.blocks;
    (first..first + ftl.geo.blocks_per_plane).filter_map(move |i| {
        let v = b.valid[i as usize];
        (b.state[i as usize] == BlockState::Sealed && ppb - v >= min_invalid.max(1)).then_some((BlockId(i), v))
    })
}

/// Fewest valid pages.
pub struct Greedy;
impl VictimPolicy for Greedy {
    fn name(&self) -> &str {
        "greedy"
    }
    fn select(&mut self, ftl: &Ftl, plane: PlaneId, min_invalid: u32, _now: Nanos) -> Option<BlockId> {
        candidates(ftl, plane, min_invalid).min_by_key(|&(b, v)| (v, b.0)).map(|(b, _)| b)
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

/// Build a victim policy by name: greedy, cost-benefit, fifo, random, d-choices[:D].
pub fn build_victim(name: &str, seed: u64) -> Result<Box<dyn VictimPolicy>, String> {
    let rng = ChaCha8Rng::seed_from_u64(seed ^ 0x71c7);
    match name {
        "greedy" => Ok(Box::new(Greedy)),
        "cost-benefit" => Ok(Box::new(CostBenefit)),
        "fifo" => Ok(Box::new(Fifo)),
        "random" => Ok(Box::new(RandomVictim(rng))),
        _ if name == "d-choices" || name.starts_with("d-choices:") => {
            let d = match name.split_once(':') {
                Some((_, d)) => d.parse::<usize>().ok().filter(|&d| d > 0).ok_or_else(|| format!("victim policy '{name}': d must be a positive integer"))?,
                None => 10,
            };
            Ok(Box::new(DChoices { d, rng }))
        }
        _ => Err(format!("unknown victim policy '{name}' (known: greedy, cost-benefit, fifo, random, d-choices[:D])")),
    }
}
