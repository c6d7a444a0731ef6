//! The read path: mapping lookup, reads served from controller memory, and the rebuild of a
//! page from its RAIN stripe (ttFlash's GC-tolerant read, whose decisions are in gtr.rs;
//! reads of failed planes, die_failure.rs; re-protection, reprotect.rs).
//!
//! A rebuild reads the other N−1 members of the stripe (data + parity) and XORs them. The
//! member reads are real flash reads that load the other channels; those of a GC-tolerant
//! read carry its request (their waits are the request's). The oracle checks each of them,
//! and checks that the parity page covers every accepted write of the stripe.

use super::Simulation;
use crate::config::UnwrittenReads;
use crate::ftl::NONE;
use crate::gc::GcMode;
use crate::scheduler::txn::NO_REQ;
use crate::scheduler::unit::IDLE;
use crate::scheduler::TxnKind;
use crate::units::{Nanos, PlaneId, Ppn};

/// A read being rebuilt from its stripe.
#[derive(Clone, Debug)]
pub(super) struct Rebuild {
    pub req: u32,
    /// Further requests waiting for the same rebuilt page (`gtr`: one rebuild per stripe).
    pub more: Vec<u32>,
    /// For each of them, per unit holding a member read still queued when it joined: the
    /// unit's busy time by cause then (charged to it when the member read begins).
    pub joins: Vec<(u32, u32, [u64; crate::scheduler::unit::CAUSES])>,
    /// The stripe rebuilt from.
    pub stripe: u32,
    pub pending: u32,
    /// The logical id rebuilt.
    pub lpn: u32,
    /// A member read failed with its plane (`die_failure`): the XOR cannot be trusted, and
    /// the read (or re-protection) is done again.
    pub broken: bool,
    pub why: RebuildFor,
    /// The stripe's epoch when the member reads were issued (a re-protection whose stripe
    /// took a write meanwhile is done again: `reprotect`).
    pub epoch: u32,
}

/// Why a page is rebuilt from its stripe.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum RebuildFor {
    /// ttFlash's GC-tolerant read (a host read).
    GcTolerant,
    /// A host read of a page on a failed plane (`die_failure`).
    DieFailure,
    /// Re-protection of a failed plane's page (`reprotect`): no host request waits.
    Reprotect,
}

impl Simulation {
    /// One page of a host read. Always inlined into its one caller, `arrive_at`, which is
    /// itself inlined into the run loop and into the power cut's re-sending of requests
    /// (`power_cut`): with that second copy the compiler stopped inlining it into the run
    /// loop (+0.12 % instructions on the reference benchmark).
    #[inline(always)]
    pub(super) fn submit_read(&mut self, slot: u32, lpn: u32) {
        self.c.host_page_reads += 1;
        if let Some(v) = self.buffered_version(lpn) {
            self.serve_from_ram(slot, lpn, v, "flush-buffer read");
            return;
        }
        let ppn = self.ftl.l2p[lpn as usize];
        if ppn >= crate::ftl::content::VIRT && ppn != NONE {
            self.shared_read(slot, lpn, ppn);
            return;
        }
        if self.pending_in_dram(ppn) {
            self.dram_hit(slot, lpn, ppn);
            return;
        }
        if ppn == NONE && self.dev.ftl.unwritten_reads == UnwrittenReads::Mapping {
            self.unwritten_read(slot, lpn);
            return;
        }
        let plane = self.plane_of_read(lpn, ppn);
        if self.failures.is_some() && self.plane_dead(plane) {
            std::hint::cold_path();
            self.degraded_read(slot, lpn);
            return;
        }
        let t = self.new_txn(TxnKind::Read, plane, lpn, ppn, slot);
        if self.scheme.gc_tolerant_read && self.gc[plane.idx()].active() {
            // Reviewed once the request's pages are all queued (`gtr_review`).
            self.gtr.candidates.push(t);
        }
        self.enqueue_user(t);
    }

