//! Preconditioning: put the device into a used state by setting the maps directly (no
//! timing), in seconds even for a 1 TiB device.
//!
//! Two models (see `config::Precondition`):
//! - `steady`: `fill` of the logical pages (a seeded Bernoulli choice) hold version-1 data on
//!   their static plane; each plane keeps `soft threshold + margin` free blocks; the used
//!   blocks carry the invalid pages, their valid ratio spread linearly from low to full as
//!   greedy GC leaves a drive in service, valid pages scattered inside each block.
//! - `aged`: the ttFlash artifact's SSDsim aging with ratio r: block after block gets its
//!   first ⌈r·P⌉ pages invalid until r/2 of the plane is invalid; the r/2 valid data fills
//!   the rest of those blocks and then whole blocks; 1 − r stays free. (SSDsim leaves the
//!   tails of aged blocks free for appends; a block-granular FTL fills them with the valid
//!   data instead, which keeps the same valid/invalid/free page counts.)
//!
//! Not modelled: wear (erase counts start at 0).

use super::blocks::BlockState;
use super::mapping::Ftl;
use super::rain::Rain;
use crate::config::{DeviceConfig, Precondition};
use crate::units::{Lpn, PlaneId};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// What preconditioning did, for the run report.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct PreconditionSummary {
    pub model: String,
    pub mapped_pages: u64,
    pub invalid_pages: u64,
    pub free_blocks: u64,
    pub used_blocks: u64,
}

#[derive(Clone, Copy)]
enum Pattern {
    /// `valid` pages at random positions.
    Scattered,
    /// The first `n` pages invalid, valid pages right after them.
    InvalidPrefix(u32),
}

struct BlockPlan {
    valid: u32,
    pattern: Pattern,
}

struct Cursor {
    plan: Vec<BlockPlan>,
    block: usize,
    pos: u32,
    left_valid: u32,
}

