//! The engine's side of garbage collection: under a plane's grant from the GC policy, pick
//! the victim (the scheme's victim policy) and issue its operations one at a time, each
//! valid page's move and then the erase; pass the policy its hooks (free space changed,
//! victim done, timers) and carry out the commands it gives back.
//!
//! Does not do: when to collect and how much (the scheme's `GcPolicy`, gc/), which block
//! (its victim policy, gc/victim.rs), what a finished move or erase changes (complete.rs),
//! content-aware steps (content_path/).

use super::{settle, Simulation, FREE_CHANGE_TOKEN};
use crate::ftl::{BlockState, Ftl, Stream, NONE};
use crate::gc::{GcCmd, GcCtx, GcMode};
use crate::scheduler::txn::{CLASS_GC, NO_REQ};
use crate::scheduler::{Txn, TxnKind};
use crate::sim::oracle::Oracle;
use crate::units::{BlockId, PlaneId, Ppn};

impl Simulation {
    /// The next GC operation of a plane under its grant: a valid-page move or the erase.
    pub(super) fn next_gc_txn(&mut self, plane: PlaneId) -> Option<u32> {
        let g = &self.gc[plane.idx()];
        if g.in_flight {
            return None;
        }
        let grant = g.grant?;
        if g.victim.is_none() {
            // The device's GC-scheduling limits and yielding (gc_sched.rs).
            if self.gc_sched.is_some() && !self.may_start_victim(plane) {
                std::hint::cold_path();
                return None;
            }
            let g = &mut self.gc[plane.idx()];
            match self.scheme.victim.select(&self.ftl, plane, grant.min_invalid_pages, self.now) {
                Some(v) => self.start_victim(plane, v),
                None => {
                    g.grant = None;
                    if self.content.is_some() {
                        std::hint::cold_path();
                        self.content_channel_check(self.unit_of_plane[plane.idx()]);
                    }
                    return None;
                }
            }
        }
        let victim = self.gc[plane.idx()].victim.expect("victim chosen");
        if self.content.is_some() {
            std::hint::cold_path();
            if let Some(t) = self.content_gc_step(plane, victim) {
                return t;
            }
        }
        self.gc_step(plane, victim, grant)
    }

    /// `plane`'s GC takes block `v` as its victim.
    pub(super) fn start_victim(&mut self, plane: PlaneId, v: BlockId) {
        self.ftl.blocks.state[v.idx()] = BlockState::Victim;
        let g = &mut self.gc[plane.idx()];
        g.victim = Some(v);
        g.cursor = 0;
        // What the artifact's dynamic rotation rule weighs (`gc/rotating.rs`).
        g.monitor.gc_started = self.now;
        g.monitor.freed_pages = self.ftl.geo.pages_per_block - self.ftl.blocks.valid[v.idx()];
        self.c.gc_runs += 1;
        prefetch_victim(&self.ftl, &self.oracle, v);
    }

