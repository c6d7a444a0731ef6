//! Re-protection after a die or plane failure under RAIN (`die_failure`; docs/failures.md):
//! every page the failed planes held (data and parity) is rebuilt from its stripe and
//! written to its plane's substitute, in the background, so the stripe again survives a
//! failure and its reads stop paying for rebuilds.
//!
//! A job takes one page: it reads the stripe's other members (internal reads, timed like
//! host reads; for a parity page, the data members), then writes the page, with the version
//! the failed page held, to one of its substitute planes (an internal write: no request
//! waits). Both are *background* work: they wait in their unit's own queue and run only
//! when the unit has nothing else to do (after host I/O and GC of every mode), so they
//! delay a host operation by at most the one page operation under way when it arrives. At
//! most `FailurePlan::reprotect_parallel` jobs are in flight (from their first read until
//! their write finishes): the setting that bounds what re-protection takes from the host.
//! Under a load that never leaves a unit idle, re-protection waits (the pages left are
//! reported as `die_failure_unprotected_pages`; their reads are still rebuilt). Before a job starts, the stripe's parity
//! must cover its data (else it waits, as a degraded read does) and the substitute must have
//! room for a host write (else it waits for GC); a job whose stripe took a write while its
//! reads were under way, or one of whose reads failed, is done again. A page the host wrote
//! again meanwhile needs no job. The oracle checks the page's version and the parity's
//! coverage when the job starts (`read_path::rebuild`) and the version written when it ends.
//!
//! Pages are taken in the order the failed planes held them (block, then page).
//! Not modelled: the XOR engine's time for a re-protection (`timing.xor_ns` is charged to
//! host reads only), or priorities below host I/O beyond the limit on jobs.

use super::read_path::{Rebuild, RebuildFor};
use super::Simulation;
use crate::ftl::NONE;
use crate::scheduler::txn::NO_REQ;
use crate::scheduler::{Txn, TxnKind};
use crate::units::{Lpn, PlaneId, Ppn};

impl Simulation {
    /// The stripe of a data or parity id.
    fn stripe_of_id(&self, id: u32) -> u32 {
        let r = self.rain.as_ref().expect("RAIN");
        if r.is_parity(id) {
            id - r.data_pages
        } else {
            r.stripe_of(id)
        }
    }

    /// The failed page `id` still needs re-protection: its newest data is on a failed plane
    /// (its program finished; the host did not write it again since).
    fn still_unprotected(&self, id: u32) -> Option<u32> {
        let p = self.ftl.l2p[id as usize];
        (p != NONE && !self.pending_in_dram(p) && self.plane_dead(self.ftl.blocks.plane_of(Ppn(p)))).then_some(p)
    }

    /// Where a re-protected page goes: the substitute host writes of `id` go to
    /// (`choose_plane`) if it has room for a host write, else the next substitute of its
    /// failed plane that has (the copy may sit anywhere: the map finds it); None if none has.
    pub(super) fn reprotect_target(&self, id: u32) -> Option<PlaneId> {
        let first = self.choose_plane(id);
        if self.has_free_page(first) {
            return Some(first);
        }
        let r = self.rain.as_ref().expect("RAIN");
        let home = r.plane_of(id);
        let subs = &self.failures.as_ref()?.subs[home.idx()];
        let at = subs.iter().position(|&p| p == first).unwrap_or(0);
        subs[at..].iter().chain(&subs[..at]).copied().find(|&p| self.has_free_page(p))
    }

    /// A re-protection moves what flash holds: the newest version of `id`, or an older one
    /// when newer data waits dirty in ttFlash's stripe buffer (as a GC read: `gc_path`).
    pub(super) fn check_flash_version(&mut self, id: u32, v: u32, what: &str) {
        if self.buffered_version(id).is_some() {
            self.oracle.check_older(&self.ftl.l2p, id, v, what, self.now.0);
        } else {
            self.oracle.check(&self.ftl.l2p, id, v, what, self.now.0);
        }
    }

    /// Start jobs while the limit allows (module doc).
    pub(super) fn reprotect_pump(&mut self) {
        if self.rain.is_none() {
            return;
        }
        let mut later = Vec::new();
        loop {
            let Some(f) = self.failures.as_mut() else { return };
            if f.inflight >= f.parallel {
                break;
            }
            let Some(id) = f.queue.pop_front() else { break };
            if self.still_unprotected(id).is_none() {
                continue;
            }
            let s = self.stripe_of_id(id);
            let behind = self.parity_epoch[s as usize] != self.stripe_epoch[s as usize];
            if behind || self.reprotect_target(id).is_none() {
                later.push(id);
                continue;
            }
            if self.second_member_lost(id) {
                // A later failure took another member of the stripe.
                self.failures.as_mut().expect("failures").lost_pages += 1;
                continue;
            }
            self.failures.as_mut().expect("failures").inflight += 1;
            self.rebuild(NO_REQ, id, s, RebuildFor::Reprotect);
        }
        if let Some(f) = self.failures.as_mut() {
            f.queue.extend(later);
        }
    }

