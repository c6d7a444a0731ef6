//! Word-line-aware GC (WLA-GC, de Campos et al., IEEE Latin America Transactions): pick the
//! victim whose valid pages are cheapest to move, given the levels they sit on.
//!
//! On multi-level cells a page's read and program times grow with its level (LSB .. TSB),
//! so two blocks with the same number of valid pages can differ in migration time. The
//! paper's victim cost (its Eq. 2-3, the WLA-GC paper "Victim cost") is
//! `Σ over valid pages (t_read(level) + t_program(level)) + t_erase`; vanilla GC picks by the
//! count of valid pages alone (ties by block order), WLA-GC by the lowest cost.
//!
//! What this models: the selection rule, on the block table's per-level valid counts, which
//! the FTL keeps up to date as pages are programmed and invalidated (`BlockTable::level_valid`),
//! so choosing a victim costs one weighted sum per block of the plane, never a page scan
//! (the paper's full table scan was its bottleneck, §IV-B). `t_erase` is the same for every
//! block and so is left out of the comparison. The weight uses the *source* page's level for
//! the program term, as the paper does; in the simulator a moved page is programmed at the
//! level of the GC frontier's next page, so the time a move really takes is the source
//! level's tR plus the destination's tPROG (the engine's timing, not this estimate).
//!
//! Does not do: the paper's toy block-pool experiments (`toy/`).

pub mod toy;

use super::victim::{candidates, VictimPolicy};
use crate::ftl::Ftl;
use crate::nand::{Geometry, Timing};
use crate::units::{BlockId, Nanos, PlaneId};

/// WLA-GC's victim policy: the candidate with the lowest migration cost, lowest block on ties.
#[derive(Clone, Debug, Default)]
pub struct WordLineAware {
    /// t_read + t_program of a page of each level, ns (set by [`VictimPolicy::attach`]).
    cost: [u64; 4],
}

impl WordLineAware {
    /// Migration cost (without the erase) of block `b`: its valid pages weighted by level.
    pub fn cost_of(&self, ftl: &Ftl, b: BlockId) -> u64 {
        match ftl.blocks.level_valid.get(b.idx()) {
            Some(levels) => levels.iter().zip(&self.cost).map(|(&n, &c)| u64::from(n) * c).sum(),
            // One bit per cell: every page costs the same.
            None => u64::from(ftl.blocks.valid[b.idx()]) * self.cost[0],
        }
    }
}

impl VictimPolicy for WordLineAware {
    fn name(&self) -> &str {
        "wla"
    }

    fn attach(&mut self, geo: &Geometry, timing: &Timing) {
        for (l, c) in self.cost.iter_mut().enumerate() {
            let level = l.min(geo.bits_per_cell.max(1) as usize - 1);
            *c = (timing.read(level) + timing.program(level)).0;
        }
    }

    fn select(&mut self, ftl: &Ftl, plane: PlaneId, min_invalid: u32, _now: Nanos) -> Option<BlockId> {
        debug_assert!(self.cost[0] > 0, "WordLineAware::attach sets the level costs before use");
        candidates(ftl, plane, min_invalid).min_by_key(|&(b, _)| (self.cost_of(ftl, b), b.0)).map(|(b, _)| b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::presets;
    use crate::ftl::BlockState;
    use crate::gc::victim::Greedy;
    use crate::units::Lpn;

    /// A QLC plane (one page per level, 16 pages per block) with per-level times in the
    /// proportions of the paper's Fig. 4 (1, 2, 3.5, 4 µs for read and program alike).
    fn qlc() -> (Geometry, Timing) {
        let dev = presets::load("tiny").unwrap();
        let mut g = dev.geometry;
        g.bits_per_cell = 4;
        g.pages_per_block = 16;
        let mut t = dev.timing;
        t.read_ns = vec![1_000, 2_000, 3_500, 4_000];
        t.program_ns = t.read_ns.clone();
        (g, t)
    }

    /// Seal block `b` with valid pages at the given page indices.
    fn fill(ftl: &mut Ftl, b: u32, pages: &[u32], lpn: &mut u32) {
        let g = ftl.geo.clone();
        let i = b as usize;
        ftl.blocks.state[i] = BlockState::Sealed;
        ftl.blocks.allocated[i] = g.pages_per_block;
        ftl.blocks.programmed[i] = g.pages_per_block;
        for &p in pages {
            ftl.map(Lpn(*lpn), g.ppn(BlockId(b), p));
            *lpn += 1;
        }
    }

    /// The paper's Fig. 4: two blocks with the same number of valid pages; block 0's sit on
    /// the top levels (3.5 + 4 µs, twice: read and program), block 1's on the bottom ones
    /// (1 + 2 µs). Vanilla (greedy) takes block 0 by block order; WLA-GC takes block 1, whose
    /// migration costs 6 µs against 15 µs (26 µs against 35 µs with the 20 µs erase).
    #[test]
    fn picks_the_block_whose_valid_pages_sit_on_fast_levels() {
        let (g, t) = qlc();
        let mut ftl = Ftl::new(&g, 1000, 1000);
        let mut lpn = 0;
        fill(&mut ftl, 0, &[2, 3], &mut lpn);
        fill(&mut ftl, 1, &[4, 5], &mut lpn);
        let mut wla = WordLineAware::default();
        wla.attach(&g, &t);
        assert_eq!(wla.cost_of(&ftl, BlockId(0)), 15_000);
        assert_eq!(wla.cost_of(&ftl, BlockId(1)), 6_000);
        assert_eq!(Greedy.select(&ftl, PlaneId(0), 1, Nanos(0)), Some(BlockId(0)));
        assert_eq!(wla.select(&ftl, PlaneId(0), 1, Nanos(0)), Some(BlockId(1)));
        // Cost, not count: block 2's three LSB pages (3 x 2 µs) weigh less than block 3's two
        // TSB pages (2 x 8 µs), which greedy would take first.
        fill(&mut ftl, 2, &[0, 4, 8], &mut lpn);
        fill(&mut ftl, 3, &[3, 7], &mut lpn);
        assert_eq!((wla.cost_of(&ftl, BlockId(2)), wla.cost_of(&ftl, BlockId(3))), (6_000, 16_000));
        // Invalidating block 1's LSB page (LPN 2, page 4) takes its term off at once.
        ftl.unmap(Lpn(2));
        assert_eq!(wla.cost_of(&ftl, BlockId(1)), 4_000);
        assert_eq!(ftl.blocks.level_valid[1], [0, 1, 0, 0]);
        ftl.blocks.state[1] = BlockState::Victim;
        ftl.blocks.state[0] = BlockState::Victim;
        assert_eq!(Greedy.select(&ftl, PlaneId(0), 1, Nanos(0)), Some(BlockId(3)));
        assert_eq!(wla.select(&ftl, PlaneId(0), 1, Nanos(0)), Some(BlockId(2)));
        ftl.check_invariants().unwrap();
        // The invariant check recounts the levels from the bitmap: a drifted count is caught.
        ftl.blocks.level_valid[2][0] -= 1;
        ftl.blocks.level_valid[2][1] += 1;
        assert!(ftl.check_invariants().unwrap_err().contains("block 2: valid pages per level"));
    }
}