    /// The plane a read of `lpn` (mapped to `ppn`) goes to: its page's, or for a page never
    /// written, its home plane's (a failed one's substitute: `die_failure`).
    pub(super) fn plane_of_read(&self, lpn: u32, ppn: u32) -> PlaneId {
        if ppn != NONE {
            return self.ftl.blocks.plane_of(Ppn(ppn));
        }
        let home = match &self.rain {
            Some(r) => r.plane_of(lpn),
            None => self.static_plane(lpn),
        };
        self.healthy_plane(home, lpn)
    }

    /// A read of a page that holds no data, answered from the mapping table
    /// (`ftl.unwritten_reads = "mapping"`): no flash read, done after one controller memory
    /// access. The oracle checks that no write was accepted for it (version 0).
    fn unwritten_read(&mut self, slot: u32, lpn: u32) {
        self.c.unwritten_reads += 1;
        self.oracle.check(&self.ftl.l2p, lpn, 0, "unwritten read", self.now.0);
        self.schedule(self.now + Nanos(self.dev.timing.dram_hit_ns), super::EV_PAGE_DONE, slot);
    }

    /// A read served from controller memory (its newest data is still waiting to be programmed).
    pub(super) fn dram_hit(&mut self, slot: u32, lpn: u32, ppn: u32) {
        let v = self.oracle.page(ppn);
        self.serve_from_ram(slot, lpn, v, "DRAM read");
    }

    /// Every read served from controller RAM (in-flight write data or the flush buffer)
    /// goes through here: counted, checked by the oracle, done after one DRAM access.
    pub(super) fn serve_from_ram(&mut self, slot: u32, lpn: u32, version: u32, what: &str) {
        self.c.buffer_hits += 1;
        self.oracle.check(&self.ftl.l2p, lpn, version, what, self.now.0);
        if slot != NO_REQ {
            self.schedule(self.now + Nanos(self.dev.timing.dram_hit_ns), super::EV_PAGE_DONE, slot);
        }
    }

    /// Time until the GC work granted on `plane` (and the operation now running on its unit)
    /// is done, as seen by a newly queued read.
    pub(super) fn gc_time_left(&self, plane: PlaneId) -> Nanos {
        let cur = self.current_op_left(plane);
        let g = &self.gc[plane.idx()];
        let Some(grant) = g.grant else { return cur };
        if grant.mode == GcMode::Background {
            return cur;
        }
        let t = &self.dev.timing;
        let move_ns = if self.scheme.copyback {
            t.copyback_command() + t.read(0) + t.program(0)
        } else {
            t.read(0) + t.transfer(self.page_bytes).scale(2) + Nanos(t.ecc_ns) + t.program(0)
        };
        let valid = g.victim.map_or(self.ftl.geo.pages_per_block / 2, |v| self.ftl.blocks.valid[v.idx()]);
        let moves = valid.min(grant.steps) as u64;
        // Once the erase runs it is the current operation (`cur`), not still ahead.
        let running = self.units[self.unit_of_plane[plane.idx()] as usize].running;
        let erase_runs = g.erasing && running != IDLE && {
            let x = &self.txns[running as usize];
            x.kind == TxnKind::Erase && x.plane == plane
        };
        let erase = if grant.allow_erase && !erase_runs { t.erase() + t.command() } else { Nanos::ZERO };
        cur + move_ns.scale(moves) + erase
    }

