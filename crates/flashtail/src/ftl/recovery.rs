//! Rebuilding the FTL after an enacted power cut (`sim::engine::power_cut`), from what a
//! spare-area scan found: each logical page's newest surviving physical page, and the blocks
//! whose erase was issued.
//!
//! The rebuilt state: the L2P maps each logical page to its surviving page (the P2L already
//! names it: it is the spare area the scan read), the valid bitmap and counts follow from
//! it; a block whose erase was issued is erased (back in its plane's free pool); every block
//! that was being written (`Open`, or `Full` with programs queued) is sealed as it stands:
//! its unwritten and torn pages are given up (counted as programmed, holding nothing), as
//! an FTL that cannot program a page twice before its erase does after an unclean shutdown,
//! and GC later reclaims it like any sealed block; a victim being collected is an ordinary
//! sealed block again. No frontier is open: the next write of each stream takes a free block.
//!
//! Does not do: what survives (the engine's `power_loss` module), the oracle's side (the
//! engine clears the spare areas of the pages given up), recovery time.

use super::blocks::BlockState;
use super::content::VIRT;
use super::mapping::{Ftl, NONE};
use crate::units::{BlockId, Lpn, Ppn};

/// What a rebuild changed in the block table.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Rebuilt {
    /// Pages that became programmed when open blocks were sealed (finished on capacitor
    /// power, torn, or never written).
    pub pages_sealed: u64,
    /// Blocks erased (their erase had been issued).
    pub erased: u64,
    /// Content-aware schemes: logical pages kept mapped to a content (module doc).
    pub shared_kept: u64,
    /// Content-aware schemes: listed copies dropped from the content tables because flash
    /// lost them (module doc).
    pub copies_dropped: u64,
}

impl Ftl {
    /// Rebuild the maps and block table from a scan: `page[lpn]` is the physical page of
    /// each id's newest surviving version, logical pages then RAIN parity ids (`NONE`:
    /// none; ids past `page.len()` are left unmapped), `erased[b]` says block `b`'s erase was
    /// issued, `now` is when the blocks sealed here count as sealed (their age for the
    /// cost-benefit and FIFO victims). Virtual entries stay (module doc).
    ///
    /// Panics unless `erased` has an entry per block.
    pub fn recover(&mut self, page: &[u32], erased: &[bool], now: u64) -> Rebuilt {
        let ppb = self.geo.pages_per_block;
        assert_eq!(erased.len(), self.blocks.state.len(), "an entry per block");
        let mut out = Rebuilt { copies_dropped: self.forget_lost_content(erased), ..Rebuilt::default() };
        // Physical entries come from the scan; virtual ones (top bit set, like NONE) from the
        // flushed content tables.
        for e in self.l2p.iter_mut().filter(|e| **e < VIRT) {
            *e = NONE;
        }
        self.valid_bits.fill(0);
        let b = &mut self.blocks;
        b.valid.fill(0);
        b.level_valid.fill([0; 4]);
        // No program is in flight any more: nothing supersedes a page on flash.
        b.superseded_in_flight.fill(0);
        let mut freed: Vec<BlockId> = Vec::new();
        for (i, &gone) in erased.iter().enumerate() {
            if gone {
                b.state[i] = BlockState::Free;
                b.allocated[i] = 0;
                b.programmed[i] = 0;
                b.erases[i] += 1;
                out.erased += 1;
                freed.push(BlockId(i as u32));
                continue;
            }
            match b.state[i] {
                BlockState::Free | BlockState::Sealed => {}
                BlockState::Open | BlockState::Full => {
                    out.pages_sealed += u64::from(ppb - b.programmed[i]);
                    b.allocated[i] = ppb;
                    b.programmed[i] = ppb;
                    b.state[i] = BlockState::Sealed;
                    b.sealed_at[i] = now;
                }
                BlockState::Victim => b.state[i] = BlockState::Sealed,
            }
        }
        for (p, pb) in b.planes.iter_mut().enumerate() {
            pb.user_frontier = None;
            pb.gc_frontier = None;
            pb.cold_frontier = None;
            // The free pool keeps its order; the blocks just erased join at its end.
            pb.free.extend(freed.iter().copied().filter(|&blk| self.geo.plane_of_block(blk).idx() == p));
        }
        for (lpn, &p) in page.iter().enumerate() {
            // A logical page mapped to a content reads its newest version from a copy: an
            // older (or equal) page of its own the scan found does not replace that.
            if p != NONE && self.l2p[lpn] == NONE {
                debug_assert_eq!(self.p2l[p as usize], lpn as u32, "a surviving page names its logical page");
                self.map(Lpn(lpn as u32), Ppn(p));
            }
        }
        if let Some(ct) = &mut self.content {
            out.shared_kept = ct.shared_pages();
            // A kept page is an invalid one (DAGC revalidates only those); one the rebuilt
            // map made valid again is no longer kept.
            let valid = &self.valid_bits;
            if let Some(cache) = &mut ct.cache {
                cache.retain(|p| valid[p as usize / 64] & (1 << (p % 64)) == 0);
            }
        }
        out
    }

