//! Page content, for the content-aware schemes (SplitGC, CAGC, DAGC; the SplitGC paper): what each
//! physical page holds, which pages the FTL has learned hold which content, and logical
//! pages served by another physical copy of their content (SplitGC's deferred pages, CAGC's
//! shared pages).
//!
//! Content is an id, not bytes: a trace's or generator's 64-bit fingerprint is interned to a
//! dense `u32` the first time it is written. Id 0 is "content nobody else has"
//! (preconditioned data, traces without fingerprints): it never matches anything.
//!
//! Ids are reference counted: a physical page holding the content (valid or not, until its
//! block is erased) and a write accepted but not yet placed (a host write from its arrival,
//! [`Content::acquire`], to its mapping; a deferred or rescue write from its issue,
//! [`Content::hold`], to its program) each hold one. When the last reference goes, no page,
//! list or sharer can name the content any more: its fingerprint is dropped and the id is
//! reused. Every fingerprint ever written was kept before (22-25 bytes per request with no
//! backlog, 105 MiB at 4 million requests, and a failure past 2^31 contents); now the tables
//! grow with the contents the device holds, not with the requests.
//!
//! Two tables, as in SplitGC §3.3:
//! - `known` (the fingerprint table, and SplitGC's secondary mapping table): content → the
//!   physical pages the device has fingerprinted and found to hold it (by read scrub, or by
//!   a GC that fingerprints what it moves). With [`Content::delist_invalid`] (SplitGC §3.3:
//!   "when a copy is invalidated ... the list is updated"; the default) a host overwrite
//!   removes the old page from the list, except the last listed copy of a content that
//!   logical pages still share, which stays readable until the engine rescues it before its
//!   block's erase. Without it a page stays listed, valid or not, until its block is erased
//!   (data outlives invalidation). Either way a listed page is always a readable copy.
//! - `sharers`: content → the logical pages whose map entry is virtual (`VIRT | content`):
//!   their data is read from any listed copy. The FTL keeps at least one copy listed while a
//!   content has sharers; the engine rescues the last copy before an erase (see
//!   [`Content::last_copies_in`]) and [`Content::check`] proves it.
//!
//! Both tables, the duplicate bits and DAGC's cache are controller metadata the
//! supercapacitor flushes at a power loss (SplitGC paper): they survive a power cut, less the pages
//! flash lost ([`Content::forget_page`], from `Ftl::recover`).
//!
//! Does not model: partial-page content, hash collisions (distinct fingerprints are distinct
//! contents), the tables' own flash footprint (the SplitGC paper: flushed by supercapacitor).

use crate::nand::Geometry;
use crate::units::{BlockId, Ppn};
use smallvec::SmallVec;
use std::collections::HashMap;

/// Flag of a virtual L2P entry: the low 31 bits are a content id, not a physical page.
pub const VIRT: u32 = 1 << 31;

/// Pages of one content (most contents have one or two).
pub type Pages = SmallVec<[u32; 2]>;

pub struct Content {
    /// Content id of the data each physical page holds (0: unique or never written).
    pub page: super::tables::Table<u32>,
    /// Fingerprint → content id.
    intern: HashMap<u64, u32>,
    /// Content id → the fingerprint it was interned from (index = id; id 0 unused).
    fingerprints: Vec<u64>,
    /// Content → fingerprinted physical pages holding it (module doc).
    /// Indexed by content id (ids are dense); an empty list: not listed. A vector, not a
    /// map: the scrub looks a content up per page it reads.
    known: Vec<Pages>,
    /// Bit per physical page: listed in `known` (so listing and its test take O(1) even for
    /// a popular content with a long list).
    listed: Vec<u64>,
    /// Content → logical pages mapped virtually to it (module doc).
    pub sharers: HashMap<u32, Pages>,
    /// SplitGC: pages the scrub found to duplicate an earlier fingerprinted page.
    dup_bits: Vec<u64>,
    /// SplitGC: per block, pages with their duplicate bit set (0 lets victim selection skip
    /// the block's bitmap).
    pub dup_marked: Vec<u32>,
    /// DAGC: checksums of invalidated pages (module [`Cache`]).
    pub cache: Option<Cache>,
    /// A host overwrite removes the old page from the fingerprint table (module doc).
    pub delist_invalid: bool,
    pages_per_block: u32,
    /// References per content id (module doc); 0 for a free id.
    refs: Vec<u32>,
    /// Ids whose last reference went, for reuse.
    free: Vec<u32>,
    /// Fingerprints interned so far (a fingerprint that returns after its id was freed
    /// counts again).
    interned: u64,
}

