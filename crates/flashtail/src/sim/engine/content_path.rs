//! The content-aware schemes' work in the engine (spec 04; the mechanisms are described in
//! `gc::content`): page contents on host writes, reads of logical pages that share another
//! page's copy, SplitGC's read scrub and deferred writes, CAGC's deduplicating GC reads,
//! DAGC's revalidated writes and kept pages, and the rescue of a content's last copy before
//! its block is erased.
//!
//! Background work (scrub reads, deferred writes) is idle-time work (SplitGC §3.2: "a
//! background, low-priority task", "interrupted by high-priority user I/O"; §3.3: deferred
//! writes "during idle time"), by three rules (docs/splitgc.md, "Background work and
//! priorities"):
//! 1. it starts only on a unit with nothing else to do, one page at a time, so host I/O
//!    waits for at most one such operation;
//! 2. it does not start while a plane on the unit's channel has GC granted
//!    ([`Simulation::channel_in_gc`]): its transfers would slip into the gaps between GC's
//!    and stretch every plane-blocking GC on the channel; units that held work back are
//!    woken when the channel's GC is over;
//! 3. on a busy channel its transfers queue last, behind GC copies (`Txn::channel_class`),
//!    but a background transaction waiting for the channel still holds its unit, so
//!    whatever queues on that unit behind it (a host request, a GC grant) lends it its own
//!    class for the rest of the wait (priority inheritance,
//!    [`Simulation::lend_channel_class`]).
//!
//! Controller time per scrubbed page (ECC, SHA-1, table update) is pipelined with the next
//! read and holds no plane; it is reported, not waited for.
//!
//! Every entry point is out of line and behind one `Option` test, so runs of other schemes
//! execute none of this.

use super::Simulation;
use crate::ftl::content::{Content, VIRT};
use crate::ftl::{BlockState, Stream, NONE};
use crate::gc::content::bloom::Bloom;
use crate::gc::content::scrub::Scrub;
use crate::gc::content::{ContentKind, ContentParams};
use crate::host::HostRequest;
use crate::scheduler::txn::{CLASS_GC, CLASS_READ, CLASS_WRITE, NO_REQ};
use crate::scheduler::TxnKind;
use crate::units::{BlockId, Lpn, Nanos, PlaneId, Ppn};
use std::collections::{BTreeMap, VecDeque};

/// Engine timer tokens (the engine bit, `FREE_CHANGE_TOKEN`, set: no policy token can
/// look like them): start a scrub pass; wake a unit (the low 32 bits) to look for work.
pub(super) const SCRUB_TOKEN: u64 = super::FREE_CHANGE_TOKEN | 1 << 62;
pub(super) const WAKE_TOKEN: u64 = super::FREE_CHANGE_TOKEN | 1 << 61;

/// Declares `Ctr`, the scheme's counters, each beside the name it is reported under
/// (`Ctr::NAMES`, once touched), so the two cannot drift apart.
macro_rules! counters {
    ($($v:ident => $name:literal,)*) => {
        #[derive(Clone, Copy)]
        #[repr(u8)]
        enum Ctr {
            $($v,)*
        }

        impl Ctr {
            const NAMES: &'static [&'static str] = &[$($name,)*];
            const N: usize = Ctr::NAMES.len();
        }
    };
}

counters! {
    BackgroundClassLent => "background_channel_class_lent",
    BackgroundHeldForGc => "background_held_for_channel_gc",
    BloomRebuilds => "bloom_rebuilds",
    CagcPagesDeduplicated => "cagc_pages_deduplicated",
    DagcKeptPagesDropped => "dagc_kept_pages_dropped",
    DagcKeptPagesMoved => "dagc_kept_pages_moved",
    DagcRevalidatedWrites => "dagc_revalidated_writes",
    DeferredPages => "deferred_pages",
    DeferredPagesWritten => "deferred_pages_written",
    DeferredQueueMax => "deferred_queue_max",
    DeferredWritesSuperseded => "deferred_writes_superseded",
    FingerprintTableLookups => "fingerprint_table_lookups",
    LastCopiesRescued => "last_copies_rescued",
    RescuePagesWritten => "rescue_pages_written",
    ScrubControllerNs => "scrub_controller_ns",
    ScrubDuplicatesFound => "scrub_duplicates_found",
    ScrubFingerprintNs => "scrub_fingerprint_ns",
    ScrubPagesFingerprinted => "scrub_pages_fingerprinted",
    ScrubPagesRead => "scrub_pages_read",
    ScrubPassesStarted => "scrub_passes_started",
    SharedReads => "shared_reads",
}

