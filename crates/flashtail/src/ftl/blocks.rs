//! The block manager: block states and counters, free pools, write frontiers.
//!
//! A block is `Free` → `Open` (a frontier hands out its pages in order) → `Full` (every page
//! allocated, some programs still queued) → `Sealed` (every page programmed: only now may
//! GC choose it) → `Victim` (being collected) → erased → `Free`. Allocation order equals
//! program order inside a block, which the engine asserts.

use crate::nand::Geometry;
use crate::units::{BlockId, PlaneId, Ppn};
use std::collections::VecDeque;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum BlockState {
    Free,
    Open,
    Full,
    Sealed,
    Victim,
}

/// Which write frontier a page comes from: host data and GC-migrated data never mix.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Stream {
    User,
    Gc,
    /// GC-migrated data kept apart from the rest (CAGC's cold region: pages with many
    /// references; `gc::content::ContentParams::cold_refs`).
    GcCold,
}

#[derive(Clone, Debug)]
pub struct PlaneBlocks {
    pub free: VecDeque<BlockId>,
    pub user_frontier: Option<BlockId>,
    pub gc_frontier: Option<BlockId>,
    pub cold_frontier: Option<BlockId>,
}

/// Per-block counters, in flat vectors indexed by `BlockId` (cache friendly).
#[derive(Clone, Debug)]
pub struct BlockTable {
    pub state: Vec<BlockState>,
    pub valid: Vec<u32>,
    /// Pages handed out by the frontier (the write pointer).
    pub allocated: Vec<u32>,
    pub programmed: Vec<u32>,
    pub erases: Vec<u32>,
    /// Simulated time the block was sealed (for cost-benefit age and FIFO).
    pub sealed_at: Vec<u64>,
    /// Invalid pages of the block whose data is still the newest *on flash*: a host write
    /// superseded them and its program has not finished. Without power-loss protection the
    /// block must not be erased until this is 0 (a power loss would lose both copies; see
    /// `sim::power_loss`).
    pub superseded_in_flight: Vec<u32>,
    /// Valid pages per level (LSB..TSB), kept only for multi-level cells (empty with one
    /// bit per cell): WLA-GC weighs a victim by where its valid pages sit on the
    /// word-lines, and keeping the counts as pages come and go makes that weight O(1) per
    /// block instead of a rescan of its pages (the WLA-GC paper, "Victim cost").
    pub level_valid: Vec<[u32; 4]>,
    /// `bits_per_cell` and `pages_per_level` of the geometry (see [`BlockTable::level`]).
    bits_per_cell: u32,
    pages_per_level: u32,
    pub planes: Vec<PlaneBlocks>,
    pages_per_block: u32,
    /// log2 of `pages_per_block` when it is a power of two (see [`BlockTable::locate`]).
    page_shift: Option<u32>,
    /// Pages per plane, and its log2 when it is a power of two (see [`BlockTable::plane_of`]).
    pages_per_plane: u32,
    plane_shift: Option<u32>,
}

impl BlockTable {
    pub fn new(geo: &Geometry) -> BlockTable {
        let nb = geo.total_blocks() as usize;
        let planes = (0..geo.planes())
            .map(|p| {
                let first = geo.first_block(PlaneId(p)).0;
                PlaneBlocks {
                    free: (first..first + geo.blocks_per_plane).map(BlockId).collect(),
                    user_frontier: None,
                    gc_frontier: None,
                    cold_frontier: None,
                }
            })
            .collect();
        BlockTable {
            state: vec![BlockState::Free; nb],
            valid: vec![0; nb],
            allocated: vec![0; nb],
            programmed: vec![0; nb],
            erases: vec![0; nb],
            sealed_at: vec![0; nb],
            superseded_in_flight: vec![0; nb],
            level_valid: if geo.bits_per_cell > 1 { vec![[0; 4]; nb] } else { Vec::new() },
            bits_per_cell: geo.bits_per_cell,
            pages_per_level: geo.pages_per_level,
            planes,
            pages_per_block: geo.pages_per_block,
            page_shift: geo.pages_per_block.is_power_of_two().then(|| geo.pages_per_block.trailing_zeros()),
            pages_per_plane: geo.pages_per_plane(),
            plane_shift: geo.pages_per_plane().is_power_of_two().then(|| geo.pages_per_plane().trailing_zeros()),
        }
    }

