//! ttFlash's GC-tolerant read (FAST'17 §4.2) as its artifact decides it: when a read would
//! wait behind GC, its page is rebuilt from the other members of its RAIN stripe (data and
//! parity) and an XOR instead, if that is expected to be sooner.
//!
//! When: a read is queued on its plane first; it is reviewed once all pages of its request
//! are submitted (so a rebuild can use the request's own reads of other members), and again
//! whenever a GC operation is about to start ahead of it on its plane
//! (`ttflash.gtr_at_gc_start`): a queued read is turned into a rebuild rather than overtaken.
//!
//! The rule (`decide`): the stripe's parity must cover its mapped data (else the XOR is not
//! the page); no member on a failed plane; with another collecting plane in the stripe, the
//! artifact's rule (`ttflash.gtr_several_gc = "longest"`): only the page on the plane with the
//! longest remaining GC is rebuilt, and its members on the other collecting planes are read
//! behind their GC (`"refuse"`: no rebuild at all). Then the cost of the member reads plus
//! the XOR must be below the GC time left on the page's plane: with `ttflash.gtr_cost =
//! "queued"`, the slowest member read's estimated end (queue, remaining GC, read, transfer);
//! with `"artifact"`, the artifact's `convert_to_seq`: one read and page transfer per member
//! read the request does not make itself, summed, plus the longest GC left on another
//! collecting member. (The artifact widens a partial-stripe read to the whole stripe under
//! that rule and then drops the collecting member; flashtail reads the other members for the
//! rebuild, which is the same set of page reads.) Under rotating GC the artifact always
//! rebuilds while the victim still has pages to move, and once it has none (its last move
//! or its erase under way) weighs the cost against the time left of the plane's current
//! operation only: a read arriving during the last move waits for it and the whole erase
//! when that operation ends sooner than the member reads would.
//!
//! Member reads carry the request, so their waits (GC ones included) are charged to it.
//! With `ttflash.gtr_share_reads`, a member the request already reads is not read again
//! (its own read also feeds the rebuild), and a read of a page already being rebuilt from
//! the same stripe state joins that rebuild (one rebuild per stripe). A plane whose GC has
//! not started yet serves queued member reads first (rotation never hands a group's turn
//! to a plane so that it blocks a rebuild of the plane that just had it).
//!
//! Does not model: the artifact's whole-stripe reads rebuilding their collecting member
//! without any cost check (here they pass the rule with one added read, the parity), its
//! merging of any two reads of one physical page in a channel queue.

use super::read_path::RebuildFor;
use super::Simulation;
use crate::config::{GtrCost, SeveralGc};
use crate::ftl::NONE;
use crate::scheduler::txn::NO_REQ;
use crate::scheduler::unit::IDLE;
use crate::scheduler::TxnKind;
use crate::units::{Nanos, PlaneId, Ppn};
use std::collections::HashMap;

/// The GC-tolerant read's bookkeeping (volatile: a power cut clears it).
#[derive(Default)]
pub(super) struct GtrState {
    /// Stripe → its GC-tolerant rebuild in flight (joined by later reads of the same page).
    by_stripe: HashMap<u32, u32>,
    /// Reads of the request being submitted that landed on a collecting plane.
    pub candidates: Vec<u32>,
    scratch: Vec<u32>,
    /// Set while a unit is choosing its next transaction: member reads are queued without
    /// starting other units then (that could re-enter the choosing unit).
    in_pick: bool,
    /// Member reads served by the request's own read of the member.
    pub shared_reads: u64,
    /// Reads that joined a rebuild already in flight.
    pub joined: u64,
    /// Reads rebuilt when a GC operation was about to start ahead of them.
    pub at_gc_start: u64,
    /// Rebuilds made while another plane of the stripe collected (`gtr_several_gc`).
    pub beside_gc: u64,
}

impl GtrState {
    pub fn power_cut(&mut self) {
        self.by_stripe.clear();
        self.candidates.clear();
        self.in_pick = false;
    }
}

/// What the rule says for one read.
enum Decision {
    Refuse,
    /// Rebuild from stripe `s`; `beside`: another plane of the stripe collects.
    Rebuild { s: u32, beside: bool },
    /// Join rebuild `rb`, in flight for the same page and stripe state.
    Join(u32),
}