/// DAGC's cache of invalidated pages' checksums: content → an invalid page still holding
/// it, oldest forgotten first once `cap` are kept; with per-block counts for the victim rule.
pub struct Cache {
    by_content: HashMap<u32, u32>,
    by_page: HashMap<u32, u32>,
    order: std::collections::VecDeque<u32>,
    per_block: Vec<u32>,
    cap: usize,
    pages_per_block: u32,
}

impl Cache {
    pub fn new(cap: u32, blocks: u32, pages_per_block: u32) -> Cache {
        Cache { by_content: HashMap::new(), by_page: HashMap::new(), order: Default::default(), per_block: vec![0; blocks as usize], cap: cap as usize, pages_per_block }
    }

    /// Remember that invalid page `p` holds content `c`.
    pub fn insert(&mut self, p: u32, c: u32) {
        if c == 0 || self.cap == 0 {
            return;
        }
        if let Some(old) = self.by_content.insert(c, p) {
            self.by_page.remove(&old);
            self.per_block[(old / self.pages_per_block) as usize] -= 1;
        }
        self.by_page.insert(p, c);
        self.per_block[(p / self.pages_per_block) as usize] += 1;
        self.order.push_back(p);
        while self.by_page.len() > self.cap {
            let Some(q) = self.order.pop_front() else { break };
            self.forget(q);
        }
        // Entries already forgotten are skipped lazily; keep the queue bounded anyway.
        if self.order.len() > 4 * self.cap.max(16) {
            let live = &self.by_page;
            self.order.retain(|q| live.contains_key(q));
        }
    }

    /// Forget page `p` (revalidated, moved or erased); returns its content if it was kept.
    pub fn forget(&mut self, p: u32) -> Option<u32> {
        let c = self.by_page.remove(&p)?;
        self.by_content.remove(&c);
        self.per_block[(p / self.pages_per_block) as usize] -= 1;
        Some(c)
    }

    /// A kept invalid page holding content `c`.
    pub fn page_of(&self, c: u32) -> Option<u32> {
        self.by_content.get(&c).copied()
    }

    /// Keep only the pages `keep` accepts (a power cut's recovery). The pages dropped are
    /// collected and sorted first: the result does not depend on the map's order.
    pub fn retain(&mut self, keep: impl Fn(u32) -> bool) {
        let mut drop: Vec<u32> = self.by_page.keys().copied().filter(|&p| !keep(p)).collect();
        drop.sort_unstable();
        for p in drop {
            self.forget(p);
        }
    }

    /// Is page `p` kept?
    pub fn holds(&self, p: u32) -> bool {
        self.by_page.contains_key(&p)
    }

    pub fn len(&self) -> usize {
        self.by_page.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_page.is_empty()
    }
}

impl Content {
    pub fn new(geo: &Geometry) -> Content {
        let pages = geo.total_pages() as usize;
        Content {
            page: super::tables::filled(pages, 0),
            intern: HashMap::new(),
            fingerprints: vec![0],
            known: vec![Pages::new()],
            listed: vec![0; pages.div_ceil(64)],
            sharers: HashMap::new(),
            dup_bits: vec![0; pages.div_ceil(64)],
            dup_marked: vec![0; geo.total_blocks() as usize],
            cache: None,
            delist_invalid: false,
            pages_per_block: geo.pages_per_block,
            refs: vec![0],
            free: Vec::new(),
            interned: 0,
        }
    }

    /// The content id of a fingerprint (0 stays 0: unknown content), interning it. The id
    /// holds no reference: the caller gives it to a page at once ([`Content::set_page`]).
    pub fn id_of(&mut self, fp: u64) -> Result<u32, String> {
        if fp == 0 {
            return Ok(0);
        }
        if let Some(&id) = self.intern.get(&fp) {
            return Ok(id);
        }
        let id = match self.free.pop() {
            Some(id) => {
                self.fingerprints[id as usize] = fp;
                id
            }
            None => {
                let id = self.fingerprints.len() as u32;
                if id >= VIRT {
                    return Err("more than 2^31 distinct contents held at once".into());
                }
                self.fingerprints.push(fp);
                self.known.push(Pages::new());
                self.refs.push(0);
                id
            }
        };
        self.interned += 1;
        self.intern.insert(fp, id);
        Ok(id)
    }

