//! What a finished transaction changes: a read's page is done; a write or GC move marks
//! its page programmed (and a move remaps its logical page if still current); an erase
//! frees its block and ends the plane's GC run; the operations of a multi-plane command end
//! together. Then the unit takes its next transaction.
//!
//! Does not do: the phases before the end (phases.rs), request completion (host_path.rs),
//! the content schemes' own kinds beyond handing them on (content_path/).

use super::Simulation;
use crate::ftl::NONE;
use crate::scheduler::txn::NO_REQ;
use crate::scheduler::TxnKind;
use crate::units::{BlockId, PlaneId, Ppn};

/// What `complete` needs of a finished transaction.
struct Finished {
    kind: TxnKind,
    plane: PlaneId,
    ppn: u32,
    dst: u32,
    version: u32,
    req: u32,
    parent: u32,
    buffered: bool,
    parity: bool,
}

impl Simulation {
    /// A transaction finished its last phase. (Not inlined into `start_phase`: it is needed
    /// once per transaction, and inlined it made every phase start pay its large frame.)
    #[inline(never)]
    pub(super) fn complete(&mut self, u: u32) {
        let unit = &mut self.units[u as usize];
        let t = unit.running;
        unit.vacate(self.now);
        if unit.companions_len == 0 {
            self.finish(u, t);
        } else {
            // A multi-plane command: every operation in it ends now (`multi_plane`).
            let (companions, n) = self.take_companions(u);
            self.finish(u, t);
            for &c in &companions[..n] {
                self.finish(u, c);
            }
        }
        self.dispatch(u);
        if self.content.is_some() {
            std::hint::cold_path();
            self.content_channel_check(u);
        }
        // A plane yielding to user I/O may start once its channel has drained (gc_sched.rs).
        if self.gc_waiters() {
            std::hint::cold_path();
            self.wake_gc_waiters();
        }
    }