    /// A job's reads are done (`read_path::rebuild_part_done`): queue the page's write, or
    /// do the job again (module doc).
    pub(super) fn reprotect_done(&mut self, rb: Rebuild) {
        let id = rb.lpn;
        let s = self.stripe_of_id(id) as usize;
        let old = self.still_unprotected(id);
        let redo = rb.broken || self.stripe_epoch[s] != rb.epoch || self.parity_epoch[s] != self.stripe_epoch[s];
        match old {
            Some(old) if !redo => {
                // The job stays in flight until its write finishes (`die_finished`).
                let parity = self.rain.as_ref().expect("RAIN").is_parity(id);
                let target = self.reprotect_target(id).unwrap_or_else(|| self.choose_plane(id));
                let t = Txn { parity, internal: true, ..self.txn_record(TxnKind::Write, target, id, old, NO_REQ) };
                let t = self.store_txn(t);
                self.reprotect_enqueue(t);
            }
            _ => {
                let f = self.failures.as_mut().expect("failures");
                f.inflight -= 1;
                if old.is_some() {
                    f.queue.push_back(id);
                }
                self.reprotect_pump();
            }
        }
    }

    /// A member read of re-protection job `parent`, as background work.
    pub(super) fn reprotect_read(&mut self, id: u32, ppn: u32, parent: u32) {
        let t = self.internal_read_txn(id, ppn, parent);
        self.reprotect_enqueue(t);
    }

    /// Queue re-protection transaction `t` on its unit's background queue: it runs when the
    /// unit has nothing else to do (module doc).
    fn reprotect_enqueue(&mut self, t: u32) {
        let u = self.unit_of_plane[self.txns[t as usize].plane.idx()];
        self.failures.as_mut().expect("failures").bg[u as usize].push_back(t);
        self.dispatch(u);
    }

    /// The unit `u` is idle (`dispatch::pick`, its last choice): its next re-protection
    /// transaction. A write takes its page now (so pages are programmed in the order they
    /// are allocated) with the version the failed page held; if the page no longer needs
    /// it, the write is dropped; if its plane has no room for a host write, it waits for GC.
    /// (Called while the unit picks its work: it queues nothing and starts nothing else.)
    pub(super) fn reprotect_next(&mut self, u: u32) -> Option<u32> {
        loop {
            let t = *self.failures.as_ref()?.bg[u as usize].front()?;
            let x = self.txns[t as usize].clone();
            if x.kind == TxnKind::Read {
                self.failures.as_mut().expect("failures").bg[u as usize].pop_front();
                return Some(t);
            }
            let (id, old) = (x.lpn, x.ppn);
            if self.still_unprotected(id) != Some(old) || self.plane_dead(x.plane) {
                // Written again by the host meanwhile (nothing to do), or its plane failed
                // since (the job is done again).
                let f = self.failures.as_mut().expect("failures");
                f.bg[u as usize].pop_front();
                f.inflight -= 1;
                if self.plane_dead(x.plane) {
                    self.failures.as_mut().expect("failures").queue.push_back(id);
                }
                self.free_txns.push(t);
                continue;
            }
            let (ppn, took) = self.ftl.allocate(x.plane, crate::ftl::Stream::User, self.dev.ftl.gc_reserved_blocks)?;
            self.failures.as_mut().expect("failures").bg[u as usize].pop_front();
            let v = self.oracle.page(old);
            if x.parity {
                let s = self.stripe_of_id(id) as usize;
                self.oracle.check_eq(v, self.stripe_epoch[s], id, "re-protected parity epoch", self.now.0);
            } else {
                self.check_flash_version(id, v, "die-failure re-protection");
            }
            self.ftl.map(Lpn(id), ppn);
            self.oracle.copy(old, ppn.0, v);
            #[cfg(test)]
            if self.failures.as_ref().is_some_and(|f| f.sabotage_skip == Some(f.reprotected)) {
                // The deliberately wrong re-protection: the page is mapped, its data never written.
                self.oracle.place(ppn.0, 0);
            }
            let f = self.failures.as_mut().expect("failures");
            f.reprotected += 1;
            if !x.parity {
                f.reprotected_data += 1;
            }
            let rec = &mut self.txns[t as usize];
            rec.ppn = ppn.0;
            rec.version = v;
            if took {
                // Defer: the policy may react, but not while the unit chooses its work.
                self.schedule_free_change(x.plane);
            }
            return Some(t);
        }
    }
}