/// Apply the configured preconditioning. `on_valid(lpn, ppn)` lets the caller record
/// oracle versions for every page made valid.
/// `place` gives the plane of a logical id; with `rain`, every stripe holding data also gets
/// its (current) parity page. Without `rain`, ids are striped statically and `place` must be
/// `Geometry::static_plane`: that repeats every `planes()` ids, so it is read from a table
/// instead (two calls per page of a 1 TiB device are otherwise a third of the time).
pub fn precondition(
    ftl: &mut Ftl,
    dev: &DeviceConfig,
    seed: u64,
    place: &dyn Fn(u32) -> PlaneId,
    rain: Option<&Rain>,
    mut on_valid: impl FnMut(Lpn, u32),
) -> Result<PreconditionSummary, String> {
    let geo = ftl.geo.clone();
    let p = geo.pages_per_block;
    let planes = geo.planes() as usize;
    let (fill, model) = match &dev.precondition {
        Precondition::None => return Ok(PreconditionSummary { model: "none".into(), free_blocks: geo.total_blocks() as u64, ..Default::default() }),
        Precondition::Steady { fill, .. } => (*fill, "steady"),
        Precondition::Aged { ratio } => {
            // Valid pages = r/2 of the device, parity pages (RAIN) included.
            let want = ratio / 2.0 * geo.total_pages_u64() as f64;
            (fill_for(want, ftl.logical_pages as f64, rain), "aged")
        }
    };
    // Pass 1: choose the mapped logical pages (bitset) and count them per plane.
    let data = ftl.logical_pages as usize;
    let n = ftl.l2p.len();
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x0005_eed0_fa9e);
    let mut bits = vec![0u64; n.div_ceil(64)];
    let mut per_plane = vec![0u32; planes];
    let threshold = (fill * (u32::MAX as f64)) as u64;
    let table: Vec<PlaneId> = if rain.is_none() { (0..geo.planes()).map(|l| geo.static_plane(Lpn(l))).collect() } else { Vec::new() };
    debug_assert!(table.iter().enumerate().all(|(l, &p)| place(l as u32) == p));
    // A mask instead of a division when the plane count is a power of two (every preset):
    // two divisions per logical page were a tenth of the time on a 1 TiB device.
    let planes_u = planes as u32;
    let mask = planes_u.is_power_of_two().then(|| planes_u - 1);
    let place = |l: u32| {
        if table.is_empty() {
            place(l)
        } else {
            table[match mask {
                Some(m) => l & m,
                None => l % planes_u,
            } as usize]
        }
    };
    for l in 0..data {
        if fill >= 1.0 || (rng.gen::<u32>() as u64) < threshold {
            bits[l / 64] |= 1 << (l % 64);
            per_plane[place(l as u32).idx()] += 1;
            if let Some(r) = rain {
                let pid = r.parity_id(r.stripe_of(l as u32)) as usize;
                if bits[pid / 64] & (1 << (pid % 64)) == 0 {
                    bits[pid / 64] |= 1 << (pid % 64);
                    per_plane[place(pid as u32).idx()] += 1;
                }
            }
        }
    }
    // Plan each plane's used blocks.
    let soft = dev.soft_threshold_blocks();
    let mut cursors = Vec::with_capacity(planes);
    for (pl, &v) in per_plane.iter().enumerate() {
        let plan = match &dev.precondition {
            Precondition::Steady { free_blocks_margin, .. } => {
                plan_steady(v, p, geo.blocks_per_plane, soft + free_blocks_margin + dev.ftl.gc_reserved_blocks)
            }
            Precondition::Aged { ratio } => plan_aged(v, p, geo.blocks_per_plane, *ratio),
            Precondition::None => unreachable!(),
        };
        let need: u64 = plan.iter().map(|b| b.valid as u64).sum();
        if need != v as u64 || plan.len() as u32 > geo.blocks_per_plane {
            return Err(format!("preconditioning: plane {pl} cannot hold {v} valid pages"));
        }
        let left_valid = plan.first().map_or(0, |b| b.valid);
        cursors.push(Cursor { plan, block: 0, pos: 0, left_valid });
    }
    // Pass 2: place each mapped page into the next valid slot of its plane's plan.
    let mut rngs: Vec<ChaCha8Rng> = (0..planes).map(|i| ChaCha8Rng::seed_from_u64(seed.wrapping_add(i as u64 * 7919))).collect();
    for l in 0..n {
        if bits[l / 64] & (1 << (l % 64)) == 0 {
            continue;
        }
        let lpn = Lpn(l as u32);
        let pl = place(l as u32);
        let c = &mut cursors[pl.idx()];
        while c.left_valid == 0 {
            c.block += 1;
            c.pos = 0;
            c.left_valid = c.plan[c.block].valid;
        }
        let b = c.plan[c.block].pattern;
        let slot = match b {
            Pattern::InvalidPrefix(k) => {
                let s = k.max(c.pos);
                c.pos = s + 1;
                s
            }
            Pattern::Scattered => loop {
                // Selection sampling: take this position with probability left/remaining.
                let remaining = p - c.pos;
                let s = c.pos;
                c.pos += 1;
                if rngs[pl.idx()].gen_range(0..remaining) < c.left_valid {
                    break s;
                }
            },
        };
        c.left_valid -= 1;
        let block = geo.first_block(pl).0 + c.block as u32;
        let ppn = geo.ppn(crate::units::BlockId(block), slot);
        ftl.map(lpn, ppn);
        on_valid(lpn, ppn.0);
    }
    // Seal the used blocks (fully programmed) and take them out of the free pools.
    let mut summary = PreconditionSummary { model: model.into(), ..Default::default() };
    for pl in 0..planes {
        let used = cursors[pl].plan.len() as u32;
        let first = geo.first_block(PlaneId(pl as u32)).0;
        let pb = &mut ftl.blocks.planes[pl];
        pb.free.retain(|b| b.0 >= first + used);
        for k in 0..used {
            let i = (first + k) as usize;
            ftl.blocks.state[i] = BlockState::Sealed;
            ftl.blocks.allocated[i] = p;
            ftl.blocks.programmed[i] = p;
            ftl.blocks.sealed_at[i] = 0;
            summary.invalid_pages += (p - ftl.blocks.valid[i]) as u64;
        }
        summary.used_blocks += used as u64;
        summary.free_blocks += pb.free.len() as u64;
        summary.mapped_pages += per_plane[pl] as u64;
    }
    Ok(summary)
}