    /// Block index and page-in-block of a physical page (as `Geometry::block_of` and
    /// `page_in_block`), by shift and mask when pages per block is a power of two (every
    /// preset): a 32-bit division by a run-time divisor costs tens of cycles, and the engine
    /// locates pages several times per flash operation.
    #[inline]
    pub fn locate(&self, ppn: Ppn) -> (usize, u32) {
        match self.page_shift {
            Some(k) => ((ppn.0 >> k) as usize, ppn.0 & (self.pages_per_block - 1)),
            None => ((ppn.0 / self.pages_per_block) as usize, ppn.0 % self.pages_per_block),
        }
    }

    /// The plane of a physical page (as `Geometry::plane_of_block(block_of(ppn))`, which
    /// takes two divisions), by a shift when pages per plane is a power of two.
    #[inline]
    pub fn plane_of(&self, ppn: Ppn) -> PlaneId {
        match self.plane_shift {
            Some(k) => PlaneId(ppn.0 >> k),
            None => PlaneId(ppn.0 / self.pages_per_plane),
        }
    }

    /// Level of page `page_in_block` (as `Geometry::level_of`).
    #[inline]
    pub fn level(&self, page_in_block: u32) -> usize {
        crate::nand::geometry::level_in_block(page_in_block, self.bits_per_cell, self.pages_per_level)
    }

    /// Count a page becoming valid or invalid in its block (and its level's count, on
    /// multi-level cells).
    #[inline(always)]
    pub fn count_valid(&mut self, ppn: Ppn, became_valid: bool) {
        let b = self.locate(ppn).0;
        if became_valid {
            self.valid[b] += 1;
        } else {
            debug_assert!(self.valid[b] > 0);
            self.valid[b] -= 1;
        }
        if !self.level_valid.is_empty() {
            self.count_level(ppn, became_valid);
        }
    }

    /// The per-level half of [`BlockTable::count_valid`], out of line: single-level cells (the
    /// common case and the benchmark) never take it, and inlined it grew the FTL's hottest
    /// callers past the compiler's inlining limits (+15 % instructions on bench-ref).
    #[cold]
    #[inline(never)]
    fn count_level(&mut self, ppn: Ppn, became_valid: bool) {
        let (b, i) = self.locate(ppn);
        let l = self.level(i);
        let c = &mut self.level_valid[b][l];
        *c = if became_valid { *c + 1 } else { *c - 1 };
    }

    #[inline]
    pub fn free_blocks(&self, plane: PlaneId) -> u32 {
        self.planes[plane.idx()].free.len() as u32
    }

    /// The page index within its block that `allocate` would hand out next on `plane`'s
    /// `stream` frontier (0 when it would take a free block), or `None` when it could take
    /// none (no free block beyond `reserve`). Changes nothing.
    pub fn next_page_index(&self, plane: PlaneId, stream: Stream, reserve: u32) -> Option<u32> {
        let pb = &self.planes[plane.idx()];
        let frontier = match stream {
            Stream::User => pb.user_frontier,
            Stream::Gc => pb.gc_frontier,
            Stream::GcCold => pb.cold_frontier,
        };
        match frontier {
            Some(b) => Some(self.allocated[b.idx()]),
            None => {
                let min_free = if stream == Stream::User { reserve } else { 0 };
                (pb.free.len() as u32 > min_free).then_some(0)
            }
        }
    }

