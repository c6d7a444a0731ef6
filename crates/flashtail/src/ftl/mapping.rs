//! Page-level mapping (L2P and P2L) on top of the block manager.
//!
//! `p2l[ppn]` names the logical page the physical page was last programmed for (the
//! owner a real FTL keeps in the page's spare area), or [`NONE`] if it never was. A page is
//! valid exactly when `l2p[p2l[ppn]] == ppn`, and the per-block valid counts are kept equal
//! to that (checked by [`Ftl::check_invariants`]).
//!
//! A bitmap over physical pages mirrors that validity, 1 bit per page instead of a dependent
//! lookup into the (large, randomly accessed) L2P: GC scans a victim's pages for valid ones,
//! and the bitmap keeps that scan in cache. Since the bitmap says which pages are valid,
//! invalidating a page leaves its `p2l` entry as it was: the entry is only read for valid
//! pages (a GC move's owner), and a stale one cannot pass for valid, because its logical
//! page was remapped or dropped when the page was invalidated. That keeps the P2L out of the
//! random accesses: it is written in program order and read in a victim's page order, and a
//! host overwrite touches only the L2P and the bitmap (an 8 MiB table fewer in the caches of
//! the reference benchmark; docs/performance.md).

use super::blocks::{BlockTable, Stream};
use super::content::{Content, VIRT};
use super::l2p::L2p;
use super::tables::Table;
use crate::nand::Geometry;
use crate::units::{BlockId, Lpn, PlaneId, Ppn};

/// "No page" in the maps.
pub const NONE: u32 = u32::MAX;

pub struct Ftl {
    pub geo: Geometry,
    pub logical_pages: u32,
    /// With the oracle's versions beside the entries when the run checks integrity (`l2p`).
    pub l2p: L2p,
    pub p2l: Table<u32>,
    pub blocks: BlockTable,
    /// Bit `ppn` set ⇔ `l2p[p2l[ppn]] == ppn` (maintained by `map`/`unmap`, and written
    /// directly only by preconditioning's bulk load).
    pub(super) valid_bits: Table<u64>,
    /// Page content and virtual mappings, for the content-aware schemes only (content.rs).
    pub content: Option<Box<Content>>,
}

impl Ftl {
    /// `logical_pages` host-visible pages; `slots` ≥ that: map entries including any
    /// controller-owned ids (RAIN parity).
    pub fn new(geo: &Geometry, logical_pages: u32, slots: u32) -> Ftl {
        Ftl::with_versions(geo, logical_pages, slots, false)
    }

    /// As `new`, with room for the integrity oracle's version of each logical page beside
    /// its map entry when `versions` (`L2p`).
    pub fn with_versions(geo: &Geometry, logical_pages: u32, slots: u32, versions: bool) -> Ftl {
        debug_assert!(slots >= logical_pages);
        Ftl {
            geo: geo.clone(),
            logical_pages,
            l2p: L2p::new(slots as usize, versions),
            p2l: super::tables::filled(geo.total_pages() as usize, NONE),
            blocks: BlockTable::new(geo),
            valid_bits: super::tables::filled((geo.total_pages() as usize).div_ceil(64), 0),
            content: None,
        }
    }

    /// A copy of a preconditioned FTL for another scheme's run (`sim::StartState`): the maps,
    /// the validity bitmap and the block table, the large tables on huge pages as `new`
    /// gives them. The content tables are each content-aware scheme's own, set up after the
    /// copy, and a copy is only taken before them.
    pub(crate) fn duplicate(&self) -> Ftl {
        debug_assert!(self.content.is_none(), "an FTL is copied before any content tables are set up");
        Ftl {
            geo: self.geo.clone(),
            logical_pages: self.logical_pages,
            l2p: self.l2p.duplicate(),
            p2l: super::tables::copied(&self.p2l),
            blocks: self.blocks.clone(),
            valid_bits: super::tables::copied(&self.valid_bits),
            content: None,
        }
    }

