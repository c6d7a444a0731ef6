//! Transactions and units: a transaction is created and stored, queued on the unit of its
//! plane, and a free unit picks its next transaction by priority (foreground GC, reads,
//! writes, background GC, then content schemes' idle-time work) and begins it. A read
//! resolves its mapping when it begins, since GC or a newer write may have moved the page
//! while it queued. A die-wide unit may take operations of its other planes along into one
//! multi-plane command (`multi_plane`).
//!
//! Does not do: the phases a begun transaction runs (phases.rs), what its end changes
//! (complete.rs), which GC operation comes next (gc_path.rs).

use super::Simulation;
use crate::ftl::content::VIRT;
use crate::ftl::NONE;
use crate::gc::GcMode;
use crate::scheduler::txn::{CLASS_READ, CLASS_WRITE, NO_REQ};
use crate::scheduler::unit::IDLE;
use crate::scheduler::{Cause, Txn, TxnKind};
use crate::units::{Nanos, PlaneId, Ppn};

impl Simulation {
    pub(super) fn new_txn(&mut self, kind: TxnKind, plane: PlaneId, lpn: u32, ppn: u32, req: u32) -> u32 {
        let t = self.txn_record(kind, plane, lpn, ppn, req);
        self.store_txn(t)
    }

    /// A fresh transaction record, queued now, in its first phase.
    #[inline]
    pub(super) fn txn_record(&self, kind: TxnKind, plane: PlaneId, lpn: u32, ppn: u32, req: u32) -> Txn {
        Txn {
            kind,
            plane,
            lpn,
            ppn,
            dst: NONE,
            version: 0,
            req,
            phase: 0,
            snap: [0; crate::scheduler::unit::CAUSES],
            chan_wait_start: Nanos::ZERO,
            buffered: false,
            parity: false,
            parent: NONE,
            internal: false,
            background: false,
            planes: 0,
            extra_array: 0,
        }
    }

    /// Store transaction `t` in a free slot: its id.
    #[inline]
    pub(super) fn store_txn(&mut self, t: Txn) -> u32 {
        if let Some(i) = self.free_txns.pop() {
            self.txns[i as usize] = t;
            i
        } else {
            self.txns.push(t);
            (self.txns.len() - 1) as u32
        }
    }

    pub(super) fn enqueue_user(&mut self, t: u32) {
        let txn = &mut self.txns[t as usize];
        let u = self.unit_of_plane[txn.plane.idx()];
        let unit = &mut self.units[u as usize];
        unit.cum_into(self.now, &mut txn.snap);
        // Until its transfer waits for the channel: when it was queued (write_start.rs).
        txn.chan_wait_start = self.now;
        if txn.req != NO_REQ {
            self.reqs.get(txn.req).last_plane = txn.plane;
        }
        let is_read = txn.kind == TxnKind::Read;
        if is_read {
            // Checked when the read starts, possibly after queueing: fetch it meanwhile.
            self.oracle.prefetch_page(txn.ppn);
            unit.reads.push_back(t);
        } else {
            unit.writes.push_back(t);
        }
        if is_read && self.dev.timing.suspend.enabled {
            std::hint::cold_path();
            self.maybe_suspend(u);
        }
        if self.content.is_some() {
            std::hint::cold_path();
            // A background transaction holding the unit takes the request's channel class.
            self.lend_channel_class(u, if is_read { CLASS_READ } else { CLASS_WRITE });
        }
        self.dispatch(u);
    }

    /// Start work on an idle unit, if it has any.
    ///
    /// Always inlined (into `complete`, `enqueue_user` and the GC commands), as a
    /// profile-guided build does: as a call it paid a large register save and restore per
    /// transaction (cachegrind, 300k requests: −0.9 % instructions inlined).
    #[inline(always)]
    pub(super) fn dispatch(&mut self, u: u32) {
        loop {
            let unit = &self.units[u as usize];
            if unit.running != IDLE {
                return;
            }
            let parked = unit.parked.is_some();
            if parked && unit.reads.is_empty() {
                self.resume(u);
                return;
            }
            let planes = (unit.first_plane, unit.num_planes);
            let Some(t) = self.pick(u, parked, planes) else { return };
            self.begin(u, t);
        }
    }

    /// The next transaction for unit `u` (`parked`: a program or erase is suspended on it;
    /// `planes`: its first plane and how many), by priority. (Inlined into `dispatch`, its
    /// only caller, which has read the unit's record: saving and restoring registers for the
    /// call was a quarter of its own instructions.)
    #[inline(always)]
    fn pick(&mut self, u: u32, parked: bool, (first, n): (u32, u32)) -> Option<u32> {
        if parked {
            // Only reads run while a program or erase is suspended.
            return self.units[u as usize].reads.pop_front();
        }
        if self.reads_first {
            // `scheduler.order = "reads-first"`: reads before GC granted ahead of user I/O.
            if let Some(t) = self.units[u as usize].reads.pop_front() {
                return Some(t);
            }
        }
        for p in first..first + n {
            if self.gc[p as usize].foreground() && self.gtr_lets_gc_start(PlaneId(p)) {
                if let Some(t) = self.next_gc_txn(PlaneId(p)) {
                    // ttFlash: reads about to be overtaken may be rebuilt instead (gtr.rs).
                    self.gtr_before_gc_op(PlaneId(p));
                    return Some(t);
                }
            }
        }
        let unit = &mut self.units[u as usize];
        if let Some(t) = unit.reads.pop_front() {
            return Some(t);
        }
        if !unit.writes.is_empty() {
            // `scheduler.write_start = "channel-free"`: not while its transfer would wait.
            if self.write_start.is_some() && self.write_put_off(u) {
                return None;
            }
            return self.units[u as usize].writes.pop_front();
        }
        for p in first..first + n {
            if matches!(self.gc[p as usize].grant, Some(g) if g.mode == GcMode::Background) {
                if let Some(t) = self.next_gc_txn(PlaneId(p)) {
                    return Some(t);
                }
            }
        }
        if self.content.is_some() {
            std::hint::cold_path();
            return self.content_background(u);
        }
        if self.failures.is_some() {
            std::hint::cold_path();
            return self.reprotect_next(u);
        }
        None
    }