/// The engine-side state of a content-aware scheme.
pub(super) struct ContentWork {
    kind: ContentKind,
    params: ContentParams,
    scrub: Option<Scrub>,
    bloom: Option<Bloom>,
    /// SplitGC's waiting queue, per plane of the copy a deferred write will read:
    /// (logical page, content).
    deferred: Vec<VecDeque<(u32, u32)>>,
    /// The units on each channel.
    channel_units: Vec<Vec<u32>>,
    /// Per unit: it found background work but left it because its channel was in GC; it is
    /// woken when the channel's GC is over (`content_channel_check`).
    held_back: Vec<bool>,
    /// The first arrival scheduled the first pass.
    started: bool,
    /// The request source is exhausted: no new scrub pass or scrub read.
    draining: bool,
    /// The content of the write being submitted (set before `submit_write`).
    pub(super) write_content: u32,
    /// Counter values, by `Ctr`; `touched` has bit `k` once counter `k` was updated.
    c: [u64; Ctr::N],
    touched: u32,
}

impl ContentWork {
    // A fixed array, not a map keyed by name: the scrub updates several counters per page
    // read, and string-keyed look-ups were a tenth of a SplitGC run.
    fn add(&mut self, k: Ctr, n: u64) {
        self.c[k as usize] += n;
        self.touched |= 1 << k as u32;
    }

    /// The current scrub pass has pages left to read on `plane` (and the run is not
    /// winding down).
    fn scrub_due(&self, plane: PlaneId) -> bool {
        !self.draining && self.scrub.as_ref().is_some_and(|s| s.active && s.pending(plane))
    }

    fn max(&mut self, k: Ctr, n: u64) {
        let e = &mut self.c[k as usize];
        *e = (*e).max(n);
        self.touched |= 1 << k as u32;
    }
}

impl Simulation {
    /// Set up content tracking for a content-aware scheme (called by `new`).
    pub(super) fn content_setup(&mut self) -> Result<(), String> {
        let Some(cs) = self.scheme.content.clone() else { return Ok(()) };
        let name = &self.scheme_name;
        if self.rain.is_some() || self.flush.is_some() || self.dev.buffer.enabled || self.mesh.is_some() {
            return Err(format!("scheme '{name}' tracks page content, which is not combined with RAIN, the write buffer or the mesh"));
        }
        let geo = &self.ftl.geo.clone();
        if u64::from(geo.total_pages()) >= u64::from(VIRT) {
            return Err(format!("scheme '{name}' needs fewer than 2^31 physical pages"));
        }
        let mut content = Content::new(geo);
        if cs.kind == ContentKind::Dagc {
            let cap = if cs.params.cache_pages == 0 { geo.total_pages() / 100 } else { cs.params.cache_pages };
            content.cache = Some(crate::ftl::content::Cache::new(cap, geo.total_blocks(), geo.pages_per_block));
        }
        self.ftl.content = Some(Box::new(content));
        self.oracle.track_content();
        self.fill_content(cs.params.fill_dups, cs.kind == ContentKind::SplitGc && cs.params.fill_scrubbed);
        if cs.kind == ContentKind::Cagc {
            let fp = Nanos((cs.params.sha_us + cs.params.manage_us) * 1000);
            self.costs = crate::scheduler::PhaseCosts::with_gc_fingerprint(&self.ftl.geo, &self.dev.timing, fp);
        }
        let split = cs.kind == ContentKind::SplitGc;
        self.content = Some(Box::new(ContentWork {
            kind: cs.kind,
            scrub: split.then(|| Scrub::new(geo.planes(), geo.blocks_per_plane, cs.params.groups, cs.params.check_all)),
            bloom: split.then(|| Bloom::new(u64::from(geo.total_pages()), cs.params.bloom_bits)),
            deferred: vec![VecDeque::new(); geo.planes() as usize],
            channel_units: {
                let mut by_channel = vec![Vec::new(); self.channels.len()];
                for (u, unit) in self.units.iter().enumerate() {
                    by_channel[unit.channel.idx()].push(u as u32);
                }
                by_channel
            },
            held_back: vec![false; self.units.len()],
            started: false,
            draining: false,
            write_content: 0,
            c: [0; Ctr::N],
            touched: 0,
            params: cs.params,
        }));
        if let Some(w) = &mut self.content {
            // What earlier scrub cycles learned goes into the Bloom filter too.
            let ct = self.ftl.content.as_ref().expect("content");
            if let Some(b) = &mut w.bloom {
                for c in ct.listed_contents() {
                    b.insert(ct.fingerprint(c));
                }
            }
        }
        Ok(())
    }