    /// The physical page `lpn` maps to (`None` if unmapped or virtual).
    #[inline]
    pub fn lookup(&self, lpn: Lpn) -> Option<Ppn> {
        let p = self.l2p[lpn.idx()];
        (p < VIRT).then_some(Ppn(p))
    }

    /// The validity bitmap word holding pages `64 w .. 64 w + 63`.
    #[inline]
    pub fn valid_word(&self, w: usize) -> u64 {
        self.valid_bits[w]
    }

    /// The valid-page bitmap: bit `p % 64` of word `p / 64` is physical page `p`'s.
    pub fn valid_bits(&self) -> &[u64] {
        &self.valid_bits
    }

    /// How many physical pages hold valid data.
    pub fn valid_pages(&self) -> u64 {
        ones(&self.valid_bits)
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

    /// Start loading the reverse-map entry (owner LPN) of a physical page: GC reads it when
    /// it moves the page, and a victim block's entries have long left the caches.
    #[inline]
    pub fn prefetch_owner(&self, ppn: Ppn) {
        if let Some(e) = self.p2l.get(ppn.idx()) {
            prefetch(e);
        }
    }

    /// Start loading the validity word of the page `lpn` maps to now (what overwriting
    /// `lpn` touches besides its own map entry). That is a random physical address known
    /// only once the L2P entry is read, so the engine issues this one request ahead, after
    /// the L2P line itself was prefetched (see `Simulation::run`).
    #[inline]
    pub fn prefetch_mapped_page(&self, lpn: u32) {
        if let Some(&old) = self.l2p.get(lpn as usize).filter(|&&p| p != NONE) {
            self.prefetch_valid_word(Ppn(old));
        }
    }

    /// Start loading the bitmap word that holds `ppn`'s validity bit.
    #[inline]
    fn prefetch_valid_word(&self, ppn: Ppn) {
        if let Some(w) = self.valid_bits.get(ppn.idx() / 64) {
            prefetch(w);
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
        self.blocks.count_valid(ppn, true);
    }

    /// Drop `lpn`'s mapping (its page becomes invalid; its `p2l` entry stays, see the
    /// module doc).
    #[inline]
    pub fn unmap(&mut self, lpn: Lpn) {
        let old = self.l2p[lpn.idx()];
        // One test covers both "unmapped" (NONE) and "virtual" (content-aware schemes
        // only): both have the top bit set.
        if old < VIRT {
            let i = old as usize;
            self.valid_bits[i / 64] &= !(1 << (i % 64));
            self.blocks.count_valid(Ppn(old), false);
            self.l2p[lpn.idx()] = NONE;
        } else if old != NONE {
            self.unshare(lpn, old);
        }
    }

    /// The virtual half of [`Ftl::unmap`], out of line (no scheme without content uses it).
    #[cold]
    #[inline(never)]
    fn unshare(&mut self, lpn: Lpn, old: u32) {
        if let Some(c) = &mut self.content {
            c.unshare(lpn.0, old & !VIRT);
        }
        self.l2p[lpn.idx()] = NONE;
    }

    /// Map `lpn` virtually to content `c`: its data is read from a listed copy
    /// (content.rs); its own page, if it had one, becomes invalid.
    pub fn share(&mut self, lpn: Lpn, c: u32) {
        assert!(c != 0 && c < VIRT, "sharing content id {c}");
        self.unmap(lpn);
        self.content.as_mut().expect("content tracking on").share(lpn.0, c);
        self.l2p[lpn.idx()] = VIRT | c;
    }

    /// Move a valid page's mapping from `src` to `dst` (GC migration), if `src` is still
    /// the current copy. Returns false when the host overwrote it meanwhile. (Always inlined:
    /// it runs once per GC move, and the compiler's own choice flips with small changes
    /// elsewhere, costing ~2 % of the reference benchmark's instructions when it does not.)
    #[inline(always)]
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

    /// Full consistency check of maps and counters (O(device); every run ends with it, and
    /// tests run it every few hundred requests). The first error found, as a message.
    pub fn check_invariants(&self) -> Result<(), String> {
        let (mapped, mapped_bits) = self.check_l2p()?;
        // Every mapped page has its bit and no other bit is set: the bitmap is exactly the
        // valid set (mapped pages are distinct, as p2l is consistent with l2p above).
        let bits = self.valid_pages();
        let bitmap_exact = mapped_bits == mapped && bits == mapped;
        // Then each block's valid count is the number of its bits: counted from the bitmap, a
        // pass over words instead of a lookup per mapped page. (With an inexact bitmap they
        // are counted from the L2P, so a wrong block count is still reported before the
        // bitmap, as it always was.)
        let valid = if bitmap_exact { self.valid_per_block_from_bits() } else { self.valid_per_block_from_l2p() };
        for (b, (&want, &have)) in valid.iter().zip(&self.blocks.valid).enumerate() {
            if want != have {
                return Err(format!("block {b}: valid count {have}, but {want} pages are mapped to it"));
            }
            if have > self.blocks.allocated[b] {
                return Err(format!("block {b}: {have} valid pages but only {} allocated", self.blocks.allocated[b]));
            }
        }
        if !bitmap_exact {
            return Err(format!("valid bitmap: {bits} bits set, {mapped_bits} of {mapped} mapped pages marked valid"));
        }
        if mapped > self.l2p.len() as u64 {
            return Err("more valid pages than logical pages".into());
        }
        if let Some(c) = &self.content {
            for (&id, s) in &c.sharers {
                if let Some(&l) = s.iter().find(|&&l| self.l2p[l as usize] != VIRT | id) {
                    return Err(format!("LPN {l} is listed as sharing content {id} but maps to {}", self.l2p[l as usize]));
                }
            }
            c.check(|p| self.blocks.is_programmed(&self.geo, Ppn(p)))?;
        }
        if !self.blocks.level_valid.is_empty() {
            let want = self.count_levels();
            if let Some(b) = (0..want.len()).find(|&b| want[b] != self.blocks.level_valid[b]) {
                return Err(format!("block {b}: valid pages per level {:?}, but the bitmap says {:?}", self.blocks.level_valid[b], want[b]));
            }
        }
        Ok(())
    }

    /// The L2P half of [`Ftl::check_invariants`]: every mapped logical page's reverse-map
    /// entry points back at it, and every virtual one is among its content's sharers.
    /// Returns (mapped pages, mapped pages whose valid bit is set), or the error of the
    /// lowest logical page at fault (the one a single pass in order meets first).
    ///
    /// Every run ends with this check: first the summed comparison ([`Ftl::maps_agree`],
    /// two sequential passes), and only when that finds a difference the page-by-page walk
    /// that names it.
    fn check_l2p(&self) -> Result<(u64, u64), String> {
        if let Some(mapped) = self.maps_agree() {
            return Ok((mapped, mapped));
        }
        self.check_l2p_page_by_page()
    }

    /// The L2P and the reverse map hold the same (logical, physical) pairs, the reverse
    /// map's taken at the valid pages: `Some(mapped pages)` when they do. Each side is
    /// summarised by its pair count and the wrapping sum of a 64-bit mix of each pair
    /// ([`pair_mix`]), in one sequential pass over each table, where the page-by-page check
    /// makes one random reverse-map and bitmap look-up per mapped page (on `mqsim-ref`,
    /// 1.5 M cache misses at the end of every run). Equal multisets of pairs are exactly
    /// what that check asks: every mapped page's reverse-map entry names it and its bit is
    /// set, and no valid page is left over. A difference, or any virtual (content-shared)
    /// entry, gives `None`, and [`Ftl::check_l2p_page_by_page`] then finds and names the
    /// first fault, as it always did. Unequal pair sets pass only if their sums collide,
    /// which for a 64-bit mix is about 2^-64.
    fn maps_agree(&self) -> Option<u64> {
        use rayon::prelude::*;
        if self.content.is_some() {
            return None;
        }
        let add = |a: (u64, u64), b: (u64, u64)| (a.0 + b.0, a.1.wrapping_add(b.1));
        let (raw, step) = self.l2p.raw();
        // Forward: (l, l2p[l]) for every mapped `l`; a virtual entry ends the fast check.
        let forward = raw
            .par_chunks(CHUNK * step)
            .enumerate()
            .map(|(c, entries)| {
                // Without branches on whether a page is mapped (a fifth of them are not,
                // at random).
                let (mut n, mut sum, mut virt) = (0u64, 0u64, false);
                for (k, e) in entries.chunks_exact(step).enumerate() {
                    let (p, mapped) = (e[0], e[0] < VIRT);
                    n += u64::from(mapped);
                    let mix = pair_mix((c * CHUNK + k) as u32, p);
                    sum = sum.wrapping_add(if mapped { mix } else { 0 });
                    virt |= !mapped & (p != NONE);
                }
                (!virt).then_some((n, sum))
            })
            .try_reduce(|| (0, 0), |a, b| Some(add(a, b)))?;
        // Backward: (p2l[p], p) for every valid `p`.
        let words = CHUNK / 64;
        let backward = self
            .valid_bits
            .par_chunks(words)
            .enumerate()
            .map(|(c, bits)| {
                let (mut n, mut sum) = (0u64, 0u64);
                for (i, &w) in bits.iter().enumerate() {
                    let mut w = w;
                    while w != 0 {
                        let p = (c * words + i) * 64 + w.trailing_zeros() as usize;
                        w &= w - 1;
                        n += 1;
                        sum = sum.wrapping_add(pair_mix(*self.p2l.get(p)?, p as u32));
                    }
                }
                Some((n, sum))
            })
            .try_reduce(|| (0, 0), |a, b| Some(add(a, b)))?;
        (forward == backward).then_some(forward.0)
    }

    /// The page-by-page half of [`Ftl::check_l2p`], which names the first fault: one
    /// reverse-map and one bitmap look-up per mapped page, chunks of the L2P on every core
    /// (rayon; on the 32 GiB `dtrs-demo` device, 70 ms on one core).
    fn check_l2p_page_by_page(&self) -> Result<(u64, u64), String> {
        use rayon::prelude::*;
        // Lookups are fetched `AHEAD` entries early: each is a miss at a random place, and
        // with 16 in flight the check still waited on them (48: about 2 % less time for a
        // whole short run on `mqsim-ref`; 96 no better).
        const AHEAD: usize = 48;
        // Entry `l` at `l * step` (with the oracle's versions between the entries).
        let (raw, step) = self.l2p.raw();
        let chunk = |(c, entries): (usize, &[u32])| -> Result<(u64, u64), (usize, String)> {
            let (mut mapped, mut mapped_bits) = (0u64, 0u64);
            for (k, &p) in entries.iter().step_by(step).enumerate() {
                let l = c * CHUNK + k;
                if let Some(&ahead) = entries.get((k + AHEAD) * step).filter(|&&p| p < VIRT) {
                    self.prefetch_owner(Ppn(ahead));
                    self.prefetch_valid_word(Ppn(ahead));
                }
                if p != NONE && p >= VIRT {
                    let id = p & !VIRT;
                    let shared = self.content.as_ref().is_some_and(|ct| ct.sharers.get(&id).is_some_and(|s| s.contains(&(l as u32))));
                    if !shared {
                        return Err((l, format!("l2p[{l}] is virtual (content {id}) but not among the content's sharers")));
                    }
                } else if p != NONE {
                    if self.p2l[p as usize] != l as u32 {
                        return Err((l, format!("l2p[{l}] = {p} but p2l[{p}] = {}", self.p2l[p as usize])));
                    }
                    mapped += 1;
                    mapped_bits += u64::from(self.is_valid(Ppn(p)));
                }
            }
            Ok((mapped, mapped_bits))
        };
        raw.par_chunks(CHUNK * step)
            .enumerate()
            .map(chunk)
            .reduce(
                || Ok((0, 0)),
                |a, b| match (a, b) {
                    (Ok(x), Ok(y)) => Ok((x.0 + y.0, x.1 + y.1)),
                    (Err(e), Err(f)) => Err(if e.0 <= f.0 { e } else { f }),
                    (Err(e), Ok(_)) | (Ok(_), Err(e)) => Err(e),
                },
            )
            .map_err(|(_, msg)| msg)
    }

    /// Valid bits per block (blocks need not be 64-page aligned).
    fn valid_per_block_from_bits(&self) -> Vec<u32> {
        let ppb = self.geo.pages_per_block as usize;
        (0..self.blocks.valid.len()).map(|b| count_bits(&self.valid_bits, b * ppb, ppb)).collect()
    }

    /// Mapped logical pages per block, from the L2P (one lookup per mapped page).
    fn valid_per_block_from_l2p(&self) -> Vec<u32> {
        let mut valid = vec![0u32; self.blocks.valid.len()];
        for &p in self.l2p.iter().filter(|&&p| p < VIRT) {
            valid[self.blocks.locate(Ppn(p)).0] += 1;
        }
        valid
    }

    /// Valid pages per level of every block, counted from the bitmap (O(device)).
    fn count_levels(&self) -> Vec<[u32; 4]> {
        let ppb = self.geo.pages_per_block;
        (0..self.geo.total_blocks())
            .map(|b| {
                let mut c = [0u32; 4];
                for i in 0..ppb {
                    if self.is_valid(self.geo.ppn(BlockId(b), i)) {
                        c[self.blocks.level(i)] += 1;
                    }
                }
                c
            })
            .collect()
    }

    /// Set the per-level valid counts from the bitmap, after a bulk load that wrote the
    /// bitmap and block counts directly (preconditioning); a no-op with one bit per cell.
    pub fn recount_levels(&mut self) {
        if !self.blocks.level_valid.is_empty() {
            self.blocks.level_valid = self.count_levels();
        }
    }
}

/// Logical pages per parallel task of the final check's passes over the maps.
const CHUNK: usize = 1 << 16;

/// A (logical, physical) pair mixed into 64 bits for [`Ftl::maps_agree`]'s sums: a
/// bijection of the pair's 64-bit word (SplitMix64's finaliser), so that no two pairs mix
/// alike and structured differences (a page off by one, two pages swapped) do not cancel.
#[inline(always)]
fn pair_mix(l: u32, p: u32) -> u64 {
    let mut x = (u64::from(l) << 32 | u64::from(p)).wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// Set bits of `bits` in positions `start .. start + len`.
fn count_bits(bits: &[u64], start: usize, len: usize) -> u32 {
    count_bits_in(start, len, |w| bits[w])
}

/// Set bits in a whole bitset.
pub(crate) fn ones(bits: &[u64]) -> u64 {
    bits.iter().map(|w| u64::from(w.count_ones())).sum()
}

/// Set bits in positions `start .. start + len` of a bitset whose 64-bit word `w` is
/// `word(w)` (a bitset, or the AND of several; blocks need not be 64-page aligned).
pub(crate) fn count_bits_in(start: usize, len: usize, word: impl Fn(usize) -> u64) -> u32 {
    let (mut i, end, mut n) = (start, start + len, 0);
    while i < end {
        let (w, off) = (i / 64, i % 64);
        let take = (64 - off).min(end - i);
        let mask = if take == 64 { u64::MAX } else { ((1u64 << take) - 1) << off };
        n += (word(w) & mask).count_ones();
        i += take;
    }
    n
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::presets;
    use rand::{Rng, SeedableRng};

    /// The bitmap scan finds exactly the valid pages, also in blocks that straddle 64-page
    /// words (48 pages per block), and follows remaps and overwrites.
    #[test]
    fn next_valid_follows_map_unmap_and_remap() {
        let mut geo = presets::load("tiny").unwrap().geometry;
        geo.pages_per_block = 48;
        let mut ftl = Ftl::new(&geo, 1000, 1000);
        let b = BlockId(3); // pages 144..192: inside one 64-page word
        let b2 = BlockId(5); // pages 240..288: crosses the boundary at 256
        for (l, i) in [(1u32, 0u32), (2, 15), (3, 47)] {
            ftl.map(Lpn(l), geo.ppn(b, i));
        }
        for (l, i) in [(4u32, 10u32), (5, 16), (6, 17)] {
            ftl.map(Lpn(l), geo.ppn(b2, i));
        }
        let scan = |ftl: &Ftl, blk: BlockId| {
            let mut out = Vec::new();
            let mut from = 0;
            while let Some(p) = ftl.next_valid_in_block(blk, from) {
                out.push(geo.page_in_block(p));
                from = geo.page_in_block(p) + 1;
            }
            out
        };
        assert_eq!(scan(&ftl, b), vec![0, 15, 47]);
        assert_eq!(scan(&ftl, b2), vec![10, 16, 17]);
        assert_eq!(scan(&ftl, BlockId(4)), Vec::<u32>::new());
        // Overwrite LPN 2 elsewhere, move LPN 5 by GC, drop LPN 3.
        ftl.map(Lpn(2), geo.ppn(BlockId(4), 0));
        assert!(ftl.remap_if_current(geo.ppn(b2, 16), geo.ppn(BlockId(4), 1)));
        assert!(!ftl.remap_if_current(geo.ppn(b2, 16), geo.ppn(BlockId(4), 2)));
        ftl.unmap(Lpn(3));
        // Invalidated pages keep their last owner in the reverse map; only the bitmap (and
        // the L2P, which no longer points back) says they are stale.
        assert_eq!(ftl.p2l[geo.ppn(b, 15).idx()], 2);
        assert!(!ftl.is_valid(geo.ppn(b, 15)) && ftl.lookup(Lpn(2)) == Some(geo.ppn(BlockId(4), 0)));
        assert_eq!(ftl.p2l[geo.ppn(b, 47).idx()], 3);
        assert_eq!(ftl.lookup(Lpn(3)), None);
        assert_eq!(scan(&ftl, b), vec![0]);
        assert_eq!(scan(&ftl, b2), vec![10, 17]);
        assert_eq!(scan(&ftl, BlockId(4)), vec![0, 1]);
        assert_eq!(ftl.next_valid_in_block(b2, 18), None);
        assert_eq!(ftl.blocks.valid[b.idx()], 1);
        for blk in 3..6 {
            ftl.blocks.allocated[blk] = 48; // as if written by a frontier
        }
        ftl.check_invariants().unwrap();
    }

    /// The summed pair check passes exactly when the page-by-page one does: on a consistent
    /// map (oracle versions beside the entries or not), and on each kind of damage to the
    /// maps and the bitmap, one at a time at random places (the page-by-page check then
    /// names it).
    #[test]
    fn summed_pair_check_agrees_with_the_page_by_page_check() {
        let geo = presets::load("bench-ref").unwrap().geometry;
        let n = 200_000u32;
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(5);
        for versions in [false, true] {
            let fresh = || {
                let mut ftl = Ftl::with_versions(&geo, n, n, versions);
                for l in (0..n).step_by(3) {
                    ftl.map(Lpn(l), Ppn(l * 7 + 1));
                }
                ftl
            };
            let clean = fresh();
            assert_eq!(clean.maps_agree(), Some(u64::from(n.div_ceil(3))));
            assert_eq!(clean.check_l2p_page_by_page(), Ok((u64::from(n.div_ceil(3)), u64::from(n.div_ceil(3)))));
            for case in 0..60 {
                let mut ftl = fresh();
                let l = rng.gen_range(0..n / 3) * 3;
                let p = (l * 7 + 1) as usize;
                match case % 6 {
                    0 => ftl.p2l[p] = l + 3,                                   // reverse map names another page
                    1 => ftl.valid_bits[p / 64] &= !(1 << (p % 64)),          // a mapped page's bit lost
                    2 => ftl.valid_bits[(p + 1) / 64] |= 1 << ((p + 1) % 64), // a stray bit
                    3 => ftl.l2p[l as usize + 1] = l * 7 + 1,                 // two pages on one
                    4 => {
                        // Two entries swapped on one side only.
                        let (a, b) = (l as usize, ((l + 3) % (n / 3 * 3)) as usize);
                        let (x, y) = (ftl.l2p[a], ftl.l2p[b]);
                        ftl.l2p[a] = y;
                        ftl.l2p[b] = x;
                    }
                    _ => ftl.l2p[l as usize] = ((l + 3) % n) * 7 + 1 + 1,      // points at an unowned page
                }
                let exact = ftl.check_l2p_page_by_page();
                let fast = ftl.maps_agree();
                assert_eq!(fast.is_some(), exact.as_ref().is_ok_and(|(m, b)| m == b) && ftl.valid_pages() == exact.as_ref().unwrap().0, "case {case}: {exact:?}");
                assert_eq!(fast, None, "case {case}");
                assert!(ftl.check_invariants().is_err(), "case {case}");
            }
        }
    }

    /// The check finds each kind of damage, with the message a single pass in logical order
    /// gives: the lowest logical page at fault, even in another of the parallel chunks;
    /// block counts before the bitmap; a missing or a stray valid bit.
    #[test]
    fn check_invariants_reports_each_kind_of_damage() {
        let geo = presets::load("bench-ref").unwrap().geometry;
        let n = 300_000u32;
        let fresh = || {
            let mut ftl = Ftl::new(&geo, n, n);
            // Every 7th logical page, on pages spread over many blocks.
            for l in (0..n).step_by(7) {
                ftl.map(Lpn(l), Ppn(l * 5));
            }
            for a in ftl.blocks.allocated.iter_mut() {
                *a = geo.pages_per_block;
            }
            ftl
        };
        fresh().check_invariants().unwrap();
        // Reverse map: two faults in different chunks; the lower one is reported.
        let mut ftl = fresh();
        ftl.p2l[(280_000 * 5) as usize] = 1;
        ftl.p2l[(70_000 * 5) as usize] = 2;
        assert_eq!(ftl.check_invariants().unwrap_err(), "l2p[70000] = 350000 but p2l[350000] = 2");
        // A block's count.
        let mut ftl = fresh();
        let b = ftl.blocks.locate(Ppn(7 * 5 * 40)).0;
        ftl.blocks.valid[b] += 1;
        assert!(ftl.check_invariants().unwrap_err().starts_with(&format!("block {b}: valid count")));
        // A stray bit (an unmapped page marked valid): its block's count is still right by
        // the L2P, so the bitmap is named.
        let mut ftl = fresh();
        ftl.valid_bits[3] |= 1 << 1;
        let e = ftl.check_invariants().unwrap_err();
        assert!(e.starts_with("valid bitmap:"), "{e}");
        // A missing bit.
        let mut ftl = fresh();
        let p = Ppn(7 * 5 * 3).idx();
        ftl.valid_bits[p / 64] &= !(1 << (p % 64));
        let e = ftl.check_invariants().unwrap_err();
        assert!(e.starts_with("valid bitmap:") && e.contains("mapped pages marked valid"), "{e}");
        // More valid pages than allocated in a block.
        let mut ftl = fresh();
        ftl.blocks.allocated[b] = 0;
        assert!(ftl.check_invariants().unwrap_err().contains("valid pages but only 0 allocated"));
    }

    /// Counting a block's valid pages from the bitmap and from the L2P agree, for blocks
    /// that straddle 64-page words too (48 pages per block).
    #[test]
    fn block_counts_from_bits_match_the_l2p() {
        let mut geo = presets::load("tiny").unwrap().geometry;
        geo.pages_per_block = 48;
        let total = geo.total_pages();
        let n = total / 2;
        let mut ftl = Ftl::new(&geo, n, n);
        // Distinct pages: a prime multiplier that does not divide `total` permutes 0..total.
        assert!(!total.is_multiple_of(1_000_003));
        let mut x = 12345u64;
        for l in 0..n {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            if x >> 62 != 0 {
                ftl.map(Lpn(l), Ppn((u64::from(l) * 1_000_003 % u64::from(total)) as u32));
            }
        }
        assert_eq!(ftl.valid_per_block_from_bits(), ftl.valid_per_block_from_l2p());
        assert_eq!(ftl.valid_per_block_from_bits(), ftl.blocks.valid);
        assert_eq!(count_bits(&[u64::MAX, 0b1011], 60, 8), 4 + 3);
    }
}