impl Simulation {
    /// After a read request's pages are submitted: review its reads queued on collecting planes.
    pub(super) fn gtr_review(&mut self) {
        let mut cands = std::mem::take(&mut self.gtr.candidates);
        for &t in &cands {
            let u = self.unit_of_plane[self.txns[t as usize].plane.idx()];
            if let Some(pos) = self.units[u as usize].reads.iter().position(|&x| x == t) {
                self.gtr_try(u, pos, false);
            }
        }
        cands.clear();
        self.gtr.candidates = cands;
    }

    /// A GC operation of `plane` is about to start ahead of the reads queued on its unit:
    /// rebuild those the rule allows instead of letting them wait. The one call is in
    /// `dispatch::pick`.
    #[inline]
    pub(super) fn gtr_before_gc_op(&mut self, plane: PlaneId) {
        if self.scheme.gc_tolerant_read && self.dev.ttflash.gtr_at_gc_start && !self.units[self.unit_of_plane[plane.idx()] as usize].reads.is_empty() {
            self.gtr_queued_reads(plane);
        }
    }

    #[inline(never)]
    fn gtr_queued_reads(&mut self, plane: PlaneId) {
        let u = self.unit_of_plane[plane.idx()];
        let mut todo = std::mem::take(&mut self.gtr.scratch);
        todo.clear();
        todo.extend(self.units[u as usize].reads.iter().copied().filter(|&t| {
            let x = &self.txns[t as usize];
            // A read of the request still being submitted is reviewed with its request.
            x.plane == plane && x.req != NO_REQ && !x.internal && x.parent == NONE && !self.gtr.candidates.contains(&t)
        }));
        self.gtr.in_pick = true;
        for &t in &todo {
            if let Some(pos) = self.units[u as usize].reads.iter().position(|&x| x == t) {
                self.gtr_try(u, pos, true);
            }
        }
        self.gtr.in_pick = false;
        self.gtr.scratch = todo;
    }

    /// Whether `plane` may start its GC now: not while a rebuild's member reads wait on its
    /// unit and its victim is not chosen yet (it would hold them behind a whole victim).
    #[inline]
    pub(super) fn gtr_lets_gc_start(&self, plane: PlaneId) -> bool {
        if !self.scheme.gc_tolerant_read || self.gc[plane.idx()].victim.is_some() {
            return true;
        }
        let u = self.unit_of_plane[plane.idx()];
        !self.units[u as usize].reads.iter().any(|&t| self.txns[t as usize].parent != NONE && self.txns[t as usize].plane == plane)
    }

    /// Rebuild the read at `pos` of unit `u`'s read queue if the rule allows.
    fn gtr_try(&mut self, u: u32, pos: usize, at_gc_start: bool) {
        let t = self.units[u as usize].reads[pos];
        let (slot, lpn, plane, parent, ppn) = {
            let x = &self.txns[t as usize];
            (x.req, x.lpn, x.plane, x.parent, x.ppn)
        };
        if parent != NONE || !self.gc[plane.idx()].active() {
            return;
        }
        // A newer write since the read was queued (in the flush buffer, or mapped elsewhere):
        // the read resolves it when it begins (`dispatch::begin`), from RAM or its new page.
        if self.ftl.l2p[lpn as usize] != ppn || self.buffered_version(lpn).is_some() {
            return;
        }
        let d = self.decide(slot, lpn, plane);
        if matches!(d, Decision::Refuse) {
            return;
        }
        // The read leaves its queue, its wait so far charged to the request.
        self.units[u as usize].reads.remove(pos);
        self.add_wait_from_snap(u, t);
        self.free_txns.push(t);
        self.c.rebuilt_reads += 1;
        if at_gc_start {
            self.gtr.at_gc_start += 1;
        }
        match d {
            Decision::Join(rb) => self.join_rebuild(rb, slot, lpn),
            Decision::Rebuild { s, beside } => self.start_rebuild(slot, lpn, s, beside),
            Decision::Refuse => unreachable!(),
        }
    }

    fn start_rebuild(&mut self, slot: u32, lpn: u32, s: u32, beside: bool) {
        if beside {
            self.gtr.beside_gc += 1;
        }
        let rb = self.rebuild(slot, lpn, s, RebuildFor::GcTolerant);
        if let Some(rb) = rb.filter(|_| self.dev.ttflash.gtr_share_reads) {
            self.gtr.by_stripe.insert(s, rb);
        }
    }