    /// Give the preconditioned pages contents: a share `dups` from a pool of popular
    /// contents (1 % of the pages, Zipf 0.8, oldest most popular), the rest unique; with
    /// `scrubbed`, list them all as fingerprinted and mark the later copies duplicates, as a
    /// full scrub cycle would have (ContentParams::fill_dups / fill_scrubbed).
    fn fill_content(&mut self, dups: f64, scrubbed: bool) {
        use rand::SeedableRng;
        if dups <= 0.0 {
            return;
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(self.opts.seed ^ 0xc0_47e7);
        let pool = u64::from(self.ftl.geo.total_pages() / 100).max(1);
        let zipf = crate::workload::zipf::Zipf::new(pool, 0.8);
        let salt = crate::workload::content::mix(self.opts.seed ^ 0xf111_d095);
        let mut lpns: Vec<(u32, u32)> = (0..self.ftl.logical_pages).filter_map(|l| self.ftl.lookup(Lpn(l)).map(|p| (p.0, l))).collect();
        // Physical order: "earlier" copies are the ones a scrub reaches first.
        lpns.sort_unstable();
        for (p, l) in lpns {
            if crate::workload::rng::unit(&mut rng) >= dups {
                continue;
            }
            let k = zipf.sample_n(&mut rng, pool);
            // Fingerprints apart from any trace's (which are hashes or small integers).
            let fp = crate::workload::content::mix(k ^ salt) | 1 << 63;
            let ct = self.ftl.content.as_mut().expect("content");
            let Ok(c) = ct.id_of(fp) else { return };
            ct.page[p as usize] = c;
            self.oracle.write_content(l, p, c);
            if scrubbed && ct.learn(p) > 1 {
                ct.mark_dup(p);
            }
        }
    }

    fn cw(&mut self) -> &mut ContentWork {
        self.content.as_mut().expect("content-aware scheme")
    }

    fn ct(&mut self) -> &mut Content {
        self.ftl.content.as_mut().expect("content-aware scheme")
    }

    /// No more requests will arrive: background work winds down.
    #[cold]
    pub(super) fn content_drain(&mut self) {
        self.cw().draining = true;
    }

    // ----- host writes -------------------------------------------------------------------

    /// Submit a host write's pages with their contents (instead of `submit_batch`).
    #[cold]
    #[inline(never)]
    pub(super) fn content_write(&mut self, slot: u32, lpns: &[u32], r: &HostRequest) {
        let page = self.page_bytes;
        let first_block = r.offset / 4096;
        let first_page = self.page_index(r.offset);
        for (k, &lpn) in lpns.iter().enumerate() {
            // The page's 4 KiB blocks in the request's fingerprint list (page-aligned pages
            // of 4 KiB or a multiple; anything else is unknown content).
            let c = self.page_content_of(r, first_block, first_page + k as u64, page);
            self.reqs.get(slot).pending += 1;
            if self.content.as_ref().is_some_and(|w| w.kind == ContentKind::Dagc) && self.dagc_revalidate(slot, lpn, c) {
                continue;
            }
            self.cw().write_content = c;
            self.submit_write(slot, lpn, false, self.now, true);
        }
    }

    /// The content id of page `page_no` (before wrapping) of write `r` (0: unknown).
    fn page_content_of(&mut self, r: &HostRequest, first_block: u64, page_no: u64, page: u64) -> u32 {
        if r.fingerprints.is_empty() || !page.is_multiple_of(4096) {
            return 0;
        }
        let per = page / 4096;
        let start = page_no * per;
        let mut fp = 0u64;
        for b in start..start + per {
            let Some(&f) = b.checked_sub(first_block).and_then(|i| r.fingerprints.get(i as usize)) else { return 0 };
            fp = if per == 1 { f } else { crate::workload::content::mix(fp ^ f) };
        }
        match self.ct().id_of(fp) {
            Ok(c) => c,
            Err(e) => {
                self.fatal = Some(e);
                0
            }
        }
    }

    /// A host write was mapped to `ppn` (its old page, if any, was `old`): record the
    /// content it carries; DAGC keeps the old page's checksum.
    #[cold]
    #[inline(never)]
    pub(super) fn content_mapped(&mut self, lpn: u32, old: u32, ppn: u32) {
        let c = self.cw().write_content;
        self.oracle.write_content(lpn, ppn, c);
        self.ct().page[ppn as usize] = c;
        self.ct().overwritten(old);
    }

    /// DAGC: a write of content `c` whose checksum matches a kept invalid page takes that
    /// page back instead of programming one; done after a DRAM access (metadata only).
    fn dagc_revalidate(&mut self, slot: u32, lpn: u32, c: u32) -> bool {
        if c == 0 {
            return false;
        }
        let ct = self.ftl.content.as_ref().expect("content");
        let Some(p) = ct.cache.as_ref().and_then(|k| k.page_of(c)) else { return false };
        let (b, _) = self.ftl.blocks.locate(Ppn(p));
        // A page of a block being collected may already be behind the GC's cursor.
        if self.ftl.blocks.state[b] == BlockState::Victim || !self.ftl.blocks.is_programmed(&self.ftl.geo, Ppn(p)) || self.ftl.is_valid(Ppn(p)) {
            return false;
        }
        let old = self.ftl.l2p[lpn as usize];
        self.ct().cache.as_mut().expect("dagc").forget(p);
        self.ftl.map(Lpn(lpn), Ppn(p));
        self.ftl.p2l[p as usize] = lpn;
        self.oracle.check_page_content(lpn, p, c, "DAGC revalidation", self.now.0);
        self.oracle.write(lpn, p);
        self.oracle.write_content(lpn, p, c);
        self.ct().overwritten(old);
        self.cw().add(Ctr::DagcRevalidatedWrites, 1);
        self.schedule(self.now + Nanos(self.dev.timing.dram_hit_ns), super::EV_PAGE_DONE, slot);
        true
    }

    // ----- reads -------------------------------------------------------------------------

    /// The physical copy a virtual map entry (`VIRT | content`) is read from.
    #[cold]
    #[inline(never)]
    pub(super) fn serving_copy(&self, entry: u32) -> u32 {
        let c = entry & !VIRT;
        self.ftl.content.as_ref().and_then(|ct| ct.serving_copy(c)).expect("a shared content keeps a copy").0
    }

    /// A host read of `lpn`, which shares another page's copy (`entry` is its map entry).
    #[cold]
    #[inline(never)]
    pub(super) fn shared_read(&mut self, slot: u32, lpn: u32, entry: u32) {
        let ppn = self.serving_copy(entry);
        self.cw().add(Ctr::SharedReads, 1);
        let plane = self.ftl.blocks.plane_of(Ppn(ppn));
        let t = self.new_txn(TxnKind::Read, plane, lpn, ppn, slot);
        self.enqueue_user(t);
    }

    // ----- GC ----------------------------------------------------------------------------

    /// The content-aware part of the next GC step on `plane` (victim `victim`): SplitGC
    /// defers duplicate pages (no work: the cursor moves past them), CAGC reads a page whose
    /// content has a copy instead of moving it, and before the erase DAGC moves its kept
    /// pages and any last copy of a shared content is rewritten. `Some(t)`: issue `t`
    /// (`None` inside: nothing to do now); `None`: carry on with the ordinary step.
    #[cold]
    #[inline(never)]
    pub(super) fn content_gc_step(&mut self, plane: PlaneId, victim: BlockId) -> Option<Option<u32>> {
        let kind = self.content.as_ref().map(|w| w.kind)?;
        let grant = self.gc[plane.idx()].grant?;
        loop {
            let cursor = self.gc[plane.idx()].cursor;
            let Some(src) = self.ftl.next_valid_in_block(victim, cursor) else { break };
            let ct = self.ftl.content.as_ref().expect("content");
            let c = ct.page[src.idx()];
            let valid = |q: u32| self.ftl.is_valid(Ppn(q));
            let copy = if c == 0 { None } else { ct.other_copy(src.0, victim, valid) };
            match (kind, copy) {
                (ContentKind::SplitGc, Some(_)) if ct.is_dup(src.0) => {
                    // §3.3: not copied now; the logical page reads the other copy and a
                    // deferred write restores its own copy in idle time.
                    let lpn = self.ftl.p2l[src.idx()];
                    self.gc[plane.idx()].cursor = self.ftl.blocks.locate(src).1 + 1;
                    self.ftl.share(Lpn(lpn), c);
                    let q = self.ftl.blocks.plane_of(self.ftl.content.as_ref().and_then(|ct| ct.serving_copy(c)).expect("copy"));
                    let w = self.cw();
                    w.deferred[q.idx()].push_back((lpn, c));
                    w.add(Ctr::DeferredPages, 1);
                    let n = w.deferred.iter().map(|d| d.len() as u64).sum();
                    w.max(Ctr::DeferredQueueMax, n);
                    self.wake(q);
                }
                (ContentKind::Cagc, Some(_)) if grant.steps > 0 => {
                    // CAGC: the page is read and fingerprinted; its content is already on
                    // flash, so it is not written (the owner shares that copy).
                    let lpn = self.ftl.p2l[src.idx()];
                    self.gc[plane.idx()].cursor = self.ftl.blocks.locate(src).1 + 1;
                    self.gc_took_step(plane);
                    self.gc[plane.idx()].in_flight = true;
                    let t = self.new_txn(TxnKind::Fingerprint, plane, lpn, src.0, NO_REQ);
                    self.txns[t as usize].version = c;
                    return Some(Some(t));
                }
                _ => return None,
            }
        }
        if !grant.allow_erase {
            return None;
        }
        // DAGC keeps its cached pages: move them before the erase.
        if kind == ContentKind::Dagc {
            while let Some(p) = self.dagc_kept_page(victim) {
                if self.ftl.free_blocks(plane) < self.hard {
                    // Urgent: space first, the kept checksums are dropped.
                    self.ct().cache.as_mut().expect("dagc").forget(p);
                    self.cw().add(Ctr::DagcKeptPagesDropped, 1);
                    continue;
                }
                let dst = self.gc_destination(plane)?;
                self.gc[plane.idx()].in_flight = true;
                let t = self.new_txn(TxnKind::GcCopy, plane, NONE, p, NO_REQ);
                self.txns[t as usize].dst = dst;
                return Some(Some(t));
            }
        }
        // The last copy of a content still shared must outlive the erase.
        let last = self.ftl.content.as_ref().expect("content").last_copies_in(victim);
        if let Some(&(p, c)) = last.first() {
            let lpn = self.ftl.content.as_ref().expect("content").sharers[&c][0];
            let dst = self.gc_destination(plane)?;
            self.gc[plane.idx()].in_flight = true;
            self.cw().add(Ctr::LastCopiesRescued, 1);
            let t = self.new_txn(TxnKind::Rewrite, plane, lpn, p, NO_REQ);
            let x = &mut self.txns[t as usize];
            x.dst = dst;
            x.version = c;
            x.internal = true;
            return Some(Some(t));
        }
        None
    }

    /// A DAGC-kept page of `victim` not yet moved.
    fn dagc_kept_page(&self, victim: BlockId) -> Option<u32> {
        let ct = self.ftl.content.as_ref()?;
        let cache = ct.cache.as_ref()?;
        let first = self.ftl.geo.ppn(victim, 0).0;
        (first..first + self.ftl.geo.pages_per_block).find(|&p| cache.holds(p))
    }

    /// A GC-stream page on `plane` for content work, or the device's fatal stop.
    fn gc_destination(&mut self, plane: PlaneId) -> Option<u32> {
        match self.ftl.allocate(plane, Stream::Gc, 0) {
            Some((dst, took)) => {
                if took {
                    self.schedule_free_change(plane);
                }
                Some(dst.0)
            }
            None => {
                self.gc[plane.idx()].grant = None;
                self.fatal = Some(format!("plane {plane} has no free page left for GC at t={} ns (raise ftl.gc_reserved_blocks or over-provisioning)", self.now.0));
                None
            }
        }
    }

    /// The victim's block is about to be erased: its pages stop being copies of anything.
    #[cold]
    #[inline(never)]
    pub(super) fn content_erasing(&mut self, victim: BlockId) {
        self.ct().erase(victim);
    }

    /// A GC copy finished: `dst` holds `src`'s data (`moved`: and its owner now maps there).
    #[cold]
    #[inline(never)]
    pub(super) fn content_moved(&mut self, src: u32, dst: u32, moved: bool) {
        self.oracle.copy_content(src, dst);
        let kind = self.content.as_ref().map(|w| w.kind);
        let ct = self.ct();
        ct.moved(src, dst);
        if kind == Some(ContentKind::Cagc) && moved {
            // CAGC fingerprints every page it moves.
            ct.learn(dst);
        }
        if let Some(cache) = &mut ct.cache {
            if let Some(c) = cache.forget(src) {
                cache.insert(dst, c);
                self.cw().add(Ctr::DagcKeptPagesMoved, 1);
            }
        }
    }

    /// A fingerprint read finished: a scrubbed page (`internal`) or a CAGC GC read.
    #[cold]
    #[inline(never)]
    pub(super) fn fingerprint_done(&mut self, plane: PlaneId, p: u32, lpn: u32, c: u32, scrub: Option<bool>) {
        if let Some(fingerprint) = scrub {
            self.scrub_done(p, c, fingerprint);
            return;
        }
        // CAGC: share the copy if the page is still its owner's and a copy is still listed.
        let b = BlockId(self.ftl.blocks.locate(Ppn(p)).0 as u32);
        let ct = self.ftl.content.as_ref().expect("content");
        let still = self.ftl.is_valid(Ppn(p)) && self.ftl.p2l[p as usize] == lpn;
        if still && ct.other_copy(p, b, |_| true).is_some() {
            self.oracle.check(lpn, self.oracle.page(p), "GC fingerprint read", self.now.0);
            self.ftl.share(Lpn(lpn), c);
            self.cw().add(Ctr::CagcPagesDeduplicated, 1);
        } else if still {
            // The copy went meanwhile: the page must be moved after all.
            let g = &mut self.gc[plane.idx()];
            g.cursor = g.cursor.min(self.ftl.blocks.locate(Ppn(p)).1);
        }
        self.gc_op_done(plane, false);
    }

    /// A rewrite finished: `lpn` gets its own copy of content `c` in `dst` if it still
    /// shares `c` (a deferred write, or a rescue before an erase, `rescue`).
    #[cold]
    #[inline(never)]
    pub(super) fn rewrite_done(&mut self, plane: PlaneId, lpn: u32, src: u32, dst: u32, c: u32, rescue: bool) {
        let sealed = self.ftl.blocks.mark_programmed(&self.ftl.geo, Ppn(dst), self.now.0);
        self.c.gc_pages_programmed += 1;
        self.ct().page[dst as usize] = c;
        if self.ftl.l2p[lpn as usize] == VIRT | c {
            self.oracle.place_copy(lpn, src, dst, self.now.0);
            self.ftl.map(Lpn(lpn), Ppn(dst));
            self.ftl.p2l[dst as usize] = lpn;
            self.ct().learn(dst);
            self.cw().add(if rescue { Ctr::RescuePagesWritten } else { Ctr::DeferredPagesWritten }, 1);
        } else {
            self.oracle.copy_content(src, dst);
            self.cw().add(Ctr::DeferredWritesSuperseded, 1);
        }
        if rescue {
            self.gc_op_done(plane, sealed);
        } else if sealed {
            self.free_changed(plane);
        }
    }

    // ----- background work: scrub and deferred writes ------------------------------------

    /// Background work for an idle unit `u`: a deferred write, else a scrub read.
    #[cold]
    #[inline(never)]
    pub(super) fn content_background(&mut self, u: u32) -> Option<u32> {
        let (first, n) = (self.units[u as usize].first_plane, self.units[u as usize].num_planes);
        let ch = self.units[u as usize].channel.idx();
        if self.channel_in_gc(ch) {
            // Not idle time (module doc): wait for the channel's GC to end.
            if (first..first + n).any(|p| self.has_background_work(PlaneId(p))) {
                self.cw().held_back[u as usize] = true;
                self.cw().add(Ctr::BackgroundHeldForGc, 1);
            }
            return None;
        }
        for p in first..first + n {
            if let Some(t) = self.deferred_write(PlaneId(p)) {
                return Some(t);
            }
        }
        for p in first..first + n {
            if let Some(t) = self.scrub_read(PlaneId(p)) {
                return Some(t);
            }
        }
        None
    }

    /// Priority inheritance (module doc): work of channel class `class` now waits on unit
    /// `u`. If the unit's running transaction is background work waiting for its channel in
    /// a later class, it waits in `class` from now on, keeping its place by arrival.
    #[cold]
    #[inline(never)]
    pub(super) fn lend_channel_class(&mut self, u: u32, class: u8) {
        let unit = &self.units[u as usize];
        let t = unit.running;
        if t == crate::scheduler::unit::IDLE || !self.txns[t as usize].background {
            return;
        }
        let ch = unit.channel.idx();
        let Some(w) = self.channels[ch].waiters.iter_mut().find(|w| w.2 == u) else { return };
        if w.0 > class {
            w.0 = class;
            self.cw().add(Ctr::BackgroundClassLent, 1);
        }
    }

    /// The channel class background transaction `t` of unit `u` waits in: its own, or that of
    /// the most urgent work already queued behind it on the unit (priority inheritance,
    /// module doc).
    #[cold]
    #[inline(never)]
    pub(super) fn background_channel_class(&mut self, u: u32, t: u32) -> u8 {
        let own = self.txns[t as usize].channel_class();
        let unit = &self.units[u as usize];
        let (first, n) = (unit.first_plane, unit.num_planes);
        let lent = if !unit.reads.is_empty() {
            CLASS_READ
        } else if !unit.writes.is_empty() {
            CLASS_WRITE
        } else if (first..first + n).any(|p| self.gc[p as usize].foreground()) {
            CLASS_GC
        } else {
            own
        };
        if lent < own {
            self.cw().add(Ctr::BackgroundClassLent, 1);
        }
        lent.min(own)
    }

    /// A plane of channel `ch` has foreground GC granted (not `GcMode::Background`, which
    /// itself waits for idle units).
    fn channel_in_gc(&self, ch: usize) -> bool {
        let w = self.content.as_ref().expect("content");
        w.channel_units[ch].iter().any(|&u| {
            let unit = &self.units[u as usize];
            (unit.first_plane..unit.first_plane + unit.num_planes).any(|p| self.gc[p as usize].foreground())
        })
    }

    /// Plane `plane` has a deferred write queued or scrub reads left in the current pass
    /// (whether they can start is decided when they are taken).
    fn has_background_work(&self, plane: PlaneId) -> bool {
        let w = self.content.as_ref().expect("content");
        !w.deferred[plane.idx()].is_empty() || w.scrub_due(plane)
    }

    /// Unit `u`'s channel may have left GC: wake the units on it that held background work
    /// back for that GC (called after each completion and when a grant finds no victim).
    #[cold]
    #[inline(never)]
    pub(super) fn content_channel_check(&mut self, u: u32) {
        let ch = self.units[u as usize].channel.idx();
        let w = self.content.as_ref().expect("content");
        if !w.channel_units[ch].iter().any(|&v| w.held_back[v as usize]) || self.channel_in_gc(ch) {
            return;
        }
        for k in 0..self.cw().channel_units[ch].len() {
            let v = self.cw().channel_units[ch][k];
            if std::mem::take(&mut self.cw().held_back[v as usize]) && self.units[v as usize].running == crate::scheduler::unit::IDLE {
                self.schedule_token(self.now, WAKE_TOKEN | u64::from(v));
            }
        }
    }

    fn deferred_write(&mut self, plane: PlaneId) -> Option<u32> {
        // Not while the plane is short of free blocks: GC has the reserve.
        if self.ftl.free_blocks(plane) <= self.hard {
            return None;
        }
        loop {
            let (lpn, c) = self.cw().deferred[plane.idx()].pop_front()?;
            if self.ftl.l2p[lpn as usize] != VIRT | c {
                self.cw().add(Ctr::DeferredWritesSuperseded, 1);
                continue;
            }
            let src = self.serving_copy(VIRT | c);
            let q = self.ftl.blocks.plane_of(Ppn(src));
            if q != plane {
                // The copy moved to another plane (GC): that plane writes it.
                self.cw().deferred[q.idx()].push_back((lpn, c));
                self.wake(q);
                continue;
            }
            let dst = self.gc_destination(plane)?;
            let t = self.new_txn(TxnKind::Rewrite, plane, lpn, src, NO_REQ);
            let x = &mut self.txns[t as usize];
            x.dst = dst;
            x.version = c;
            x.background = true;
            return Some(t);
        }
    }

    fn scrub_read(&mut self, plane: PlaneId) -> Option<u32> {
        let w = self.content.as_mut().expect("content");
        if !w.scrub_due(plane) {
            return None;
        }
        let s = w.scrub.as_mut().expect("a due scrub");
        match s.next_page(&self.ftl, plane) {
            Some((p, fp)) => {
                let c = self.ftl.content.as_ref().expect("content").page[p.idx()];
                let t = self.new_txn(TxnKind::Fingerprint, plane, NONE, p.0, NO_REQ);
                let x = &mut self.txns[t as usize];
                x.internal = true;
                x.background = true;
                x.version = c;
                // `parent` carries whether the page is fingerprinted (its group's pass).
                x.parent = u32::from(fp);
                Some(t)
            }
            None => {
                if !s.active {
                    // The pass is over: the next one starts a period later.
                    let at = self.now + Nanos(w.params.period_ms * 1_000_000);
                    self.schedule_token(at, SCRUB_TOKEN);
                }
                None
            }
        }
    }

    /// A scrub read of page `p` (content `c` when issued) finished: ECC check, and in the
    /// pass's group, SHA-1 + Bloom filter + table (§3.2).
    fn scrub_done(&mut self, p: u32, c: u32, fingerprint: bool) {
        let w = self.content.as_mut().expect("content");
        w.add(Ctr::ScrubPagesRead, 1);
        w.add(Ctr::ScrubControllerNs, w.params.ecc_us * 1000);
        if !fingerprint {
            return;
        }
        let fp_ns = (w.params.sha_us + w.params.manage_us) * 1000;
        w.add(Ctr::ScrubPagesFingerprinted, 1);
        w.add(Ctr::ScrubFingerprintNs, fp_ns);
        w.add(Ctr::ScrubControllerNs, fp_ns);
        let ct = self.ftl.content.as_mut().expect("content");
        debug_assert_eq!(ct.page[p as usize], c, "a page changed while being scrubbed");
        // Unique content gets a fingerprint of its own (nothing else can match it).
        let f = if c == 0 { crate::workload::content::mix(u64::from(p) ^ (u64::from(self.ftl.blocks.erases[(p / self.ftl.geo.pages_per_block) as usize]) << 32) ^ 0x5eed) } else { ct.fingerprint(c) };
        let bloom = w.bloom.as_mut().expect("splitgc");
        if !bloom.query(f) {
            bloom.insert(f);
            ct.learn(p);
            return;
        }
        w.add(Ctr::FingerprintTableLookups, 1);
        let others = ct.other_copies(p);
        ct.learn(p);
        if others > 0 {
            ct.mark_dup(p);
            w.add(Ctr::ScrubDuplicatesFound, 1);
        }
    }

    /// Start a scrub pass (its timer fired), unless the run is winding down.
    #[cold]
    #[inline(never)]
    pub(super) fn scrub_pass_start(&mut self) {
        let w = self.content.as_mut().expect("content");
        let Some(s) = w.scrub.as_mut() else { return };
        if w.draining || s.active {
            return;
        }
        if s.group == 0 && s.passes > 0 {
            // A new cycle over the groups: rebuild the Bloom filter from the table.
            let bloom = w.bloom.as_mut().expect("splitgc");
            bloom.clear();
            let ct = self.ftl.content.as_ref().expect("content");
            for c in ct.listed_contents() {
                bloom.insert(ct.fingerprint(c));
            }
            w.add(Ctr::BloomRebuilds, 1);
        }
        let s = w.scrub.as_mut().expect("splitgc");
        s.start();
        w.add(Ctr::ScrubPassesStarted, 1);
        for u in 0..self.units.len() as u32 {
            self.dispatch(u);
        }
    }

    /// The first request arrived: the first scrub pass comes a period later.
    #[cold]
    #[inline(never)]
    pub(super) fn content_first_arrival(&mut self) {
        let w = self.content.as_mut().expect("content");
        if w.started {
            return;
        }
        w.started = true;
        if w.scrub.is_some() {
            let at = self.now + Nanos(w.params.period_ms * 1_000_000);
            self.schedule_token(at, SCRUB_TOKEN);
        }
    }

    /// Let plane `q`'s unit look for work (now, from the event loop: not from inside
    /// another unit's dispatch).
    fn wake(&mut self, q: PlaneId) {
        let u = self.unit_of_plane[q.idx()];
        if self.units[u as usize].running == crate::scheduler::unit::IDLE {
            self.schedule_token(self.now, WAKE_TOKEN | u64::from(u));
        }
    }

    /// Report the scheme's counters.
    pub(super) fn content_report(&self, extra: &mut BTreeMap<String, u64>) {
        let (Some(w), Some(ct)) = (&self.content, &self.ftl.content) else { return };
        for (k, (name, v)) in Ctr::NAMES.iter().zip(w.c).enumerate() {
            if w.touched & (1 << k) != 0 {
                extra.insert((*name).to_string(), v);
            }
        }
        extra.insert("shared_logical_pages_at_end".into(), ct.shared_pages());
        extra.insert("deferred_queue_at_end".into(), w.deferred.iter().map(|d| d.len() as u64).sum());
        extra.insert("distinct_contents".into(), ct.distinct());
        if let Some(b) = &w.bloom {
            extra.insert("bloom_queries".into(), b.queries);
            extra.insert("bloom_positives".into(), b.positives);
            extra.insert("bloom_bytes".into(), b.bytes());
        }
        if let Some(s) = &w.scrub {
            extra.insert("scrub_passes_done".into(), s.passes);
        }
        if let Some(cache) = &ct.cache {
            extra.insert("dagc_kept_pages_at_end".into(), cache.len() as u64);
        }
    }
}