    /// Put a transaction on a unit and start its first phase.
    ///
    /// Reads the fields it needs one at a time instead of cloning the transaction: it was
    /// usually just stored (`store_txn`), and a wide copy of data still in the store buffer
    /// can miss store-to-load forwarding.
    fn begin(&mut self, u: u32, t: u32) {
        let (kind, req) = (self.txns[t as usize].kind, self.txns[t as usize].req);
        if self.failures.is_some() && self.plane_dead(self.txns[t as usize].plane) {
            std::hint::cold_path();
            // Its plane failed (`die_failure`): it fails at once.
            self.add_wait_from_snap(u, t);
            self.fail_txn(t);
            self.free_txns.push(t);
            return;
        }
        if kind == TxnKind::Read {
            let (lpn, internal, parent) = {
                let x = &self.txns[t as usize];
                (x.lpn, x.internal, x.parent)
            };
            // A newer write may have entered the flush buffer since this read was queued.
            if !internal {
                if let Some(v) = self.buffered_version(lpn) {
                    std::hint::cold_path();
                    self.free_txns.push(t);
                    self.add_wait_from_snap(u, t);
                    self.serve_from_ram(req, lpn, v, "flush-buffer read");
                    if parent != NONE {
                        // A request's read shared by a rebuild (`gtr`): the XOR's input is
                        // the flash copy, which the rebuild takes as read.
                        self.rebuild_part_done(parent);
                    }
                    return;
                }
            }
            // Resolve the mapping now: GC may have moved the page, or a newer write replaced it.
            let mut cur = self.ftl.l2p[lpn as usize];
            // A logical page sharing another page's copy reads that copy (content_path).
            let shared = cur >= VIRT && cur != NONE;
            if shared {
                cur = self.serving_copy(cur);
            }
            if cur != self.txns[t as usize].ppn && cur != NONE {
                // GC moved the page, or a newer write replaced it, while the read queued.
                std::hint::cold_path();
                if !self.ftl.blocks.is_programmed(&self.ftl.geo, Ppn(cur)) {
                    self.free_txns.push(t);
                    self.add_wait_from_snap(u, t);
                    // A member read (internal) completes only its rebuild.
                    self.dram_hit(if internal { NO_REQ } else { req }, lpn, cur);
                    if parent != NONE {
                        self.rebuild_part_done(parent);
                    }
                    return;
                }
                let plane = self.ftl.blocks.plane_of(Ppn(cur));
                self.txns[t as usize].ppn = cur;
                if self.unit_of_plane[plane.idx()] != u {
                    self.add_wait_from_snap(u, t);
                    self.txns[t as usize].plane = plane;
                    self.enqueue_user(t);
                    return;
                }
            }
            let ppn = self.txns[t as usize].ppn;
            if shared {
                self.oracle.check_content(lpn, ppn, "shared-copy read", self.now.0);
            } else if !internal {
                let got = if ppn == NONE { 0 } else { self.oracle.page(ppn) };
                self.oracle.check(&self.ftl.l2p, lpn, got, "flash read", self.now.0);
            }
            if ppn == NONE {
                std::hint::cold_path();
                self.c.unwritten_reads += 1;
            }
        }
        if req != NO_REQ {
            self.add_wait_from_snap(u, t);
            if self.write_start.is_some() {
                self.charge_put_off(u, t);
            }
        }
        if kind == TxnKind::Read {
            let parent = self.txns[t as usize].parent;
            if parent != NONE && !self.rebuilds[parent as usize].joins.is_empty() {
                std::hint::cold_path();
                self.charge_joiners(parent, u);
            }
        }
        // Only content-aware schemes flag transactions background: others skip the look.
        let cause = if self.content.is_some() { Cause::of_txn(&self.txns[t as usize]) } else { Cause::of(kind) };
        self.units[u as usize].occupy(t, cause, self.now);
        if self.multi_plane.is_some() {
            self.gather_multi_plane(u, t);
        }
        // Only fresh transactions are begun (a suspended one resumes without `begin`), so
        // the phase is 0; passing it saves reading back a just-written byte (see
        // `start_phase_at`).
        debug_assert_eq!(self.txns[t as usize].phase, 0);
        let first = self.txns[t as usize].step_at(0, &self.costs);
        self.start_phase_at(u, t, 0, first);
    }

    /// Attribute a user transaction's queueing time to what its unit was busy with.
    pub(super) fn add_wait_from_snap(&mut self, u: u32, t: u32) {
        let req = self.txns[t as usize].req;
        if req == NO_REQ {
            return;
        }
        self.units[u as usize].add_busy_since(self.now, &self.txns[t as usize].snap, &mut self.reqs.get(req).wait);
    }

    /// Charge request `req` with unit `u`'s busy time per cause since `snap` (its
    /// `Unit::cum` when the request's page began to wait).
    #[inline(always)]
    pub(super) fn charge_unit_busy(&mut self, req: u32, u: u32, snap: [u64; crate::scheduler::unit::CAUSES]) {
        let cum = self.units[u as usize].cum(self.now);
        let r = self.reqs.get(req);
        for ((w, now), then) in r.wait.iter_mut().zip(cum).zip(snap) {
            *w += now - then;
        }
    }
}