    /// Rebuild `lpn` (its plane collecting) from its stripe if that beats waiting for the GC;
    /// false = read normally. (The engine's tests call it directly.)
    #[cfg(test)]
    pub(super) fn try_rebuild(&mut self, slot: u32, lpn: u32, plane: PlaneId) -> bool {
        match self.decide(slot, lpn, plane) {
            Decision::Refuse => false,
            Decision::Join(rb) => {
                self.c.rebuilt_reads += 1;
                self.join_rebuild(rb, slot, lpn);
                true
            }
            Decision::Rebuild { s, beside } => {
                self.c.rebuilt_reads += 1;
                self.start_rebuild(slot, lpn, s, beside);
                true
            }
        }
    }

    /// The GC-tolerant read's rule for a read of `lpn` on collecting `plane` (module doc).
    fn decide(&mut self, slot: u32, lpn: u32, plane: PlaneId) -> Decision {
        let Some(rain) = self.rain.as_ref() else { return Decision::Refuse };
        let s = rain.stripe_of(lpn);
        let epoch = self.stripe_epoch[s as usize];
        if let Some(&rb) = self.gtr.by_stripe.get(&s) {
            let r = &self.rebuilds[rb as usize];
            if r.lpn == lpn && r.epoch == epoch && !r.broken && r.why == RebuildFor::GcTolerant && r.pending > 0 {
                return Decision::Join(rb);
            }
        }
        // `gtr_cost = "artifact"`: the member reads the rebuild adds, and the longest GC left
        // on another collecting member.
        let artifact = self.dev.ttflash.gtr_cost == GtrCost::Artifact;
        let left = if artifact && self.scheme.rotating && self.victim_emptied(plane) {
            // The artifact's rotating rule past the victim's last move: the time left of
            // the plane's current operation (its last program, or the erase), not the erase
            // that follows the program.
            self.current_op_left(plane)
        } else {
            self.gc_time_left(plane)
        };
        let t = &self.dev.timing;
        let per_read = t.read(0) + t.transfer(self.page_bytes);
        let mut extra = Nanos::ZERO;
        let mut beside = false;
        let (mut added, mut beside_left) = (0u64, Nanos::ZERO);
        for m in rain.other_members(lpn) {
            let mp = self.ftl.l2p[m as usize];
            if mp == NONE || self.pending_in_dram(mp) {
                continue; // no flash read needed
            }
            let p = self.plane_of_read(m, mp);
            if self.plane_dead(p) {
                return Decision::Refuse;
            }
            let ui = self.unit_of_plane[p.idx()];
            let queued = per_read.scale(self.units[ui as usize].reads.len() as u64 + 1);
            let est = if self.gc[p.idx()].active() {
                // Another collecting plane in the stripe: one parity rebuilds one page, the
                // one whose GC lasts longest; this member is read behind its plane's GC.
                let other = self.gc_time_left(p);
                if self.dev.ttflash.gtr_several_gc == SeveralGc::Refuse || other >= left {
                    return Decision::Refuse;
                }
                beside = true;
                beside_left = beside_left.max(other);
                other + queued
            } else {
                self.unit_busy_left(ui) + queued
            };
            extra = extra.max(est);
            if artifact && self.own_read_of(slot, m, mp).is_none() {
                added += 1;
            }
        }
        if artifact {
            extra = beside_left + per_read.scale(added);
        }
        extra += Nanos(self.dev.timing.xor_ns);
        if extra >= left {
            return Decision::Refuse;
        }
        // The XOR rebuilds this page only if the parity covers every data write of the stripe
        // that is mapped. A data write is mapped as soon as its own plane has room, but its
        // parity write can find the parity plane out of free space and wait in that plane's
        // stall queue (write_path.rs); until it is mapped, the parity on flash predates the
        // stripe's newest data, and the XOR of the two is not this page. A controller knows
        // its parity write is queued: the read waits for the GC instead. (Seen on the tiny
        // preset with 3 channels under bench-ref: writes stall by thousands on every plane,
        // and a parity plane sits at its GC reserve, between two GC runs, while another plane
        // of its group GCs.)
        if self.parity_epoch[s as usize] != epoch {
            self.c.rebuilds_parity_behind += 1;
            return Decision::Refuse;
        }
        Decision::Rebuild { s, beside }
    }