    /// The content tables survive a cut, but not every page they name (module doc): drop
    /// the pages of the blocks whose erase was issued, and those given up in the blocks
    /// being written (from their first unfinished program on, the pages whose spare area
    /// the engine cleared: torn or never written). Returns the listed copies dropped.
    fn forget_lost_content(&mut self, erased: &[bool]) -> u64 {
        let ppb = self.geo.pages_per_block;
        let Some(ct) = &mut self.content else { return 0 };
        let mut dropped = 0;
        for (b, &gone) in erased.iter().enumerate() {
            let from = match self.blocks.state[b] {
                _ if gone => 0,
                BlockState::Open | BlockState::Full => self.blocks.programmed[b],
                _ => continue,
            };
            let first = self.geo.ppn(BlockId(b as u32), 0).0;
            for p in (first + from..first + ppb).filter(|&p| gone || self.p2l[p as usize] == NONE) {
                dropped += u64::from(ct.forget_page(p));
            }
        }
        dropped
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::presets;
    use crate::ftl::Stream;
    use crate::units::PlaneId;

    /// A rebuild keeps the surviving pages mapped, seals the open block (its unwritten pages
    /// counted), frees the block being erased, and leaves maps and counters consistent.
    #[test]
    fn a_rebuild_maps_survivors_seals_open_blocks_and_frees_erased_ones() {
        let geo = presets::load("tiny").unwrap().geometry;
        let ppb = geo.pages_per_block;
        let mut ftl = Ftl::new(&geo, 1000, 1000);
        let plane = PlaneId(0);
        // Three pages written on plane 0's user frontier (LPNs 7, 8, 9); two programmed.
        let mut pages = Vec::new();
        for l in 7..10 {
            let (p, _) = ftl.allocate(plane, Stream::User, 0).unwrap();
            ftl.map(Lpn(l), p);
            pages.push(p);
        }
        let open = geo.block_of(pages[0]);
        for &p in &pages[..2] {
            ftl.blocks.mark_programmed(&geo, p, 5);
        }
        let free_before = ftl.free_blocks(plane);
        // Another block of the plane, sealed and being erased.
        let gone = ftl.blocks.planes[0].free.pop_front().unwrap();
        ftl.blocks.state[gone.idx()] = BlockState::Victim;
        ftl.blocks.allocated[gone.idx()] = ppb;
        ftl.blocks.programmed[gone.idx()] = ppb;
        let mut erased = vec![false; geo.total_blocks() as usize];
        erased[gone.idx()] = true;
        // The scan found LPNs 7 and 8 (9's program was torn).
        let mut survivors = vec![NONE; 1000];
        survivors[7] = pages[0].0;
        survivors[8] = pages[1].0;
        let r = ftl.recover(&survivors, &erased, 99);
        assert_eq!(r, Rebuilt { pages_sealed: u64::from(ppb - 2), erased: 1, shared_kept: 0, copies_dropped: 0 });
        assert_eq!((ftl.lookup(Lpn(7)), ftl.lookup(Lpn(8)), ftl.lookup(Lpn(9))), (Some(pages[0]), Some(pages[1]), None));
        assert_eq!(ftl.blocks.state[open.idx()], BlockState::Sealed);
        assert_eq!((ftl.blocks.valid[open.idx()], ftl.blocks.programmed[open.idx()], ftl.blocks.sealed_at[open.idx()]), (2, ppb, 99));
        assert_eq!((ftl.blocks.state[gone.idx()], ftl.blocks.erases[gone.idx()]), (BlockState::Free, 1));
        assert_eq!(ftl.free_blocks(plane), free_before, "the erased block is back in the pool");
        assert_eq!(ftl.blocks.planes[0].free.back(), Some(&gone));
        assert!(ftl.blocks.planes[0].user_frontier.is_none());
        ftl.check_invariants().unwrap();
    }
}