    /// The ordinary next step of `plane`'s GC on `victim` under `grant`: move the next
    /// valid page, or erase. (Always inlined: its one hot caller is `next_gc_txn`.)
    #[inline(always)]
    fn gc_step(&mut self, plane: PlaneId, victim: BlockId, grant: crate::gc::Grant) -> Option<u32> {
        let g = &mut self.gc[plane.idx()];
        let mut next = self.ftl.next_valid_in_block(victim, g.cursor);
        let mut in_order = true;
        if let Some(m) = self.multi_plane.as_mut() {
            // A multi-plane command takes the victim's page at its leader's page index
            // (`multi_plane`): the cursor stays, and passes the moved page as invalid.
            if let Some(p) = m.prefer_source.take() {
                next = Some(p);
                in_order = false;
            }
        }
        match next {
            Some(src) if grant.steps > 0 => {
                let cursor = if in_order { self.ftl.blocks.locate(src).1 + 1 } else { g.cursor };
                g.cursor = cursor;
                if grant.steps != u32::MAX {
                    g.grant = Some(crate::gc::Grant { steps: grant.steps - 1, ..grant });
                }
                // CAGC's hot/cold placement (`content_path::gc`); one GC frontier otherwise.
                let stream = if self.cold_refs == 0 { Stream::Gc } else { self.cagc_stream(src.0) };
                let Some((dst, took)) = self.ftl.allocate(plane, stream, 0) else {
                    self.gc[plane.idx()].grant = None;
                    self.fatal = Some(format!(
                        "plane {plane} has no free page left for GC at t={} ns (raise ftl.gc_reserved_blocks or over-provisioning)",
                        self.now.0
                    ));
                    return None;
                };
                if self.cold_refs != 0 {
                    std::hint::cold_path();
                    self.cagc_placed(stream, dst, took);
                }
                self.gc[plane.idx()].in_flight = true;
                let lpn = self.ftl.p2l[src.idx()];
                // The move's completion remaps `lpn`: start fetching its map entry now.
                self.ftl.prefetch(lpn);
                if let Some(next) = self.ftl.next_valid_in_block(victim, cursor) {
                    // The next move reads its page's owner (reverse map) and, with the
                    // oracle, its page version: fetch them one move ahead (perf put half of
                    // this function's time on those misses), and the cache line after them
                    // too, since a victim's pages are moved in order and the oracle below
                    // reads the next owner right away.
                    let ahead = Ppn(next.0.saturating_add(ENTRIES_PER_LINE));
                    self.ftl.prefetch_owner(next);
                    self.ftl.prefetch_owner(ahead);
                    if self.oracle.enabled {
                        self.oracle.prefetch_page(next.0);
                        self.oracle.prefetch_page(ahead.0);
                        // The next move's GC read is checked against its LPN's newest version
                        // (beside its map entry) as soon as that move is issued: fetch that
                        // entry one move ahead.
                        self.ftl.prefetch(self.ftl.p2l[next.idx()]);
                    }
                }
                if self.gc_holds.is_some() {
                    std::hint::cold_path();
                    self.gc_hold_begin(plane, grant.mode);
                }
                let kind = if self.scheme.copyback { TxnKind::GcCopyback } else { TxnKind::GcCopy };
                let v = self.oracle.page(src.0);
                if self.flush.as_ref().is_some_and(|fb| fb.dirty.contains_key(&lpn)) {
                    std::hint::cold_path();
                    // Newer data waits in the flush buffer: flash must hold an older version.
                    self.oracle.check_older(&self.ftl.l2p, lpn, v, "GC read (newer data buffered)", self.now.0);
                } else {
                    self.oracle.check(&self.ftl.l2p, lpn, v, "GC read", self.now.0);
                }
                // The record is complete before it is stored (one wide store, not three).
                let t = Txn { dst: dst.0, version: v, ..self.txn_record(kind, plane, lpn, src.0, NO_REQ) };
                let t = self.store_txn(t);
                if took {
                    // Defer: the policy may react, but not while we are choosing work.
                    self.schedule_free_change(plane);
                }
                Some(t)
            }
            Some(_) => {
                g.grant = None;
                self.gc_hold_end(plane, true);
                None
            }
            None if grant.allow_erase => {
                if self.ftl.blocks.superseded_in_flight[victim.idx()] > 0 {
                    // Its last copy of some page is still needed: the erase waits for the
                    // programs that supersede it (`superseded_done`); the unit serves others.
                    g.erase_waits = Some(grant);
                    return None;
                }
                g.erase_waits = None;
                g.in_flight = true;
                g.erasing = true;
                if self.gc_sched.is_some() {
                    std::hint::cold_path();
                    self.victim_erase_issued();
                }
                self.gc_hold_end(plane, false);
                if self.content.is_some() {
                    std::hint::cold_path();
                    self.content_erasing(victim);
                }
                Some(self.new_txn(TxnKind::Erase, plane, NONE, victim.0, NO_REQ))
            }
            None => {
                g.grant = None;
                self.gc_hold_end(plane, true);
                None
            }
        }
    }

    /// A host write that superseded page `old` finished its program: `old`'s block may be
    /// erased once no such write is left (a victim waiting for that is resumed).
    /// (Out of line: only runs without power-loss protection.)
    #[inline(never)]
    pub(super) fn superseded_done(&mut self, old: u32) {
        let (b, _) = self.ftl.blocks.locate(Ppn(old));
        let n = &mut self.ftl.blocks.superseded_in_flight[b];
        assert!(*n > 0, "block {b}: a superseding write finished that was not counted");
        *n -= 1;
        if *n == 0 && self.ftl.blocks.state[b] == BlockState::Victim {
            self.resume_erase(BlockId(b as u32));
        }
    }

    /// Victim `b` no longer waits for superseding programs: its unit may erase it now, under
    /// the grant it kept, or under a new one (a partial grant may have ended meanwhile: the
    /// policy hears of it as a change of free space).
    #[cold]
    #[inline(never)]
    fn resume_erase(&mut self, b: BlockId) {
        let plane = self.ftl.geo.plane_of_block(b);
        let g = &mut self.gc[plane.idx()];
        if let Some(waited) = g.erase_waits.take() {
            // The erase was due: issue it even if the policy ended that grant meanwhile
            // (a grant allowing only the erase, of the same mode).
            g.grant.get_or_insert(crate::gc::Grant { steps: 0, allow_erase: true, ..waited });
        }
        let u = self.unit_of_plane[plane.idx()];
        self.dispatch(u);
        // A policy that watched the plane while the erase waited hears it may act again.
        self.free_changed(plane);
    }

    /// One step of `plane`'s grant was used (unlimited grants count none).
    pub(super) fn gc_took_step(&mut self, plane: PlaneId) {
        let g = &mut self.gc[plane.idx()];
        if let Some(grant) = g.grant.filter(|gr| gr.steps != u32::MAX) {
            g.grant = Some(crate::gc::Grant { steps: grant.steps - 1, ..grant });
        }
    }