    /// [`Content::id_of`] for a write accepted now and placed later: the id holds a
    /// reference until [`Content::release`].
    pub fn acquire(&mut self, fp: u64) -> Result<u32, String> {
        let c = self.id_of(fp)?;
        self.hold(c);
        Ok(c)
    }

    /// One more reference to content `c` (a write of it in flight).
    pub fn hold(&mut self, c: u32) {
        if c != 0 {
            self.refs[c as usize] += 1;
        }
    }

    /// Drop a reference taken by [`Content::acquire`] or [`Content::hold`].
    pub fn release(&mut self, c: u32) {
        if c != 0 {
            let r = &mut self.refs[c as usize];
            *r = r.saturating_sub(1);
            self.maybe_free(c);
        }
    }

    /// Physical page `p` now holds content `c` (a program of it).
    pub fn set_page(&mut self, p: u32, c: u32) {
        let old = std::mem::replace(&mut self.page[p as usize], c);
        self.hold(c);
        self.release(old);
    }

    /// Frees `c` once nothing refers to it: no page holds it (so no list does), no write of
    /// it is in flight and no logical page shares it.
    fn maybe_free(&mut self, c: u32) {
        let i = c as usize;
        if c == 0 || self.refs[i] != 0 || !self.known[i].is_empty() || self.sharers.get(&c).is_some_and(|s| !s.is_empty()) {
            return;
        }
        let fp = std::mem::take(&mut self.fingerprints[i]);
        if fp != 0 && self.intern.get(&fp) == Some(&c) {
            self.intern.remove(&fp);
            self.sharers.remove(&c);
            self.free.push(c);
        }
    }

    /// Contents held now (ids in use).
    pub fn live(&self) -> u64 {
        self.intern.len() as u64
    }

    /// The fingerprint content `id` was interned from (what a scrub or GC computes).
    #[inline]
    pub fn fingerprint(&self, id: u32) -> u64 {
        self.fingerprints[id as usize]
    }

    /// Distinct contents seen (a fingerprint whose id was freed counts again when it returns).
    pub fn distinct(&self) -> u64 {
        self.interned
    }

    /// Is physical page `p` a listed copy of its content?
    #[inline]
    pub fn is_known(&self, p: u32) -> bool {
        let i = p as usize;
        self.listed[i / 64] & (1 << (i % 64)) != 0
    }

    /// Set or clear page `p`'s `listed` bit.
    #[inline]
    fn set_listed(&mut self, p: u32, on: bool) {
        let (i, bit) = (p as usize / 64, 1u64 << (p % 64));
        if on {
            self.listed[i] |= bit;
        } else {
            self.listed[i] &= !bit;
        }
    }