    /// Hand out the next page of a frontier. Host writes may not take the last `reserve`
    /// free blocks (kept for GC); returns `None` when no page can be had. The flag tells
    /// whether a free block was taken (the free count changed).
    #[inline]
    pub fn allocate(&mut self, geo: &Geometry, plane: PlaneId, stream: Stream, reserve: u32) -> Option<(Ppn, bool)> {
        let pb = &mut self.planes[plane.idx()];
        let frontier = match stream {
            Stream::User => &mut pb.user_frontier,
            Stream::Gc => &mut pb.gc_frontier,
            Stream::GcCold => &mut pb.cold_frontier,
        };
        let mut took = false;
        if frontier.is_none() {
            let min_free = if stream == Stream::User { reserve } else { 0 };
            if pb.free.len() as u32 <= min_free {
                return None;
            }
            let b = pb.free.pop_front()?;
            debug_assert_eq!(self.state[b.idx()], BlockState::Free);
            self.state[b.idx()] = BlockState::Open;
            *frontier = Some(b);
            took = true;
        }
        let b = frontier.expect("frontier set above");
        let i = b.idx();
        let ppn = geo.ppn(b, self.allocated[i]);
        self.allocated[i] += 1;
        if self.allocated[i] == self.pages_per_block {
            *frontier = None;
            self.state[i] = if self.programmed[i] == self.pages_per_block { BlockState::Sealed } else { BlockState::Full };
        }
        Some((ppn, took))
    }

    /// Record that a page finished programming; pages program in allocation order.
    /// Returns true when this sealed the block (it just became a GC candidate).
    pub fn mark_programmed(&mut self, geo: &Geometry, ppn: Ppn, now: u64) -> bool {
        let (i, page) = self.locate(ppn);
        debug_assert_eq!((i, page), (geo.block_of(ppn).idx(), geo.page_in_block(ppn)));
        assert_eq!(
            page,
            self.programmed[i],
            "out-of-order program in block {}: page {page} while {} are programmed",
            BlockId(i as u32),
            self.programmed[i]
        );
        self.programmed[i] += 1;
        if self.programmed[i] == self.pages_per_block && self.state[i] == BlockState::Full {
            self.state[i] = BlockState::Sealed;
            self.sealed_at[i] = now;
            return true;
        }
        false
    }

    #[inline]
    pub fn is_programmed(&self, geo: &Geometry, ppn: Ppn) -> bool {
        let (i, page) = self.locate(ppn);
        debug_assert_eq!((i, page), (geo.block_of(ppn).idx(), geo.page_in_block(ppn)));
        page < self.programmed[i]
    }

    /// Return an erased block to its plane's free pool.
    pub fn erase(&mut self, geo: &Geometry, b: BlockId) {
        let i = b.idx();
        assert_eq!(self.valid[i], 0, "erasing block {b} with {} valid pages", self.valid[i]);
        assert_eq!(self.state[i], BlockState::Victim, "erasing block {b} in state {:?}", self.state[i]);
        self.state[i] = BlockState::Free;
        self.allocated[i] = 0;
        self.programmed[i] = 0;
        self.erases[i] += 1;
        self.planes[geo.plane_of_block(b).idx()].free.push_back(b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shift-and-mask shortcuts give the geometry's own (dividing) answers, with and
    /// without power-of-two pages per block and blocks per plane.
    #[test]
    fn locate_and_plane_of_match_the_geometry() {
        for (blocks_per_plane, pages_per_block) in [(16, 8), (12, 8), (16, 6), (10, 3)] {
            let geo = Geometry {
                channels: 2,
                chips_per_channel: 1,
                dies_per_chip: 1,
                planes_per_die: 2,
                blocks_per_plane,
                pages_per_block,
                page_size: 4096,
                bits_per_cell: 1,
                pages_per_level: 1,
            };
            let t = BlockTable::new(&geo);
            for p in 0..geo.total_pages() {
                let ppn = Ppn(p);
                assert_eq!(t.locate(ppn), (geo.block_of(ppn).idx(), geo.page_in_block(ppn)), "{geo:?} page {p}");
                assert_eq!(t.plane_of(ppn), geo.plane_of_block(geo.block_of(ppn)), "{geo:?} page {p}");
            }
        }
    }
}