    /// A GC operation of `plane` other than the erase finished (`sealed`: it sealed a block).
    #[inline(always)]
    pub(super) fn gc_op_done(&mut self, plane: PlaneId, sealed: bool) {
        let g = &mut self.gc[plane.idx()];
        g.in_flight = false;
        if matches!(g.grant, Some(gr) if gr.steps == 0 && !gr.allow_erase) {
            g.grant = None;
        }
        if sealed {
            self.free_changed(plane);
        }
    }

    pub(super) fn free_changed(&mut self, plane: PlaneId) {
        self.notify(|p, ctx| p.on_free_change(ctx, plane));
    }

    pub(super) fn victim_done(&mut self, plane: PlaneId) {
        self.notify(|p, ctx| p.on_victim_done(ctx, plane));
    }

    /// Call one hook of the scheme's GC policy with a view of the device, then apply the
    /// commands it gave.
    pub(super) fn notify(&mut self, hook: impl FnOnce(&mut dyn crate::gc::GcPolicy, &mut GcCtx)) {
        let mut cmds = std::mem::take(&mut self.cmds);
        {
            let mut ctx = GcCtx {
                now: self.now,
                dev: &self.dev,
                ftl: &self.ftl,
                planes: &self.gc,
                failed: self.failures.as_ref().map_or(&[][..], |f| &f.dead[..]),
                soft_blocks: self.soft,
                hard_blocks: self.hard,
                cmds: &mut cmds,
            };
            hook(&mut *self.scheme.gc, &mut ctx);
        }
        // Most hooks give no command: skip the call.
        if cmds.is_empty() {
            self.cmds = cmds;
        } else {
            self.apply_cmds(cmds);
        }
    }

    fn apply_cmds(&mut self, mut cmds: Vec<GcCmd>) {
        for cmd in cmds.drain(..) {
            match cmd {
                // A failed plane is never collected (`die_failure`).
                GcCmd::Grant(p, _) | GcCmd::Instant(p) if self.plane_dead(p) => {}
                GcCmd::Grant(p, g) => {
                    self.gc[p.idx()].grant = Some(g);
                    if self.content.is_some() && g.mode != GcMode::Background {
                        std::hint::cold_path();
                        // A background transaction holding the plane's unit takes GC's class.
                        self.lend_channel_class(self.unit_of_plane[p.idx()], CLASS_GC);
                    }
                    if let Some(r) = &self.rain {
                        let busy = r.group_planes(r.group_of_plane(p)).filter(|q| self.gc[q.idx()].active()).count() as u64;
                        self.c.max_gc_planes_per_group = self.c.max_gc_planes_per_group.max(busy);
                    }
                    let u = self.unit_of_plane[p.idx()];
                    self.dispatch(u);
                }
                GcCmd::Instant(p) => self.instant_reclaim(p),
                GcCmd::Timer(at, token) => self.schedule_token(at, token & !FREE_CHANGE_TOKEN),
            }
        }
        // Hand the (now empty) buffer back to avoid reallocating.
        if self.cmds.is_empty() {
            self.cmds = cmds;
        }
    }

    /// NoGC: reclaim victims at no time cost until the plane is back at its soft threshold.
    fn instant_reclaim(&mut self, plane: PlaneId) {
        match settle::reclaim_now(&mut self.ftl, &mut self.oracle, &mut *self.scheme.victim, plane, self.soft, self.now) {
            Ok(r) => {
                if r.victims > 0 {
                    self.gc_woken = false;
                }
                self.c.gc_runs += r.victims;
                self.c.erases += r.victims;
                self.c.gc_pages_migrated += r.pages_moved;
                self.c.gc_pages_programmed += r.pages_moved;
            }
            Err(e) => {
                self.fatal = Some(e);
                return;
            }
        }
        self.retry_stalled(plane);
    }
}

/// Start loading a new victim's reverse-map entries (and, with the oracle, its page
/// versions): its valid pages are moved one by one and each move reads its page's
/// owner, which has long left the caches. A block's entries are contiguous (a
/// 128-page block's are 8 cache lines), so fetching them all at once costs little and
/// saves a miss on the first page of each line.
fn prefetch_victim(ftl: &Ftl, oracle: &Oracle, v: BlockId) {
    let first = ftl.geo.ppn(v, 0).0;
    let last = first + ftl.geo.pages_per_block - 1;
    let mut p = first;
    loop {
        ftl.prefetch_owner(Ppn(p));
        oracle.prefetch_page(p);
        if p >= last {
            break;
        }
        // The next line, but not past the block (which need not start on a line).
        p = (p + ENTRIES_PER_LINE).min(last);
    }
}

/// `u32` entries per 64-byte cache line (the stride of the GC's reverse-map prefetch).
const ENTRIES_PER_LINE: u32 = 64 / std::mem::size_of::<u32>() as u32;