    /// Rebuild `id` (a data page, or for a re-protection also a parity id) from the other
    /// members of stripe `s`: read each of them from flash (internal reads), then XOR. For
    /// request `slot` (`NO_REQ` for a re-protection, `reprotect`). The rebuild's id while it
    /// waits for member reads (`None`: none was needed, it is already done).
    pub(super) fn rebuild(&mut self, slot: u32, id: u32, s: u32, why: RebuildFor) -> Option<u32> {
        let rain = self.rain.clone().expect("rebuilds need RAIN");
        let rb = Rebuild { req: slot, more: Vec::new(), joins: Vec::new(), stripe: s, pending: 1, lpn: id, broken: false, why, epoch: self.stripe_epoch[s as usize] };
        let rb = if let Some(i) = self.free_rebuilds.pop() {
            self.rebuilds[i as usize] = rb;
            i
        } else {
            self.rebuilds.push(rb);
            (self.rebuilds.len() - 1) as u32
        };
        let pid = rain.parity_id(s);
        let members: Vec<u32> = if id == pid {
            // A parity page is the XOR of its stripe's data pages.
            rain.data_members(s).collect()
        } else {
            // The rebuilt page is right iff the parity covers every data write the stripe has
            // on flash (then XOR of the members' flash pages gives this page's flash data) and
            // this page's flash data is its newest version. Member reads are internal: a
            // member may be newer in the flush buffer, which does not matter to the XOR.
            let pv = self.oracle.newest(&self.ftl.l2p, pid);
            self.oracle.check_eq(pv, self.stripe_epoch[s as usize], pid, "parity epoch", self.now.0);
            let own = self.ftl.l2p[id as usize];
            let own_v = if own == NONE { 0 } else { self.oracle.page(own) };
            if why == RebuildFor::Reprotect {
                self.check_flash_version(id, own_v, "re-protection rebuild");
            } else {
                self.oracle.check(&self.ftl.l2p, id, own_v, "rebuilt read", self.now.0);
            }
            self.check_stripe_parity(s, id);
            rain.other_members(id).collect()
        };
        for m in members {
            let mp = self.ftl.l2p[m as usize];
            if mp == NONE {
                continue; // never written: zeros, nothing to read
            }
            if self.pending_in_dram(mp) {
                continue; // in controller memory: no flash read needed
            }
            self.rebuilds[rb as usize].pending += 1;
            if why == RebuildFor::GcTolerant {
                if let Some(own) = self.own_read_of(slot, m, mp) {
                    // The request reads this member anyway: that read feeds the XOR too.
                    self.txns[own as usize].parent = rb;
                    self.gtr.shared_reads += 1;
                    continue;
                }
                self.c.rebuild_extra_reads += 1;
                // The member read carries the request: its waits are the request's.
                let t = self.internal_read_txn(m, mp, rb);
                self.txns[t as usize].req = slot;
                self.enqueue_member(t);
                continue;
            }
            if let Some(f) = &mut self.failures {
                f.member_reads += 1;
            }
            if why == RebuildFor::Reprotect {
                self.reprotect_read(m, mp, rb);
            } else {
                self.internal_read(m, mp, rb);
            }
        }
        let alive = self.rebuilds[rb as usize].pending > 1;
        self.rebuild_part_done(rb);
        alive.then_some(rb)
    }

    /// A read of page `ppn` (id `id`) the controller makes for itself, no host request
    /// waiting for it: a member read of rebuild `parent`, or (`parent` = `NONE`) a stripe
    /// member read for a parity to be computed (ttFlash's flush, the parity repair after a
    /// power cut).
    pub(super) fn internal_read(&mut self, id: u32, ppn: u32, parent: u32) {
        let t = self.internal_read_txn(id, ppn, parent);
        self.enqueue_user(t);
    }

    /// The transaction of an internal read (`internal_read`), not yet queued.
    pub(super) fn internal_read_txn(&mut self, id: u32, ppn: u32, parent: u32) -> u32 {
        let p = self.ftl.blocks.plane_of(Ppn(ppn));
        let t = self.new_txn(TxnKind::Read, p, id, ppn, NO_REQ);
        self.txns[t as usize].parent = parent;
        self.txns[t as usize].internal = true;
        t
    }

    /// One member read of a rebuild finished (or the guard count was dropped).
    pub(super) fn rebuild_part_done(&mut self, id: u32) {
        let rb = &mut self.rebuilds[id as usize];
        rb.pending -= 1;
        if rb.pending == 0 {
            let (req, lpn, broken, why, stripe) = (rb.req, rb.lpn, rb.broken, rb.why, rb.stripe);
            let more = std::mem::take(&mut rb.more);
            rb.joins.clear();
            self.free_rebuilds.push(id);
            if why == RebuildFor::GcTolerant {
                self.gtr_rebuild_ended(stripe, id);
            }
            if why == RebuildFor::Reprotect {
                let rb = self.rebuilds[id as usize].clone();
                self.reprotect_done(rb);
                return;
            }
            for w in std::iter::once(req).chain(more) {
                if broken {
                    self.reread(w, lpn);
                } else {
                    self.schedule(self.now + Nanos(self.dev.timing.xor_ns), super::EV_PAGE_DONE, w);
                }
            }
        }
    }
}
