//! SplitGC's background work in the engine: the read scrub (passes over one block group at
//! a time, fingerprinting the pages it reads, §3.2) and the deferred writes of pages GC left
//! behind (§3.3).
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
//! Does not do: the fingerprint table and Bloom filter themselves (gc::content, ftl/content.rs),
//! GC's deferral of pages (gc.rs).

use super::{Ctr, SCRUB_TOKEN, WAKE_TOKEN};
use crate::ftl::content::VIRT;
use crate::ftl::{Stream, NONE};
use crate::scheduler::txn::{CLASS_GC, CLASS_READ, CLASS_WRITE, NO_REQ};
use crate::scheduler::TxnKind;
use crate::sim::engine::Simulation;
use crate::units::{Nanos, PlaneId, Ppn};

impl Simulation {
    /// Background work for an idle unit `u`: a deferred write, else a scrub read.
    #[cold]
    #[inline(never)]
    pub(in crate::sim::engine) fn content_background(&mut self, u: u32) -> Option<u32> {
        let (first, n) = (self.units[u as usize].first_plane, self.units[u as usize].num_planes);
        let ch = self.units[u as usize].channel.idx();
        if self.channel_in_gc(ch) {
            // Not idle time (module doc): wait for the channel's GC to end.
            if (first..first + n).any(|p| self.has_background_work(PlaneId(p))) {
                let w = self.cw();
                if !std::mem::replace(&mut w.held_back[u as usize], true) {
                    w.held_back_on[ch] += 1;
                }
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
    pub(in crate::sim::engine) fn lend_channel_class(&mut self, u: u32, class: u8) {
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
    pub(in crate::sim::engine) fn background_channel_class(&mut self, u: u32, t: u32) -> u8 {
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
    pub(super) fn channel_in_gc(&self, ch: usize) -> bool {
        // Planes are numbered channel-major, so a channel's planes (those of its units) are
        // one slice of the GC table: checked on every completion, without the units.
        let n = self.ftl.geo.planes_per_channel() as usize;
        self.gc[ch * n..(ch + 1) * n].iter().any(|g| g.foreground())
    }

    /// Plane `plane` has a deferred write queued or scrub reads left in the current pass
    /// (whether they can start is decided when they are taken).
    pub(super) fn has_background_work(&self, plane: PlaneId) -> bool {
        let w = self.content.as_ref().expect("content");
        !w.deferred[plane.idx()].is_empty() || w.scrub_due(plane)
    }

    /// Unit `u`'s channel may have left GC: wake the units on it that held background work
    /// back for that GC (called after each completion and when a grant finds no victim).
    #[cold]
    #[inline(never)]
    pub(in crate::sim::engine) fn content_channel_check(&mut self, u: u32) {
        let ch = self.units[u as usize].channel.idx();
        let w = self.content.as_ref().expect("content");
        if w.held_back_on[ch] == 0 || self.channel_in_gc(ch) {
            return;
        }
        self.cw().held_back_on[ch] = 0;
        for k in 0..self.cw().channel_units[ch].len() {
            let v = self.cw().channel_units[ch][k];
            if std::mem::take(&mut self.cw().held_back[v as usize]) && self.units[v as usize].running == crate::scheduler::unit::IDLE {
                self.schedule_token(self.now, WAKE_TOKEN | u64::from(v));
            }
        }
    }

    pub(super) fn deferred_write(&mut self, plane: PlaneId) -> Option<u32> {
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
            let dst = self.gc_destination(plane, Stream::Gc)?;
            // Held until the program finishes (`rewrite_done`).
            self.ct().hold(c);
            let t = self.new_txn(TxnKind::Rewrite, plane, lpn, src, NO_REQ);
            let x = &mut self.txns[t as usize];
            x.dst = dst;
            x.version = c;
            x.background = true;
            self.cw().deferred_in_flight += 1;
            return Some(t);
        }
    }

    pub(super) fn scrub_read(&mut self, plane: PlaneId) -> Option<u32> {
        let w = self.content.as_mut().expect("content");
        if !w.scrub_due(plane) {
            return None;
        }
        let s = w.scrub.as_mut().expect("a due scrub");
        match s.next_page(&self.ftl, plane) {
            Some((p, fp)) => {
                let c = self.ftl.content.as_ref().expect("content").page[p.idx()];
                if fp {
                    let f = self.scrub_fingerprint(p.0, c);
                    let w = self.content.as_mut().expect("content");
                    let bloom = w.bloom.as_ref().expect("splitgc");
                    let probe = bloom.probe(f);
                    bloom.prefetch(&probe);
                    w.scrub_probe[plane.idx()] = Some(probe);
                }
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
    pub(super) fn scrub_done(&mut self, p: u32, c: u32, fingerprint: bool) {
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
        debug_assert_eq!(self.ftl.content.as_ref().expect("content").page[p as usize], c, "a page changed while being scrubbed");
        // The probe was made when the read was issued (`scrub_read`): the read holds its
        // plane's unit, so neither the page's content nor its block's erase count (which make
        // the fingerprint) can change before it finishes, and no other scrub read of the
        // plane can start.
        let plane = self.ftl.blocks.plane_of(Ppn(p));
        let probe = self.cw().scrub_probe[plane.idx()].take().expect("the probe of a fingerprinting scrub read");
        debug_assert_eq!(probe.fp, self.scrub_fingerprint(p, c), "a scrubbed page's fingerprint changed during its read");
        let w = self.content.as_mut().expect("content");
        let ct = self.ftl.content.as_mut().expect("content");
        let bloom = w.bloom.as_mut().expect("splitgc");
        if !bloom.query_probe(&probe) {
            bloom.insert_probe(&probe);
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

    /// The fingerprint the scrub computes for page `p` holding content `c`. Unique content
    /// (`c == 0`) gets one of its own, from the page and its block's erase count, so nothing
    /// else can match it.
    fn scrub_fingerprint(&self, p: u32, c: u32) -> u64 {
        if c == 0 {
            let erases = self.ftl.blocks.erases[(p / self.ftl.geo.pages_per_block) as usize];
            crate::workload::content::mix(u64::from(p) ^ (u64::from(erases) << 32) ^ 0x5eed)
        } else {
            self.ftl.content.as_ref().expect("content").fingerprint(c)
        }
    }

    /// Start a scrub pass (its timer fired), unless the run is winding down.
    #[cold]
    #[inline(never)]
    pub(in crate::sim::engine) fn scrub_pass_start(&mut self) {
        let w = self.content.as_mut().expect("content");
        let Some(s) = w.scrub.as_mut() else { return };
        if w.draining || s.active {
            return;
        }
        // Nothing was written for a whole cycle: every group was scrubbed since, and another
        // pass would read the same pages to learn the same. Park the timer until the next
        // host write (`scrub_note_write`), so a long idle gap costs no events per second.
        if !w.params.rescrub_unchanged && s.cycle_unchanged() {
            s.parked = true;
            w.add(Ctr::ScrubPassesParked, 1);
            return;
        }
        if s.group == 0 && s.passes > 0 {
            // A new cycle over the groups: rebuild the Bloom filter from the table.
            self.bloom_from_table();
            self.cw().add(Ctr::BloomRebuilds, 1);
        }
        let w = self.content.as_mut().expect("content");
        let s = w.scrub.as_mut().expect("splitgc");
        s.start();
        w.add(Ctr::ScrubPassesStarted, 1);
        for u in 0..self.units.len() as u32 {
            self.dispatch(u);
        }
    }

    /// Empty the Bloom filter and insert every listed content's fingerprint (a new cycle of
    /// passes, or the recovery from a power cut).
    pub(super) fn bloom_from_table(&mut self) {
        let w = self.content.as_mut().expect("content");
        let bloom = w.bloom.as_mut().expect("splitgc");
        bloom.clear();
        let ct = self.ftl.content.as_ref().expect("content");
        for c in ct.listed_contents() {
            bloom.insert(ct.fingerprint(c));
        }
    }

    /// A host write arrived: the data changed, so a parked scrub timer is re-armed (the next
    /// pass a period from now) and the quiet cycle starts again.
    pub(super) fn scrub_note_write(&mut self) {
        let now = self.now;
        let w = self.content.as_mut().expect("content");
        let period = w.params.period_ms;
        let Some(s) = w.scrub.as_mut() else { return };
        s.quiet_passes = 0;
        if std::mem::take(&mut s.parked) && !w.draining {
            self.schedule_token(now + Nanos(period * 1_000_000), SCRUB_TOKEN);
        }
    }

    /// The first request arrived: the first scrub pass comes a period later.
    #[cold]
    #[inline(never)]
    pub(in crate::sim::engine) fn content_first_arrival(&mut self) {
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
    pub(super) fn wake(&mut self, q: PlaneId) {
        let u = self.unit_of_plane[q.idx()];
        if self.units[u as usize].running == crate::scheduler::unit::IDLE {
            self.schedule_token(self.now, WAKE_TOKEN | u64::from(u));
        }
    }
}
