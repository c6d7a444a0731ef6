//! Page-level mapping (L2P and P2L) on top of the block manager.
//!
//! `p2l[ppn]` names the logical page whose *current* data the physical page holds, or
//! [`NONE`]: a page is valid exactly when `l2p[p2l[ppn]] == ppn`, and the per-block valid
//! counts are kept equal to that (checked by [`Ftl::check_invariants`]).
//!
//! A bitmap over physical pages mirrors that validity. It is redundant, but it is 1 bit per
//! page instead of a dependent lookup into the (large, randomly accessed) L2P: GC scans a
//! victim's pages for valid ones, and the bitmap keeps that scan in cache.

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
    /// Bit `ppn` set ⇔ `l2p[p2l[ppn]] == ppn` (maintained by `map`/`unmap` only).
    valid_bits: Vec<u64>,
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
            valid_bits: vec![0; (geo.total_pages() as usize).div_ceil(64)],
        }
    }

    #[inline]
    pub fn lookup(&self, lpn: Lpn) -> Option<Ppn> {
        let p = self.l2p[lpn.idx()];
        (p != NONE).then_some(Ppn(p))
    }

    #[inline]
    pub fn is_valid(&self, ppn: Ppn) -> bool {
        let i = ppn.idx();
        self.valid_bits[i / 64] & (1 << (i % 64)) != 0
    }

    #[inline]
    pub fn free_blocks(&self, plane: PlaneId) -> u32 {
        self.blocks.free_blocks(plane)
    }

    /// Hint that `lpn`'s map entry will be needed soon. The L2P is far larger than the caches
    /// and accessed at random, so the engine announces entries it knows it will touch (the
    /// next host request, a GC move in flight) and the miss overlaps with other work.
    #[inline]
    pub fn prefetch(&self, lpn: u32) {
        if let Some(e) = self.l2p.get(lpn as usize) {
            prefetch(e);
        }
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
        let i = ppn.idx();
        self.valid_bits[i / 64] |= 1 << (i % 64);
        self.blocks.valid[self.geo.block_of(ppn).idx()] += 1;
    }

    /// Drop `lpn`'s mapping (its page becomes invalid).
    #[inline]
    pub fn unmap(&mut self, lpn: Lpn) {
        let old = self.l2p[lpn.idx()];
        if old != NONE {
            self.p2l[old as usize] = NONE;
            let i = old as usize;
            self.valid_bits[i / 64] &= !(1 << (i % 64));
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
        let ppb = self.geo.pages_per_block;
        if from >= ppb {
            return None;
        }
        // Scan the bitmap a word at a time (blocks need not be 64-page aligned).
        let mut i = self.geo.ppn(b, from).idx();
        let end = self.geo.ppn(b, ppb - 1).idx() + 1;
        while i < end {
            let word = self.valid_bits[i / 64] >> (i % 64);
            if word != 0 {
                let hit = i + word.trailing_zeros() as usize;
                return (hit < end).then_some(Ppn(hit as u32));
            }
            i = (i / 64 + 1) * 64;
        }
        None
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
        for (ppn, &l) in self.p2l.iter().enumerate() {
            let want = l != NONE && self.l2p[l as usize] == ppn as u32;
            if want != self.is_valid(Ppn(ppn as u32)) {
                return Err(format!("valid bitmap of page {ppn} disagrees with the maps"));
            }
        }
        let mapped = self.l2p.iter().filter(|&&p| p != NONE).count() as u64;
        if mapped > self.l2p.len() as u64 {
            return Err("more valid pages than logical pages".into());
        }
        Ok(())
    }
}

/// Ask the CPU to start loading the cache line holding `r` (no effect on results; a no-op on
/// targets without a prefetch instruction).
#[inline(always)]
pub fn prefetch<T>(r: &T) {
    // SAFETY: SSE is part of the x86_64 baseline, and a prefetch never faults nor changes
    // memory; the address comes from a live reference anyway.
    #[cfg(target_arch = "x86_64")]
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>((r as *const T).cast::<i8>())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}