    /// Contents with at least one listed copy.
    pub fn listed_contents(&self) -> impl Iterator<Item = u32> + '_ {
        self.known.iter().enumerate().filter(|(_, l)| !l.is_empty()).map(|(c, _)| c as u32)
    }

    /// Listed copies of page `p`'s content other than `p` itself.
    pub fn other_copies(&self, p: u32) -> usize {
        let c = self.page[p as usize];
        if c == 0 {
            return 0;
        }
        self.known[c as usize].len() - usize::from(self.is_known(p))
    }

    /// List page `p` as a copy of its content (fingerprinted by scrub or GC). Returns the
    /// number of copies now listed (0 for unique content, which is never listed).
    pub fn learn(&mut self, p: u32) -> usize {
        let c = self.page[p as usize];
        if c == 0 {
            return 0;
        }
        let listed = self.is_known(p);
        let l = &mut self.known[c as usize];
        if !listed {
            l.push(p);
        }
        let n = l.len();
        self.set_listed(p, true);
        n
    }

    /// A GC moved page `src`'s data to `dst`: `dst` holds the same content, and is listed
    /// if `src` was (the GC updates the fingerprint table with the move, SplitGC §3.3).
    pub fn moved(&mut self, src: u32, dst: u32) {
        let c = self.page[src as usize];
        self.set_page(dst, c);
        if c != 0 && self.is_known(src) {
            self.known[c as usize].push(dst);
            self.set_listed(dst, true);
        }
    }

    /// Mark page `p` a duplicate (scrub), once.
    pub fn mark_dup(&mut self, p: u32) {
        let i = p as usize;
        if self.dup_bits[i / 64] & (1 << (i % 64)) == 0 {
            self.dup_bits[i / 64] |= 1 << (i % 64);
            self.dup_marked[(p / self.pages_per_block) as usize] += 1;
        }
    }

    #[inline]
    pub fn is_dup(&self, p: u32) -> bool {
        let i = p as usize;
        self.dup_bits[i / 64] & (1 << (i % 64)) != 0
    }

    /// Another listed copy of `p`'s content outside block `b`, preferring a valid one
    /// (`valid` says which pages are), for reading or for deferring `p`.
    pub fn other_copy(&self, p: u32, b: BlockId, valid: impl Fn(u32) -> bool) -> Option<u32> {
        let c = self.page[p as usize];
        let l = &self.known[c as usize];
        let outside = |&&q: &&u32| q != p && q / self.pages_per_block != b.0;
        l.iter().filter(outside).find(|&&q| valid(q)).or_else(|| l.iter().find(outside)).copied()
    }

    /// Every listed copy of content `c` (a power-loss audit looks for one that survives).
    pub fn copies(&self, c: u32) -> &[u32] {
        &self.known[c as usize]
    }

    /// A copy to read content `c` from: the first listed page (the list is never empty while
    /// `c` has sharers).
    #[inline]
    pub fn serving_copy(&self, c: u32) -> Option<Ppn> {
        self.known[c as usize].first().map(|&p| Ppn(p))
    }

    /// Pages of block `b` that are the last listed copy of a content with sharers: each must
    /// be rewritten for one of its sharers before the block is erased. One page per content.
    pub fn last_copies_in(&self, b: BlockId) -> Vec<(u32, u32)> {
        let first = b.0 * self.pages_per_block;
        let mut out: Vec<(u32, u32)> = Vec::new();
        for p in first..first + self.pages_per_block {
            let c = self.page[p as usize];
            if c == 0 || out.iter().any(|&(_, oc)| oc == c) || self.sharers.get(&c).is_none_or(|s| s.is_empty()) {
                continue;
            }
            let l = &self.known[c as usize];
            if !l.is_empty() && l.iter().all(|&q| q / self.pages_per_block == b.0) {
                out.push((l[0], c));
            }
        }
        out
    }

    /// Block `b` was erased: its pages hold nothing and are no copies any more.
    pub fn erase(&mut self, b: BlockId) {
        let first = (b.0 * self.pages_per_block) as usize;
        let ppb = self.pages_per_block;
        let mut contents: SmallVec<[u32; 8]> = SmallVec::new();
        let mut held: SmallVec<[u32; 8]> = SmallVec::new();
        for p in first..first + ppb as usize {
            let c = std::mem::take(&mut self.page[p]);
            if c != 0 {
                self.refs[c as usize] -= 1;
                held.push(c);
            }
            if c != 0 && self.is_known(p as u32) {
                self.set_listed(p as u32, false);
                contents.push(c);
            }
            self.dup_bits[p / 64] &= !(1 << (p % 64));
            if let Some(cache) = &mut self.cache {
                cache.forget(p as u32);
            }
        }
        // One pass over each content's list drops all of the block's pages: a popular
        // content has a long list, and a block may hold many of its copies.
        contents.sort_unstable();
        contents.dedup();
        for c in contents {
            let l = &mut self.known[c as usize];
            l.retain(|q| *q / ppb != b.0);
            if l.is_empty() {
                assert!(self.sharers.get(&c).is_none_or(|s| s.is_empty()), "erased the last copy of content {c}, which logical pages still share");
            }
        }
        self.dup_marked[b.idx()] = 0;
        held.sort_unstable();
        held.dedup();
        for c in held {
            self.maybe_free(c);
        }
    }

    /// Page `p` holds nothing any more although its block was not erased (a power cut gave
    /// it up: torn, or never written; `Ftl::recover`): it is no copy of anything, holds no
    /// content, carries no duplicate bit and is no kept page. Returns whether it was listed.
    /// Unlike [`Content::erase`] this does not refuse to drop a shared content's last copy:
    /// recovery leaves that to [`Content::check`], which names the content.
    pub fn forget_page(&mut self, p: u32) -> bool {
        let i = p as usize;
        let c = std::mem::take(&mut self.page[i]);
        let listed = self.is_known(p);
        if listed {
            self.set_listed(p, false);
            self.known[c as usize].retain(|q| *q != p);
        }
        if self.is_dup(p) {
            self.dup_bits[i / 64] &= !(1 << (i % 64));
            self.dup_marked[(p / self.pages_per_block) as usize] -= 1;
        }
        if let Some(cache) = &mut self.cache {
            cache.forget(p);
        }
        if c != 0 {
            self.refs[c as usize] -= 1;
            self.maybe_free(c);
        }
        listed
    }

    /// `lpn` now reads content `c` through a copy (its map entry becomes `VIRT | c`).
    pub fn share(&mut self, lpn: u32, c: u32) {
        debug_assert!(!self.known[c as usize].is_empty(), "sharing content {c} with no copy");
        self.sharers.entry(c).or_default().push(lpn);
    }

    /// `lpn` no longer reads content `c` through a copy (overwritten, trimmed or rewritten).
    pub fn unshare(&mut self, lpn: u32, c: u32) {
        if let Some(s) = self.sharers.get_mut(&c) {
            s.retain(|l| *l != lpn);
            if s.is_empty() {
                self.sharers.remove(&c);
            }
        }
    }

    /// Logical pages mapped virtually now.
    pub fn shared_pages(&self) -> u64 {
        self.sharers.values().map(|s| s.len() as u64).sum()
    }

    /// The tables agree with each other and with `programmed` (O(listed pages)): every
    /// listed page holds its content and is programmed; every content with sharers has a
    /// copy; duplicate counts match the bits. The L2P side is checked by `Ftl`.
    pub fn check(&self, programmed: impl Fn(u32) -> bool) -> Result<(), String> {
        let mut n = 0;
        for (c, l) in self.known.iter().enumerate() {
            n += l.len();
            for &p in l {
                if !self.is_known(p) {
                    return Err(format!("page {p} listed for content {c} has no listed bit"));
                }
                if self.page[p as usize] as usize != c {
                    return Err(format!("page {p} listed for content {c} holds {}", self.page[p as usize]));
                }
                if !programmed(p) {
                    return Err(format!("page {p} listed for content {c} is not programmed"));
                }
            }
        }
        let bits = super::mapping::ones(&self.listed);
        if bits != n as u64 {
            return Err(format!("{n} pages listed, {bits} listed bits"));
        }
        // Every page holding a content holds a reference to it; a freed id is held by none.
        let mut pages = vec![0u32; self.refs.len()];
        for &c in self.page.iter().filter(|&&c| c != 0) {
            pages[c as usize] += 1;
        }
        for (c, (&n, &r)) in pages.iter().zip(&self.refs).enumerate().skip(1) {
            if n > r {
                return Err(format!("content {c} is held by {n} pages but has {r} references"));
            }
            if r > 0 && self.intern.get(&self.fingerprints[c]) != Some(&(c as u32)) {
                return Err(format!("content {c} has {r} references but no fingerprint"));
            }
        }
        for (&c, s) in &self.sharers {
            if !s.is_empty() && self.known[c as usize].is_empty() {
                return Err(format!("content {c} is shared by {} logical pages but has no copy", s.len()));
            }
        }
        let ppb = self.pages_per_block as usize;
        for (b, &n) in self.dup_marked.iter().enumerate() {
            let bits = (b * ppb..(b + 1) * ppb).filter(|&p| self.dup_bits[p / 64] & (1 << (p % 64)) != 0).count();
            if bits != n as usize {
                return Err(format!("block {b}: {n} duplicate pages counted, {bits} marked"));
            }
        }
        Ok(())
    }

    /// A host write replaced a logical page whose map entry was `old`: DAGC keeps the old
    /// page's checksum (a physical page only; nothing for unmapped or virtual entries).
    pub fn overwritten(&mut self, old: u32) {
        if old < VIRT {
            let c = self.page[old as usize];
            if let Some(cache) = &mut self.cache {
                cache.insert(old, c);
            }
            if self.delist_invalid && c != 0 && self.is_known(old) {
                let l = &self.known[c as usize];
                let last_shared = l.len() == 1 && self.sharers.get(&c).is_some_and(|s| !s.is_empty());
                if !last_shared {
                    self.set_listed(old, false);
                    self.known[c as usize].retain(|q| *q != old);
                }
            }
        }
    }

    /// DAGC: kept invalid pages in block `b`.
    pub fn cached_in(&self, b: BlockId) -> u32 {
        self.cache.as_ref().map_or(0, |c| c.per_block[b.idx()])
    }

    /// Valid pages of block `b` marked duplicate (`valid_word(i)` is the validity bitmap).
    pub fn dup_valid_in(&self, b: BlockId, valid_word: impl Fn(usize) -> u64) -> u32 {
        if self.dup_marked[b.idx()] == 0 {
            return 0;
        }
        let first = (b.0 * self.pages_per_block) as usize;
        super::mapping::count_bits_in(first, self.pages_per_block as usize, |w| self.dup_bits[w] & valid_word(w))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::presets;

    /// A content's id is freed when its last page is erased (and not before: a write of it
    /// in flight holds it too), and reused for the next new fingerprint.
    #[test]
    fn ids_are_freed_with_their_last_reference_and_reused() {
        let geo = presets::load("bench-ref").unwrap().geometry;
        let mut ct = Content::new(&geo);
        let a = ct.acquire(0xaaaa).unwrap();
        ct.set_page(3, a);
        ct.set_page(200, a);
        ct.release(a);
        let pending = ct.acquire(0xbbbb).unwrap();
        assert_eq!((ct.live(), ct.distinct()), (2, 2));
        ct.erase(BlockId(0));
        assert_eq!(ct.id_of(0xaaaa).unwrap(), a, "page 200 (block 1) still holds it");
        ct.erase(BlockId(1));
        assert_eq!(ct.live(), 1);
        ct.check(|_| true).unwrap();
        // The pending write's content survives the erases; a new fingerprint takes a's id.
        assert_eq!(ct.id_of(0xbbbb).unwrap(), pending);
        let c = ct.acquire(0xcccc).unwrap();
        assert_eq!((c, ct.fingerprint(c), ct.distinct()), (a, 0xcccc, 3));
        ct.set_page(5, pending);
        ct.release(pending);
        ct.set_page(5, c);
        assert_eq!(ct.live(), 1, "overwriting the page dropped the last reference to 0xbbbb");
        ct.check(|_| true).unwrap();
    }

    /// bench-ref's geometry (128 pages per block) and a table with content `c` in pages
    /// `ps`, all listed.
    fn table(ps: &[u32], c_fp: u64) -> (Content, u32) {
        let geo = presets::load("bench-ref").unwrap().geometry;
        let mut ct = Content::new(&geo);
        let c = ct.id_of(c_fp).unwrap();
        for &p in ps {
            ct.set_page(p, c);
            ct.learn(p);
        }
        (ct, c)
    }

    /// Listing is idempotent, `other_copies` excludes the page itself, a move lists the
    /// destination, and erasing a block drops every copy in it in one go, keeping the order
    /// of the rest (reads are served from the first listed copy).
    #[test]
    fn listing_moves_and_erase() {
        let (mut ct, c) = table(&[5, 7, 300, 9], 0xfeed);
        assert_eq!(ct.learn(7), 4, "a listed page is not listed twice");
        assert_eq!(ct.other_copies(7), 3);
        assert_eq!(ct.serving_copy(c), Some(Ppn(5)));
        ct.moved(300, 400);
        assert!(ct.is_known(400));
        assert_eq!(ct.other_copies(300), 4);
        ct.set_page(130, c); // holds the content, not fingerprinted yet
        assert_eq!(ct.other_copies(130), 5, "an unlisted page counts every listed copy");
        ct.erase(BlockId(0)); // pages 0..128: 5, 7 and 9
        assert!(!ct.is_known(5) && !ct.is_known(7) && !ct.is_known(9));
        assert_eq!(ct.serving_copy(c), Some(Ppn(300)));
        assert_eq!(ct.other_copies(300), 1);
        assert_eq!(ct.listed_contents().collect::<Vec<_>>(), vec![c]);
        ct.check(|p| p != 130).unwrap();
        ct.erase(BlockId(2)); // 300
        ct.erase(BlockId(3)); // 400
        assert_eq!(ct.listed_contents().count(), 0);
        assert_eq!(ct.other_copies(130), 0);
        ct.check(|_| true).unwrap();
    }

    /// Erasing the last copy of a content that logical pages still share is a bug the
    /// table refuses loudly (the engine rescues such copies first).
    #[test]
    #[should_panic(expected = "erased the last copy")]
    fn erasing_a_shared_last_copy_panics() {
        let (mut ct, c) = table(&[3], 0xbeef);
        ct.share(17, c);
        ct.erase(BlockId(0));
    }
}
