//! The content-aware schemes' GC steps (SplitGC paper): SplitGC defers a victim's duplicate pages
//! instead of moving them (§3.3), CAGC reads a page whose content already has a copy and
//! shares that copy instead of writing it, DAGC moves (or drops) its kept invalid pages, and
//! before any erase the last copy of a content still shared is rewritten for a sharer.
//! Also what those steps' transactions change when they finish (fingerprint reads,
//! rewrites).
//!
//! Does not do: the ordinary valid-page move and erase (gc_path.rs), when deferred pages are
//! written (background.rs).

use super::Ctr;
use crate::ftl::content::VIRT;
use crate::ftl::{Stream, NONE};
use crate::gc::content::ContentKind;
use crate::scheduler::txn::NO_REQ;
use crate::scheduler::TxnKind;
use crate::sim::engine::Simulation;
use crate::units::{BlockId, Lpn, PlaneId, Ppn};

impl Simulation {
    /// The content-aware part of the next GC step on `plane` (victim `victim`): SplitGC
    /// defers duplicate pages (no work: the cursor moves past them), CAGC reads a page whose
    /// content has a copy instead of moving it, and before the erase DAGC moves (or drops)
    /// its kept pages and any last copy of a shared content is rewritten. `Some(t)`: issue `t`
    /// (`None` inside: nothing to do now); `None`: carry on with the ordinary step.
    #[cold]
    #[inline(never)]
    pub(in crate::sim::engine) fn content_gc_step(&mut self, plane: PlaneId, victim: BlockId) -> Option<Option<u32>> {
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
        // DAGC keeps its cached pages: move them before the erase (the SplitGC paper, "Comparators":
        // kept pages count as valid, so DAGC migrates more than greedy; docs/splitgc.md,
        // "DAGC"). Two cases drop a kept page instead (its checksum is forgotten and the
        // page erased with the block):
        // - below the hard threshold: space first;
        // - no gain: after moving it, the erase would free no more pages than collecting
        //   this victim wrote. Greedy's candidates always hold a page GC need not move, so
        //   each victim gains at least one; DAGC's may be all valid and kept pages, and
        //   when every candidate is, moving them trades a block for a block forever:
        //   foreground GC never reaches the soft threshold, the host programs queued behind
        //   it never seal their blocks into candidates, and the run never ends (tiny,
        //   bench-ref, 14,000 requests; tests/splitgc.rs). Dropping keeps greedy's worst
        //   case, one page of net gain per victim, and leaves every victim that gains
        //   something as it was.
        if kind == ContentKind::Dagc {
            let ppb = self.ftl.geo.pages_per_block;
            let move_kept = self.content.as_ref().is_some_and(|w| w.params.move_kept);
            while let Some(p) = self.dagc_kept_page(victim) {
                if !move_kept {
                    // The paper's DAGC migrates the valid pages only: kept pages go with
                    // the erase (ContentParams::move_kept).
                    self.ct().cache.as_mut().expect("dagc").forget(p);
                    self.cw().add(Ctr::DagcKeptPagesErased, 1);
                    continue;
                }
                let urgent = self.ftl.free_blocks(plane) < self.hard;
                let written = self.content.as_ref().map_or(0, |w| w.victim_written[plane.idx()]);
                let no_gain = written + 2 > ppb;
                if urgent || no_gain {
                    self.ct().cache.as_mut().expect("dagc").forget(p);
                    self.cw().add(if urgent { Ctr::DagcKeptPagesDropped } else { Ctr::DagcKeptPagesDroppedNoGain }, 1);
                    continue;
                }
                let dst = self.gc_destination(plane, Stream::Gc)?;
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
            // A shared content's copy: CAGC's cold region when its references reach it.
            let stream = if self.cold_refs == 0 { Stream::Gc } else { self.cagc_stream(p) };
            let dst = self.gc_destination(plane, stream)?;
            self.gc[plane.idx()].in_flight = true;
            self.cw().add(Ctr::LastCopiesRescued, 1);
            self.ct().hold(c);
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
    pub(super) fn dagc_kept_page(&self, victim: BlockId) -> Option<u32> {
        let ct = self.ftl.content.as_ref()?;
        let cache = ct.cache.as_ref()?;
        let first = self.ftl.geo.ppn(victim, 0).0;
        (first..first + self.ftl.geo.pages_per_block).find(|&p| cache.holds(p))
    }

    /// A page of `stream` on `plane` for content work, or the device's fatal stop.
    pub(super) fn gc_destination(&mut self, plane: PlaneId, stream: Stream) -> Option<u32> {
        match self.ftl.allocate(plane, stream, 0) {
            Some((dst, took)) => {
                if self.cold_refs != 0 {
                    self.cagc_placed(stream, dst, took);
                }
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

    /// Logical pages that read physical page `p`: its owner while the page is valid, and
    /// when `p` is the copy that serves a content other logical pages share (the first
    /// listed copy, `Content::serving_copy`), each sharer. A serving copy its owner
    /// overwrote still serves the sharers, so it counts them.
    pub(in crate::sim::engine) fn page_refs(&self, p: u32) -> usize {
        let ct = self.ftl.content.as_ref().expect("content");
        let c = ct.page[p as usize];
        let serves = c != 0 && ct.serving_copy(c) == Some(Ppn(p));
        let shared = if serves { ct.sharers.get(&c).map_or(0, |s| s.len()) } else { 0 };
        usize::from(self.ftl.is_valid(Ppn(p))) + shared
    }

    /// CAGC's region for GC's copy of page `p`: cold when at least `cold_refs` logical
    /// pages read it, hot (the ordinary GC frontier) otherwise.
    #[cold]
    #[inline(never)]
    pub(in crate::sim::engine) fn cagc_stream(&self, p: u32) -> Stream {
        if self.page_refs(p) >= self.cold_refs as usize {
            Stream::GcCold
        } else {
            Stream::Gc
        }
    }

    /// GC took page `dst` of `stream` (`took`: opening a block): count the cold placements
    /// and remember which blocks the cold frontier opened.
    #[cold]
    #[inline(never)]
    pub(in crate::sim::engine) fn cagc_placed(&mut self, stream: Stream, dst: Ppn, took: bool) {
        if stream != Stream::GcCold {
            return;
        }
        let b = self.ftl.geo.block_of(dst);
        let w = self.cw();
        w.add(Ctr::CagcPagesPlacedCold, 1);
        if took {
            w.cold_blocks[b.idx()] = true;
        }
    }

    /// The victim's block is about to be erased: its pages stop being copies of anything.
    #[cold]
    #[inline(never)]
    pub(in crate::sim::engine) fn content_erasing(&mut self, victim: BlockId) {
        self.ct().erase(victim);
        let plane = self.ftl.geo.plane_of_block(victim);
        let w = self.cw();
        w.victim_written[plane.idx()] = 0;
        if let Some(cold) = w.cold_blocks.get_mut(victim.idx()) {
            *cold = false;
        }
    }

    /// A GC copy finished: `dst` holds `src`'s data (`moved`: and its owner now maps there).
    #[cold]
    #[inline(never)]
    pub(in crate::sim::engine) fn content_moved(&mut self, src: u32, dst: u32, moved: bool) {
        self.oracle.copy_content(src, dst);
        let plane = self.ftl.blocks.plane_of(Ppn(src));
        self.cw().victim_written[plane.idx()] += 1;
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
    pub(in crate::sim::engine) fn fingerprint_done(&mut self, plane: PlaneId, p: u32, lpn: u32, c: u32, scrub: Option<bool>) {
        if let Some(fingerprint) = scrub {
            self.scrub_done(p, c, fingerprint);
            return;
        }
        // CAGC: share the copy if the page is still its owner's and a copy is still listed.
        let b = BlockId(self.ftl.blocks.locate(Ppn(p)).0 as u32);
        let ct = self.ftl.content.as_ref().expect("content");
        let still = self.ftl.is_valid(Ppn(p)) && self.ftl.p2l[p as usize] == lpn;
        if still && ct.other_copy(p, b, |_| true).is_some() {
            self.oracle.check(&self.ftl.l2p, lpn, self.oracle.page(p), "GC fingerprint read", self.now.0);
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
    pub(in crate::sim::engine) fn rewrite_done(&mut self, plane: PlaneId, lpn: u32, src: u32, dst: u32, c: u32, rescue: bool) {
        if !rescue {
            let w = self.cw();
            w.deferred_in_flight = w.deferred_in_flight.checked_sub(1).expect("a deferred write finished that was not counted");
        }
        let sealed = self.ftl.blocks.mark_programmed(&self.ftl.geo, Ppn(dst), self.now.0);
        self.c.gc_pages_programmed += 1;
        self.ct().set_page(dst, c);
        // The reference taken when the write was issued (`hold`).
        self.ct().release(c);
        if self.ftl.l2p[lpn as usize] == VIRT | c {
            self.oracle.place_copy(&self.ftl.l2p, lpn, src, dst, self.now.0);
            self.ftl.map(Lpn(lpn), Ppn(dst));
            self.ftl.p2l[dst as usize] = lpn;
            self.ct().learn(dst);
            self.cw().add(if rescue { Ctr::RescuePagesWritten } else { Ctr::DeferredPagesWritten }, 1);
        } else {
            self.oracle.copy_content(src, dst);
            self.cw().add(Ctr::DeferredWritesSuperseded, 1);
        }
        if rescue {
            self.cw().victim_written[plane.idx()] += 1;
            self.gc_op_done(plane, sealed);
        } else if sealed {
            self.free_changed(plane);
        }
    }
}