    /// Whether `plane`'s victim has no valid page left to move (its last move is under way,
    /// or its erase).
    fn victim_emptied(&self, plane: PlaneId) -> bool {
        let g = &self.gc[plane.idx()];
        g.victim.is_some_and(|v| self.ftl.next_valid_in_block(v, g.cursor).is_none())
    }

    /// Time until the operation now running on `plane`'s unit ends (zero when it is idle).
    pub(super) fn current_op_left(&self, plane: PlaneId) -> Nanos {
        self.unit_busy_left(self.unit_of_plane[plane.idx()])
    }

    /// Time until the phase now running on unit `u` ends (zero when it is idle).
    fn unit_busy_left(&self, u: u32) -> Nanos {
        let end = self.unit_phase_end(u);
        if end == Nanos::MAX { Nanos::ZERO } else { end.saturating_sub(self.now) }
    }

    /// Request `slot`'s read of `lpn` waits for rebuild `rb` too.
    fn join_rebuild(&mut self, rb: u32, slot: u32, lpn: u32) {
        let own = self.ftl.l2p[lpn as usize];
        let own_v = if own == NONE { 0 } else { self.oracle.page(own) };
        self.oracle.check(&self.ftl.l2p, lpn, own_v, "rebuilt read", self.now.0);
        self.rebuilds[rb as usize].more.push(slot);
        self.gtr.joined += 1;
        // Its wait from now on is that of the member reads still queued (charged when each
        // begins, `charge_joiners`).
        let Some(rain) = self.rain.as_ref() else { return };
        let now = self.now;
        for m in rain.other_members(lpn) {
            let mp = self.ftl.l2p[m as usize];
            if mp == NONE {
                continue;
            }
            let u = self.unit_of_plane[self.ftl.blocks.plane_of(Ppn(mp)).idx()];
            let unit = &self.units[u as usize];
            if unit.reads.iter().any(|&t| self.txns[t as usize].parent == rb) {
                let snap = unit.cum(now);
                self.rebuilds[rb as usize].joins.push((slot, u, snap));
            }
        }
    }

    /// A member read of rebuild `rb` begins on unit `u`: requests that joined the rebuild
    /// while it queued there waited for it too.
    #[cold]
    #[inline(never)]
    pub(super) fn charge_joiners(&mut self, rb: u32, u: u32) {
        let mut joins = std::mem::take(&mut self.rebuilds[rb as usize].joins);
        joins.retain(|&(slot, ju, snap)| {
            if ju != u {
                return true;
            }
            self.charge_unit_busy(slot, u, snap);
            false
        });
        self.rebuilds[rb as usize].joins = joins;
    }

    /// A rebuild of stripe `s` ended: later reads start their own.
    pub(super) fn gtr_rebuild_ended(&mut self, s: u32, rb: u32) {
        if self.gtr.by_stripe.get(&s) == Some(&rb) {
            self.gtr.by_stripe.remove(&s);
        }
    }

    /// Request `slot`'s own flash read of member `m` (page `mp`), queued or running, that a
    /// rebuild may share: its id.
    pub(super) fn own_read_of(&self, slot: u32, m: u32, mp: u32) -> Option<u32> {
        if slot == NO_REQ || !self.dev.ttflash.gtr_share_reads {
            return None;
        }
        let u = self.unit_of_plane[self.ftl.blocks.plane_of(Ppn(mp)).idx()];
        let unit = &self.units[u as usize];
        let is_own = |t: u32| {
            let x = &self.txns[t as usize];
            x.kind == TxnKind::Read && x.req == slot && x.lpn == m && x.ppn == mp && !x.internal && x.parent == NONE
        };
        if unit.running != IDLE && is_own(unit.running) {
            return Some(unit.running);
        }
        unit.reads.iter().copied().find(|&t| is_own(t))
    }

    /// Queue a member read; while a unit is choosing its work, without starting another unit
    /// then and there (it is woken by a zero-delay timer instead).
    pub(super) fn enqueue_member(&mut self, t: u32) {
        if !self.gtr.in_pick {
            self.enqueue_user(t);
            return;
        }
        let u = self.unit_of_plane[self.txns[t as usize].plane.idx()];
        let snap = self.units[u as usize].cum(self.now);
        self.txns[t as usize].snap = snap;
        self.units[u as usize].reads.push_back(t);
        if self.units[u as usize].running == IDLE {
            self.schedule_token(self.now, super::content_path::WAKE_TOKEN | u64::from(u));
        }
    }
}