    /// What transaction `t`, which ran on unit `u`, changes now that it is over.
    #[inline(always)]
    fn finish(&mut self, u: u32, t: u32) {
        if self.failures.is_some() && self.plane_dead(self.txns[t as usize].plane) {
            std::hint::cold_path();
            // Its plane failed while it ran (`die_failure`).
            self.fail_txn(t);
            self.free_txns.push(t);
            return;
        }
        // Field by field, not a clone: the phase byte was stored just before, and a wide
        // copy over it would miss store-to-load forwarding (see `begin`).
        let txn = {
            let x = &self.txns[t as usize];
            Finished {
                kind: x.kind,
                plane: x.plane,
                ppn: x.ppn,
                dst: x.dst,
                version: x.version,
                req: x.req,
                parent: x.parent,
                buffered: x.buffered,
                parity: x.parity,
            }
        };
        // A re-protection write ends its job (`die_failure`); read now: the slot is reused below.
        let internal = self.txns[t as usize].internal;
        let reprotected = self.failures.is_some() && txn.kind == TxnKind::Write && internal;
        self.free_txns.push(t);
        let geo = &self.ftl.geo;
        match txn.kind {
            TxnKind::Read => {
                self.c.host_pages_read += 1;
                // A rebuild's member read (internal, carrying its request for the waits), or
                // a request's own read that a rebuild shares (`gtr`), or both.
                if txn.parent != NONE {
                    self.rebuild_part_done(txn.parent);
                }
                if txn.req != NO_REQ && !internal {
                    self.page_done(txn.req);
                }
            }
            TxnKind::Write => {
                let sealed = self.ftl.blocks.mark_programmed(geo, Ppn(txn.ppn), self.now.0);
                if txn.parity {
                    self.c.parity_pages_programmed += 1;
                } else {
                    self.c.host_pages_programmed += 1;
                }
                if sealed {
                    // A new GC candidate: a plane that found no victim may now find one.
                    std::hint::cold_path();
                    self.free_changed(txn.plane);
                }
                if txn.dst != NONE {
                    self.superseded_done(txn.dst);
                }
                self.retry_held(u);
                self.write_page_finished(txn.req, txn.buffered, txn.parity);
            }
            TxnKind::GcCopy | TxnKind::GcCopyback => {
                let sealed = self.ftl.blocks.mark_programmed(geo, Ppn(txn.dst), self.now.0);
                self.c.gc_pages_programmed += 1;
                if self.ftl.geo.bits_per_cell > 1 {
                    self.count_gc_array_time(txn.ppn, txn.dst);
                }
                self.oracle.copy(txn.ppn, txn.dst, txn.version);
                let moved = self.ftl.remap_if_current(Ppn(txn.ppn), Ppn(txn.dst));
                if moved {
                    self.c.gc_pages_migrated += 1;
                    if txn.kind == TxnKind::GcCopyback {
                        self.c.copybacks += 1;
                    }
                } else {
                    std::hint::cold_path();
                    // The host overwrote the page during the move: the copy is invalid, but
                    // its spare area still names its logical page (what a power-loss
                    // recovery reads).
                    self.ftl.p2l[txn.dst as usize] = self.ftl.p2l[txn.ppn as usize];
                }
                if self.content.is_some() {
                    std::hint::cold_path();
                    self.content_moved(txn.ppn, txn.dst, moved);
                }
                self.gc_op_done(txn.plane, sealed);
            }
            // Rare kinds read the rest of the freed slot (nothing reused it yet).
            TxnKind::Fingerprint => {
                let (lpn, internal) = (self.txns[t as usize].lpn, self.txns[t as usize].internal);
                let scrub = internal.then_some(txn.parent == 1);
                self.fingerprint_done(txn.plane, txn.ppn, lpn, txn.version, scrub);
            }
            TxnKind::Rewrite => {
                let (lpn, internal) = (self.txns[t as usize].lpn, self.txns[t as usize].internal);
                self.rewrite_done(txn.plane, lpn, txn.ppn, txn.dst, txn.version, internal);
            }
            TxnKind::Erase => self.erase_done(txn.plane, BlockId(txn.ppn)),
        }
        if self.failures.is_some() {
            std::hint::cold_path();
            // Reads waiting for parity, and re-protection, may go on (`die_failure`).
            self.die_finished(reprotected);
        }
    }

    /// Block `b`'s erase finished: it is free, and its plane's GC run is over. (Out of line:
    /// one erase per block of moves, and inlined it made `complete` larger for every
    /// transaction.)
    #[inline(never)]
    fn erase_done(&mut self, plane: PlaneId, b: BlockId) {
        let geo = &self.ftl.geo;
        self.ftl.blocks.erase(geo, b);
        let first = geo.ppn(b, 0).0;
        self.oracle.erase(first, geo.pages_per_block);
        self.c.erases += 1;
        let g = &mut self.gc[plane.idx()];
        g.victim = None;
        g.grant = None;
        g.in_flight = false;
        g.erasing = false;
        g.monitor.gc_duration = self.now.saturating_sub(g.monitor.gc_started);
        self.victim_done(plane);
        self.free_changed(plane);
        self.gc_woken = false;
        self.retry_stalled(plane);
    }

    /// A page write is done for whoever waits on it: the flush buffer, the DRAM write
    /// buffer, or its request.
    #[inline(always)]
    pub(super) fn write_page_finished(&mut self, req: u32, buffered: bool, parity: bool) {
        if buffered && self.flush.is_some() {
            if !parity {
                self.flush_release();
            }
        } else if buffered {
            self.buffer_release(parity);
        } else if req != NO_REQ {
            self.page_done(req);
        }
    }

    /// Add a GC move's array time (source tR, destination tPROG) on multi-level cells, where
    /// it depends on the pages' levels (reported for WLA-GC; single-level runs skip it).
    #[cold]
    #[inline(never)]
    fn count_gc_array_time(&mut self, src: u32, dst: u32) {
        self.c.gc_array_ns[0] += self.costs.read_of(src).0;
        self.c.gc_array_ns[1] += self.costs.program_of(dst).0;
    }
}