/// The data fill whose expected valid pages (data, plus one parity page per stripe with any
/// data) equal `want` (bisection: the expectation grows with the fill).
fn fill_for(want: f64, data: f64, rain: Option<&Rain>) -> f64 {
    let mapped = |f: f64| match rain {
        Some(r) => f * data + r.stripes as f64 * (1.0 - (1.0 - f).powi(r.width as i32 - 1)),
        None => f * data,
    };
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    if mapped(hi) <= want {
        return 1.0;
    }
    for _ in 0..60 {
        let mid = (lo + hi) / 2.0;
        if mapped(mid) < want {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Valid counts for the used blocks of a steady-state plane holding `v` valid pages and
/// keeping `keep_free` blocks free.
fn plan_steady(v: u32, p: u32, blocks: u32, keep_free: u32) -> Vec<BlockPlan> {
    let min_used = v.div_ceil(p);
    let used = blocks.saturating_sub(keep_free).max(min_used);
    if used == 0 {
        return Vec::new();
    }
    let mean = v as f64 / (used as f64 * p as f64);
    // Linear ramp of valid ratios with the right mean, clamped to [0, 1].
    let (lo, hi) = if mean >= 0.5 { (2.0 * mean - 1.0, 1.0) } else { (0.0, 2.0 * mean) };
    let mut counts: Vec<u32> = (0..used)
        .map(|k| {
            let t = if used == 1 { 0.5 } else { k as f64 / (used - 1) as f64 };
            ((lo + (hi - lo) * t) * p as f64).floor().min(p as f64) as u32
        })
        .collect();
    // Fix rounding so the counts add up to `v` exactly.
    let mut sum: i64 = counts.iter().map(|&c| c as i64).sum();
    let mut k = counts.len();
    while sum < v as i64 {
        k = if k == 0 { counts.len() - 1 } else { k - 1 };
        if counts[k] < p {
            counts[k] += 1;
            sum += 1;
        }
    }
    let mut k = 0;
    while sum > v as i64 {
        if counts[k] > 0 {
            counts[k] -= 1;
            sum -= 1;
        }
        k = (k + 1) % counts.len();
    }
    counts.into_iter().map(|valid| BlockPlan { valid, pattern: Pattern::Scattered }).collect()
}

/// The ttFlash/SSDsim aging layout for a plane holding `v` valid pages. When the valid data
/// and the invalid prefixes cannot both fit (high ratios, parity pages), fewer blocks get an
/// invalid prefix: the summary reports the invalid pages actually laid out.
fn plan_aged(v: u32, p: u32, blocks: u32, ratio: f64) -> Vec<BlockPlan> {
    let prefix = ((ratio * p as f64).ceil() as u32).min(p);
    let mut invalid_target = (ratio / 2.0 * (blocks as f64 * p as f64)).round() as u64;
    // Keep 4 blocks free for the frontiers and the GC reserve.
    let avail = blocks.saturating_sub(4) as u64;
    if prefix > 0 && prefix < p {
        loop {
            let k = invalid_target.div_ceil(prefix as u64);
            let in_prefix = (k * (p - prefix) as u64).min(v as u64);
            let full = (v as u64 - in_prefix).div_ceil(p as u64);
            if k + full <= avail || invalid_target == 0 {
                break;
            }
            invalid_target = invalid_target.saturating_sub(prefix as u64);
        }
    }
    let mut plan = Vec::new();
    let mut invalid = 0u64;
    let mut left = v;
    while invalid < invalid_target && prefix > 0 && (plan.len() as u32) < blocks {
        let n = prefix.min((invalid_target - invalid) as u32);
        let valid = left.min(p - n);
        left -= valid;
        invalid += (p - valid) as u64;
        plan.push(BlockPlan { valid, pattern: Pattern::InvalidPrefix(n) });
    }
    while left > 0 {
        let valid = left.min(p);
        left -= valid;
        plan.push(BlockPlan { valid, pattern: Pattern::Scattered });
    }
    plan
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::presets;

    #[test]
    fn steady_fill_keeps_threshold_and_maps_right() {
        let dev = presets::load("tiny").unwrap();
        let mut dev = dev;
        dev.precondition = Precondition::Steady { fill: 0.8, free_blocks_margin: 1 };
        let mut ftl = Ftl::new(&dev.geometry, dev.logical_pages(), dev.logical_pages());
        let mut count = 0;
        let geo = dev.geometry.clone();
        let s = precondition(&mut ftl, &dev, 1, &|l| geo.static_plane(Lpn(l)), None, |_, _| count += 1).unwrap();
        ftl.check_invariants().unwrap();
        assert_eq!(s.mapped_pages, count);
        let expect = 0.8 * dev.logical_pages() as f64;
        assert!((count as f64 - expect).abs() < 0.1 * expect, "{count} vs {expect}");
        for pl in 0..dev.geometry.planes() {
            let f = ftl.free_blocks(PlaneId(pl));
            assert_eq!(f, dev.soft_threshold_blocks() + 1 + dev.ftl.gc_reserved_blocks, "plane {pl}");
        }
    }

    #[test]
    fn aged_layout_matches_ratio() {
        let mut dev = presets::load("tiny").unwrap();
        dev.precondition = Precondition::Aged { ratio: 0.5 };
        let mut ftl = Ftl::new(&dev.geometry, dev.logical_pages(), dev.logical_pages());
        let geo = dev.geometry.clone();
        let s = precondition(&mut ftl, &dev, 3, &|l| geo.static_plane(Lpn(l)), None, |_, _| {}).unwrap();
        ftl.check_invariants().unwrap();
        let total = dev.geometry.total_pages_u64();
        // r/2 invalid (up to rounding per plane), r/2 valid (Bernoulli), 1 - r free.
        assert!((s.invalid_pages as f64 - 0.25 * total as f64).abs() <= 0.05 * total as f64, "{}", s.invalid_pages);
        let free_pages = s.free_blocks * dev.geometry.pages_per_block as u64;
        assert!((free_pages as f64 / total as f64 - 0.5).abs() < 0.06, "free {free_pages}");
        // First block of a plane: first 16 pages invalid, the rest valid.
        let b = dev.geometry.first_block(PlaneId(0));
        for i in 0..16 {
            assert!(!ftl.is_valid(dev.geometry.ppn(b, i)));
        }
        assert!(ftl.is_valid(dev.geometry.ppn(b, 16)));
    }
}
