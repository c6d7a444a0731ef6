//! Page-level mapping (L2P and P2L) on top of the block manager.
//!
//! `p2l[ppn]` names the logical page whose *current* data the physical page holds, or
//! [`NONE`]: a page is valid exactly when `l2p[p2l[ppn]] == ppn`, and the per-block valid
//! counts are kept equal to that (checked by [`Ftl::check_invariants`]).

use super::blocks::{BlockTable, Stream};
use crate::nand::Geometry;
use crate::units::{BlockId, Lpn, PlaneId, Ppn};

/// "No page" in the maps.
pub const NONE: u32 = u32::MAX;

pub struct Ftl {
    pub geo: Geometry,
    pub logical_pages: u32,
    pub l2p: Vec<u32>,
    pub p2l: Vec<u32>,
    pub blocks: BlockTable,
}

impl Ftl {
    /// `logical_pages` host-visible pages; `slots` ≥ that: map entries including any
    /// controller-owned ids (RAIN parity).
    pub fn new(geo: &Geometry, logical_pages: u32, slots: u32) -> Ftl {
        debug_assert!(slots >= logical_pages);
        Ftl {
            geo: geo.clone(),
            logical_pages,
            l2p: vec![NONE; slots as usize],
            p2l: vec![NONE; geo.total_pages() as usize],
            blocks: BlockTable::new(geo),
        }
    }

    #[inline]
    pub fn lookup(&self, lpn: Lpn) -> Option<Ppn> {
        let p = self.l2p[lpn.idx()];
        (p != NONE).then_some(Ppn(p))
    }

    #[inline]
    pub fn is_valid(&self, ppn: Ppn) -> bool {
        let l = self.p2l[ppn.idx()];
        l != NONE && self.l2p[l as usize] == ppn.0
    }

    #[inline]
    pub fn free_blocks(&self, plane: PlaneId) -> u32 {
        self.blocks.free_blocks(plane)
    }

    /// Allocate a page on a plane's frontier (see [`BlockTable::allocate`]).
    #[inline]
    pub fn allocate(&mut self, plane: PlaneId, stream: Stream, reserve: u32) -> Option<(Ppn, bool)> {
        self.blocks.allocate(&self.geo, plane, stream, reserve)
    }

    /// Point `lpn` at `ppn`, invalidating its previous page.
    #[inline]
    pub fn map(&mut self, lpn: Lpn, ppn: Ppn) {
        self.unmap(lpn);
        self.l2p[lpn.idx()] = ppn.0;
        self.p2l[ppn.idx()] = lpn.0;
        self.blocks.valid[self.geo.block_of(ppn).idx()] += 1;
    }

    /// Drop `lpn`'s mapping (its page becomes invalid).
    #[inline]
    pub fn unmap(&mut self, lpn: Lpn) {
        let old = self.l2p[lpn.idx()];
        if old != NONE {
            self.p2l[old as usize] = NONE;
            let b = self.geo.block_of(Ppn(old)).idx();
            debug_assert!(self.blocks.valid[b] > 0);
            self.blocks.valid[b] -= 1;
            self.l2p[lpn.idx()] = NONE;
        }
    }

    /// Move a valid page's mapping from `src` to `dst` (GC migration), if `src` is still
    /// the current copy. Returns false when the host overwrote it meanwhile.
    #[inline]
    pub fn remap_if_current(&mut self, src: Ppn, dst: Ppn) -> bool {
        if !self.is_valid(src) {
            return false;
        }
        let lpn = Lpn(self.p2l[src.idx()]);
        self.map(lpn, dst);
        true
    }

    /// First valid page of `b` at or after `from`.
    pub fn next_valid_in_block(&self, b: BlockId, from: u32) -> Option<Ppn> {
        (from..self.geo.pages_per_block).map(|i| self.geo.ppn(b, i)).find(|&p| self.is_valid(p))
    }

    /// Full consistency check of maps and counters (O(device); for tests and debug runs).
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut valid = vec![0u32; self.blocks.valid.len()];
        for (l, &p) in self.l2p.iter().enumerate() {
            if p != NONE {
                if self.p2l[p as usize] != l as u32 {
                    return Err(format!("l2p[{l}] = {p} but p2l[{p}] = {}", self.p2l[p as usize]));
                }
                valid[self.geo.block_of(Ppn(p)).idx()] += 1;
            }
        }
        for (b, (&want, &have)) in valid.iter().zip(&self.blocks.valid).enumerate() {
            if want != have {
                return Err(format!("block {b}: valid count {have}, but {want} pages are mapped to it"));
            }
            if have > self.blocks.allocated[b] {
                return Err(format!("block {b}: {have} valid pages but only {} allocated", self.blocks.allocated[b]));
            }
        }
        let mapped = self.l2p.iter().filter(|&&p| p != NONE).count() as u64;
        if mapped > self.l2p.len() as u64 {
            return Err("more valid pages than logical pages".into());
        }
        Ok(())
    }
}
