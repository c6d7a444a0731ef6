//! The content-aware schemes' work in the engine (the SplitGC paper; the mechanisms are described in
//! `gc::content`): page contents on host writes, reads of logical pages that share another
//! page's copy, SplitGC's read scrub and deferred writes, CAGC's deduplicating GC reads,
//! DAGC's revalidated writes and kept pages, and the rescue of a content's last copy before
//! its block is erased.
//!
//! Here: the scheme's state and counters, set-up, page contents on host writes and reads of
//! shared copies, and the report. `gc.rs` has the GC steps (deferral, CAGC's reads, DAGC's
//! kept pages, rescues); `background.rs` the scrub and deferred writes, with the three rules
//! that keep them out of the way of host I/O and GC; `power_cut.rs` what a power cut loses
//! of this work and how it is re-derived from the tables that survive.
//!
//! Controller time per scrubbed page (ECC, SHA-1, table update) is pipelined with the next
//! read and holds no plane; it is reported, not waited for.
//!
//! Every entry point is out of line and behind one `Option` test, so runs of other schemes
//! execute none of this.

mod background;
mod gc;
mod power_cut;

use super::Simulation;
use crate::ftl::content::{Content, VIRT};
use crate::ftl::BlockState;
use crate::gc::content::bloom::{Bloom, Probe};
use crate::gc::content::scrub::Scrub;
use crate::gc::content::{ContentKind, ContentParams};
use crate::host::HostRequest;
use crate::scheduler::TxnKind;
use crate::units::{Lpn, Nanos, PlaneId, Ppn};
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
    CagcPagesPlacedCold => "cagc_pages_placed_cold",
    DagcKeptPagesDropped => "dagc_kept_pages_dropped",
    DagcKeptPagesDroppedNoGain => "dagc_kept_pages_dropped_no_gain",
    DagcKeptPagesErased => "dagc_kept_pages_erased",
    DagcKeptPagesMoved => "dagc_kept_pages_moved",
    DagcRevalidatedWrites => "dagc_revalidated_writes",
    DeferredPages => "deferred_pages",
    DeferredPagesWritten => "deferred_pages_written",
    DeferredQueueMax => "deferred_queue_max",
    DeferredWritesSuperseded => "deferred_writes_superseded",
    FingerprintTableLookups => "fingerprint_table_lookups",
    LastCopiesRescued => "last_copies_rescued",
    PowerCutDagcKeptPages => "power_cut_dagc_kept_pages",
    PowerCutDeferredDropped => "power_cut_deferred_dropped",
    PowerCutDeferredRequeued => "power_cut_deferred_requeued",
    PowerCutScrubPassesAborted => "power_cut_scrub_passes_aborted",
    PowerCutSharedReads => "power_cut_shared_reads",
    RescuePagesWritten => "rescue_pages_written",
    ScrubControllerNs => "scrub_controller_ns",
    ScrubDuplicatesFound => "scrub_duplicates_found",
    ScrubFingerprintNs => "scrub_fingerprint_ns",
    ScrubPagesFingerprinted => "scrub_pages_fingerprinted",
    ScrubPagesRead => "scrub_pages_read",
    ScrubPassesParked => "scrub_passes_parked",
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
    /// Deferred writes taken from the queue whose rewrite has not finished (a power cut
    /// counts them with the queue it drops).
    deferred_in_flight: u32,
    /// The units on each channel.
    channel_units: Vec<Vec<u32>>,
    /// Per unit: it found background work but left it because its channel was in GC; it is
    /// woken when the channel's GC is over (`content_channel_check`).
    held_back: Vec<bool>,
    /// Per channel: how many of its units are `held_back` (checked after every completion).
    held_back_on: Vec<u32>,
    /// Per plane: the Bloom filter probe of the page its scrub read is fingerprinting,
    /// computed (and prefetched) when the read was issued (a plane has at most one scrub
    /// read in flight: background work runs one page at a time on an idle unit).
    scrub_probe: Vec<Option<Probe>>,
    /// Per plane: pages written so far for its current victim (moves and rescues; reset
    /// when the victim's erase is issued). DAGC moves a kept page only while the erase
    /// still frees more than that (`content_gc_step`).
    victim_written: Vec<u32>,
    /// CAGC with hot/cold placement: per block, opened by the cold frontier (reset at its
    /// erase); empty otherwise.
    cold_blocks: Vec<bool>,
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

    /// Add `n` to a counter reported only when something happened (`n > 0`): the power
    /// cuts' counters stay out of the reports of runs without cuts.
    fn add_some(&mut self, k: Ctr, n: u64) {
        if n > 0 {
            self.add(k, n);
        }
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
        // `channel_in_gc` reads a channel's planes as one slice of the GC table.
        assert!(
            self.units.iter().all(|u| (u.first_plane..u.first_plane + u.num_planes).all(|p| geo.channel_of(PlaneId(p)) == u.channel)),
            "planes are numbered channel-major"
        );
        let mut content = Content::new(geo);
        content.delist_invalid = cs.params.delist_invalid;
        if cs.kind == ContentKind::Dagc {
            let cap = if cs.params.cache_pages == 0 { geo.total_pages() / 100 } else { cs.params.cache_pages };
            content.cache = Some(crate::ftl::content::Cache::new(cap, geo.total_blocks(), geo.pages_per_block));
        }
        self.ftl.content = Some(Box::new(content));
        self.oracle.track_content(&self.ftl.l2p);
        // A fingerprinted fill is known to SplitGC's scrub table and CAGC's index alike.
        self.fill_content(cs.params.fill_dups, cs.kind != ContentKind::Dagc && cs.params.fill_scrubbed);
        if cs.kind == ContentKind::Cagc {
            self.cold_refs = cs.params.cold_refs;
            let fp = Nanos((cs.params.sha_us + cs.params.manage_us) * 1000);
            self.costs = crate::scheduler::PhaseCosts::with_gc_fingerprint(&self.ftl.geo, &self.dev.timing, fp);
        }
        let split = cs.kind == ContentKind::SplitGc;
        self.content = Some(Box::new(ContentWork {
            kind: cs.kind,
            scrub: split.then(|| Scrub::new(geo.planes(), geo.blocks_per_plane, cs.params.groups, cs.params.check_all)),
            bloom: split.then(|| Bloom::new(u64::from(geo.total_pages()), cs.params.bloom_bits)),
            deferred: vec![VecDeque::new(); geo.planes() as usize],
            deferred_in_flight: 0,
            channel_units: {
                let mut by_channel = vec![Vec::new(); self.channels.len()];
                for (u, unit) in self.units.iter().enumerate() {
                    by_channel[unit.channel.idx()].push(u as u32);
                }
                by_channel
            },
            held_back: vec![false; self.units.len()],
            held_back_on: vec![0; self.channels.len()],
            scrub_probe: vec![None; geo.planes() as usize],
            victim_written: vec![0; geo.planes() as usize],
            cold_blocks: if cs.kind == ContentKind::Cagc && cs.params.cold_refs != 0 { vec![false; geo.total_blocks() as usize] } else { Vec::new() },
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
            ct.set_page(p, c);
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
        self.scrub_note_write();
        let page = self.page_bytes;
        let first_block = r.offset / 4096;
        let first_page = self.page_index(r.offset);
        for (k, &lpn) in lpns.iter().enumerate() {
            // The page's 4 KiB blocks in the request's fingerprint list (page-aligned pages
            // of 4 KiB or a multiple; anything else is unknown content).
            let c = self.page_content_of(r, first_block, first_page + k as u64, page);
            self.reqs.get(slot).pending += 1;
            if self.content.as_ref().is_some_and(|w| w.kind == ContentKind::Dagc) && self.dagc_revalidate(slot, lpn, c) {
                // The old page holds the content: the arrival's reference goes.
                self.ct().release(c);
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
        // Held until the write is mapped (`content_mapped`), so the id cannot be freed and
        // reused while the write waits for a page.
        match self.ct().acquire(fp) {
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
        self.ct().set_page(ppn, c);
        self.ct().release(c);
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
        self.oracle.write(&mut self.ftl.l2p, lpn, p);
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
        if self.cuts.as_ref().is_some_and(|pc| pc.cuts > 0) {
            self.cw().add(Ctr::PowerCutSharedReads, 1);
        }
        let plane = self.ftl.blocks.plane_of(Ppn(ppn));
        let t = self.new_txn(TxnKind::Read, plane, lpn, ppn, slot);
        self.enqueue_user(t);
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
        extra.insert("contents_held_at_end".into(), ct.live());
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
        if self.cold_refs != 0 {
            // Where CAGC's placement left the pages that many logical pages read.
            let [shared_cold, shared_hot, unshared_cold] = self.cagc_placement_at_end(&w.cold_blocks);
            extra.insert("cagc_cold_blocks_at_end".into(), w.cold_blocks.iter().filter(|&&c| c).count() as u64);
            extra.insert("cagc_shared_pages_in_cold_blocks_at_end".into(), shared_cold);
            extra.insert("cagc_shared_pages_elsewhere_at_end".into(), shared_hot);
            extra.insert("cagc_unshared_pages_in_cold_blocks_at_end".into(), unshared_cold);
        }
    }

    /// Pages read by at least `cold_refs` logical pages (`page_refs`) in cold blocks and in
    /// the others, and pages read by fewer (but some) in cold blocks.
    fn cagc_placement_at_end(&self, cold_blocks: &[bool]) -> [u64; 3] {
        let mut out = [0u64; 3];
        let ppb = self.ftl.geo.pages_per_block;
        for (b, &cold) in cold_blocks.iter().enumerate() {
            let first = self.ftl.geo.ppn(crate::units::BlockId(b as u32), 0).0;
            for p in first..first + ppb {
                let refs = self.page_refs(p);
                if refs == 0 {
                    continue;
                }
                let shared = refs >= self.cold_refs as usize;
                match (shared, cold) {
                    (true, true) => out[0] += 1,
                    (true, false) => out[1] += 1,
                    (false, true) => out[2] += 1,
                    (false, false) => {}
                }
            }
        }
        out
    }
}
