//! Enacted die and plane failures (`SimOptions::failures`, `sim::failure`; docs/failures.md).
//!
//! A failure after request N happens just before request N + 1 arrives (as a power cut
//! does). From then on:
//! - **Units**: the failed planes take no new work. The operation running on a failed plane
//!   runs its time and fails at its end (the controller learns of the failure when it
//!   returns an error status); every operation queued on it fails when its unit would have
//!   begun it, at once. A failed read is sent again down the read path (below); a failed
//!   write is placed again on a healthy plane with the version it carried (its data is still
//!   in controller memory); a failed GC operation ends the plane's GC. Writes held or stalled
//!   for a failed plane move to the queue of the plane that now takes its writes.
//! - **Blocks** of the failed planes are retired: never allocated, never chosen as GC
//!   victims. The GC policy sees a failed plane as having every block free (`GcCtx` hides
//!   it), so no policy waits on it (ttFlash's rotation passes its turn on), and the engine
//!   ignores grants on it.
//! - **Writes** whose plane failed go to one of its *substitutes* (`substitutes`): every
//!   healthy plane of the device, each logical id to one of them by a hash of the id, so the
//!   failed plane's data and write load spread over the device and its capacity loss comes
//!   out of the whole device's spare space. (One substitute per plane, or the planes of the
//!   same channel only, overflowed them once the host had written its whole space: a die is
//!   a larger share of its channel than the over-provisioning.) Under RAIN, only planes on
//!   dies that hold no plane of the failed plane's group: a stripe still has its members on
//!   distinct dies, so it survives any one die failure. The stripe layout itself does not
//!   change: a stripe whose member plane failed keeps N−1 data pages + parity, the failed
//!   member's page written to a substitute (so its members may no longer sit one per
//!   channel, and a read may meet two GC'ing members: the GC-tolerant read then waits).
//! - **Reads** of a page on a failed plane: under RAIN it is rebuilt from the other members
//!   of its stripe and the parity (`read_path::rebuild`, the GC-tolerant read's path, the
//!   oracle checking the parity's coverage and the page's version), counted in
//!   `die_failure_rebuilt_reads`; if the stripe's parity is behind its data (a parity write
//!   waiting for room) the read waits for it (`die_failure_read_wait_ns`); if another member
//!   of the stripe is on a failed plane too, the page is lost. Without RAIN (or when lost)
//!   the read completes at once with an error status, counted in `failed_reads` and listed
//!   (the first few) in the report. A host write to a lost page places it on a healthy plane
//!   as usual, and the page is readable again.
//! - **Re-protection** (RAIN; `reprotect`): each page the failed planes held is rebuilt and
//!   written to its substitute in the background.
//!
//! Not modelled: the spare-area scan or mapping rebuild a real controller might need (the
//! mapping is in controller memory), detection time beyond the running operation, partial
//! failures. Not combined with power cuts or audits, nor with the content-aware schemes.

use super::{phases, Simulation};
use crate::ftl::{Stream, NONE};
use crate::scheduler::txn::NO_REQ;
use crate::scheduler::{Txn, TxnKind};
use crate::sim::SimError;
use crate::units::{Lpn, Nanos, PlaneId, Ppn};
use std::collections::VecDeque;

/// Failed reads described in the report (all are counted).
const DESCRIBED: usize = 16;

/// The failures of a run and what they did.
pub(super) struct DieFailures {
    /// (request count, planes, description), ascending; `next` is the first not enacted.
    plan: Vec<(u64, Vec<PlaneId>, String)>,
    next: usize,
    /// Request count after which the next failure is due (`u64::MAX`: none left).
    pub due: u64,
    /// Per plane: failed.
    pub dead: Vec<bool>,
    /// Per failed plane: the healthy planes its pages go to (`substitutes`; empty while
    /// healthy).
    pub subs: Vec<Vec<PlaneId>>,
    pub enacted: u64,
    pub planes_failed: u64,
    pub retired_blocks: u64,
    pub lost_pages: u64,
    pub rebuilt_reads: u64,
    pub member_reads: u64,
    pub failed_reads: u64,
    pub relocated_writes: u64,
    pub read_wait_ns: u64,
    /// Reads of a failed plane waiting for their stripe's parity to catch up: (request slot,
    /// logical page, since).
    pub deferred: Vec<(u32, u32, Nanos)>,
    /// Each enacted failure, for the report.
    pub log: Vec<serde_json::Value>,
    /// The first failed reads, for the report.
    pub failed_list: Vec<serde_json::Value>,
    /// Re-protection (`reprotect`): ids waiting, jobs in flight and their limit, pages
    /// rewritten (and of them, data pages: counted as host programs when they finish).
    pub queue: VecDeque<u32>,
    /// Per unit: re-protection transactions waiting for the unit to be idle (`reprotect`).
    pub bg: Vec<VecDeque<u32>>,
    pub inflight: u32,
    pub parallel: u32,
    pub reprotected: u64,
    pub reprotected_data: u64,
    /// A deliberately wrong re-protection, for the test that the oracle catches one: the
    /// n-th page re-protected (from 0) is mapped to its new page without the rebuilt data
    /// being written there.
    #[cfg(test)]
    pub sabotage_skip: Option<u64>,
}

impl Simulation {
    /// Failures asked for (from `Simulation::new`): check them against the device and what
    /// they combine with.
    pub(super) fn failure_setup(&mut self) -> Result<(), String> {
        if self.opts.failures.is_empty() {
            return Ok(());
        }
        if !self.opts.power_cut_at.is_empty() || self.opts.power_loss_every > 0 {
            return Err("--fail-die / --fail-plane are not combined with power cuts or power-loss audits".into());
        }
        if self.content.is_some() || self.scheme.content.is_some() {
            return Err(format!("scheme '{}': die and plane failures are not modelled for the content-aware schemes", self.scheme_name));
        }
        let geo = self.ftl.geo.clone();
        let mut plan = Vec::new();
        let mut seen = vec![false; geo.planes() as usize];
        for f in &self.opts.failures.failures {
            let planes = f.planes(&geo)?;
            for p in &planes {
                if std::mem::replace(&mut seen[p.idx()], true) {
                    return Err(format!("{} after request {}: plane {} is asked to fail twice", f.describe(), f.at, p.0));
                }
            }
            plan.push((f.at, planes, f.describe()));
        }
        if seen.iter().all(|&d| d) {
            return Err("--fail-die / --fail-plane: every plane of the device would fail, and its data has nowhere to go".into());
        }
        plan.sort_by_key(|(at, _, _)| *at);
        let due = plan[0].0;
        self.next_cut = due;
        self.failures = Some(Box::new(DieFailures {
            plan,
            next: 0,
            due,
            dead: vec![false; geo.planes() as usize],
            subs: vec![Vec::new(); geo.planes() as usize],
            enacted: 0,
            planes_failed: 0,
            retired_blocks: 0,
            lost_pages: 0,
            rebuilt_reads: 0,
            member_reads: 0,
            failed_reads: 0,
            relocated_writes: 0,
            read_wait_ns: 0,
            deferred: Vec::new(),
            log: Vec::new(),
            failed_list: Vec::new(),
            queue: VecDeque::new(),
            bg: vec![VecDeque::new(); self.units.len()],
            inflight: 0,
            parallel: self.opts.failures.reprotect_parallel,
            reprotected: 0,
            reprotected_data: 0,
            #[cfg(test)]
            sabotage_skip: None,
        }));
        Ok(())
    }

    /// The run loop's rare path with failures: enact those due before this arrival.
    #[cold]
    #[inline(never)]
    pub(super) fn failures_due(&mut self, arrival: Nanos) -> Nanos {
        let n = self.c.requests_submitted;
        while let Some(f) = self.failures.as_mut().filter(|f| n >= f.due) {
            let (_, planes, what) = f.plan[f.next].clone();
            f.next += 1;
            f.due = f.plan.get(f.next).map_or(u64::MAX, |x| x.0);
            self.fail_planes(&planes, &what, arrival.max(self.now));
        }
        self.next_cut = self.failures.as_ref().map_or(u64::MAX, |f| f.due);
        arrival
    }

    /// The error for failures the workload ended before.
    #[cold]
    #[inline(never)]
    pub(super) fn failures_left(&self) -> Option<SimError> {
        let f = self.failures.as_ref()?;
        let (at, _, what) = f.plan.get(f.next)?;
        let n = self.c.requests_submitted;
        Some(SimError::Source(crate::host::SourceError {
            location: format!("request {n} (the last)"),
            message: format!("{what} was to fail after request {at}: the workload ended after {n} requests (AT must be below {n})"),
        }))
    }

    /// Is plane `p` failed? (False at no cost without failures.)
    #[inline]
    pub(super) fn plane_dead(&self, p: PlaneId) -> bool {
        self.failures.as_ref().is_some_and(|f| f.dead[p.idx()])
    }

    /// The plane that takes the write of id `id` whose plane is `p`: `p` itself while
    /// healthy, else one of its substitutes, chosen by a hash of the id (module doc).
    #[inline]
    pub(super) fn healthy_plane(&self, p: PlaneId, id: u32) -> PlaneId {
        match &self.failures {
            Some(f) if f.dead[p.idx()] => {
                let s = &f.subs[p.idx()];
                s[((u64::from(id.wrapping_mul(0x9E37_79B1)) * s.len() as u64) >> 32) as usize]
            }
            _ => p,
        }
    }

    /// Enact one failure at `at` (module doc).
    fn fail_planes(&mut self, planes: &[PlaneId], what: &str, at: Nanos) {
        self.now = at;
        self.cur_key = phases::key(at, u64::MAX);
        let geo = self.ftl.geo.clone();
        let rain = self.rain.clone();
        {
            let f = self.failures.as_mut().expect("failures");
            for p in planes {
                f.dead[p.idx()] = true;
            }
            f.subs = substitutes(&geo, &f.dead, rain.as_ref().map(|_| geo.planes_per_channel()));
            f.enacted += 1;
            f.planes_failed += planes.len() as u64;
            f.retired_blocks += planes.len() as u64 * u64::from(geo.blocks_per_plane);
        }
        // GC on the failed planes ends; the policy hears the victim is done (a rotation
        // passes its turn on).
        for &p in planes {
            let g = &mut self.gc[p.idx()];
            let was = g.active() || g.victim.is_some() || g.erase_waits.is_some();
            g.grant = None;
            g.victim = None;
            g.erase_waits = None;
            g.cursor = 0;
            if was {
                self.victim_done(p);
            }
        }
        // The pages the failed planes held: lost, or to be re-protected. A page whose program
        // has not finished is still in controller memory: its write fails and is placed again.
        let (mut lost, mut queued) = (0u64, 0u64);
        for &p in planes {
            let first = geo.first_block(p).0;
            for b in first..first + geo.blocks_per_plane {
                let base = geo.ppn(crate::units::BlockId(b), 0).0;
                for ppn in base..base + self.ftl.blocks.allocated[b as usize] {
                    let id = self.ftl.p2l[ppn as usize];
                    if id == NONE || self.ftl.l2p[id as usize] != ppn || !self.ftl.blocks.is_programmed(&geo, Ppn(ppn)) {
                        continue;
                    }
                    if rain.is_some() && !self.second_member_lost(id) {
                        queued += 1;
                        self.failures.as_mut().expect("failures").queue.push_back(id);
                    } else {
                        lost += 1;
                    }
                }
            }
        }
        let f = self.failures.as_mut().expect("failures");
        f.lost_pages += lost;
        f.log.push(serde_json::json!({
            "what": what,
            "after_request": self.c.requests_submitted,
            "time_ns": at.0,
            "planes": planes.iter().map(|p| p.0).collect::<Vec<_>>(),
            "lost_pages": lost,
            "pages_to_reprotect": queued,
        }));
        // Writes waiting for a failed plane wait for its substitute instead.
        if self.dev.ftl.allocation == crate::config::Allocation::Static {
            let mut touched = Vec::new();
            for &p in planes {
                let moved: Vec<_> = self.stalled[p.idx()].drain(..).collect();
                for w in moved {
                    let to = self.healthy_plane(p, w.lpn);
                    touched.push(to);
                    self.stalled[to.idx()].push_back(w);
                }
            }
            touched.sort_unstable_by_key(|p| p.0);
            touched.dedup();
            for to in touched {
                self.retry_stalled(to);
            }
        }
        // Idle units of the failed planes fail their queued operations now.
        for &p in planes {
            self.dispatch(self.unit_of_plane[p.idx()]);
        }
        self.die_pump();
    }

    /// Under RAIN: is another member of `id`'s stripe (data or parity) on a failed plane,
    /// with data there? Then one parity cannot rebuild `id`.
    pub(super) fn second_member_lost(&self, id: u32) -> bool {
        let Some(r) = &self.rain else { return true };
        let s = if r.is_parity(id) { id - r.data_pages } else { r.stripe_of(id) };
        let others = r.data_members(s).chain(std::iter::once(r.parity_id(s))).filter(|&m| m != id);
        others.into_iter().any(|m| {
            let mp = self.ftl.l2p[m as usize];
            mp != NONE && !self.pending_in_dram(mp) && self.plane_dead(self.ftl.blocks.plane_of(Ppn(mp)))
        })
    }

    /// An operation of a failed plane fails (module doc): transaction `t`, already taken off
    /// its unit (its slot is freed by the caller).
    #[cold]
    #[inline(never)]
    pub(super) fn fail_txn(&mut self, t: u32) {
        let x = self.txns[t as usize].clone();
        match x.kind {
            TxnKind::Read => {
                if x.parent != NONE {
                    // A member read of a rebuild: that rebuild cannot be trusted, and is done again.
                    self.rebuilds[x.parent as usize].broken = true;
                    self.rebuild_part_done(x.parent);
                }
                // A request's own read (possibly shared by a rebuild, `gtr`) is read again.
                if !x.internal && x.req != NO_REQ {
                    self.reread(x.req, x.lpn);
                }
            }
            TxnKind::Write if x.internal => {
                // A re-protection write whose plane failed too: the job is done again.
                let f = self.failures.as_mut().expect("failures");
                f.inflight -= 1;
                f.queue.push_back(x.lpn);
            }
            TxnKind::Write => self.relocate_write(&x),
            _ => {
                let g = &mut self.gc[x.plane.idx()];
                g.in_flight = false;
                g.erasing = false;
            }
        }
    }

    /// A write of a failed plane is placed again on its substitute, with the version (data)
    /// it carried; if a newer write of its page was accepted meanwhile, nothing is left to
    /// program and the page is done.
    fn relocate_write(&mut self, x: &Txn) {
        let id = x.lpn;
        if self.ftl.l2p[id as usize] != x.ppn {
            if x.dst != NONE {
                self.superseded_done(x.dst);
            }
            self.write_page_finished(x.req, x.buffered, x.parity);
            return;
        }
        let target = self.choose_plane(id);
        let Some((ppn, took)) = self.allocate_relocated(target) else { return };
        self.ftl.map(Lpn(id), ppn);
        self.oracle.copy(x.ppn, ppn.0, x.version);
        self.failures.as_mut().expect("failures").relocated_writes += 1;
        let t = Txn { version: x.version, buffered: x.buffered, parity: x.parity, dst: x.dst, ..self.txn_record(TxnKind::Write, target, id, ppn.0, x.req) };
        let t = self.store_txn(t);
        self.enqueue_user(t);
        if took {
            self.free_changed(target);
        }
    }

    /// A page for a write the failure moved (or a re-protection): beyond the host's limit if
    /// need be (GC's reserve; such writes are few: at most a queue's worth, or the
    /// re-protection jobs in flight). None: the run stops (`fatal`).
    pub(super) fn allocate_relocated(&mut self, target: PlaneId) -> Option<(Ppn, bool)> {
        let got = self.ftl.allocate(target, Stream::User, self.dev.ftl.gc_reserved_blocks).or_else(|| self.ftl.allocate(target, Stream::User, 0));
        if got.is_none() {
            self.fatal = Some(format!("plane {target} has no free page for the data of a failed plane at t={} ns", self.now.0));
        }
        got
    }

    /// A host read of `lpn` for request `slot` sent down the read path again (its first
    /// attempt failed with its plane, or a rebuild of it could not be trusted).
    pub(super) fn reread(&mut self, slot: u32, lpn: u32) {
        if let Some(v) = self.buffered_version(lpn) {
            self.serve_from_ram(slot, lpn, v, "flush-buffer read");
            return;
        }
        let ppn = self.ftl.l2p[lpn as usize];
        if self.pending_in_dram(ppn) {
            self.dram_hit(slot, lpn, ppn);
            return;
        }
        let plane = self.plane_of_read(lpn, ppn);
        if self.plane_dead(plane) {
            self.degraded_read(slot, lpn);
            return;
        }
        let t = self.new_txn(TxnKind::Read, plane, lpn, ppn, slot);
        self.enqueue_user(t);
    }

    /// A host read of a page on a failed plane (module doc).
    #[cold]
    #[inline(never)]
    pub(super) fn degraded_read(&mut self, slot: u32, lpn: u32) {
        let Some(r) = self.rain.clone() else {
            self.failed_read(slot, lpn);
            return;
        };
        if self.second_member_lost(lpn) {
            self.failed_read(slot, lpn);
            return;
        }
        let s = r.stripe_of(lpn);
        if self.parity_epoch[s as usize] != self.stripe_epoch[s as usize] {
            let now = self.now;
            self.failures.as_mut().expect("failures").deferred.push((slot, lpn, now));
            return;
        }
        self.failures.as_mut().expect("failures").rebuilt_reads += 1;
        self.rebuild(slot, lpn, s, super::read_path::RebuildFor::DieFailure);
    }

    /// A read of a lost page completes at once with an error status (counted; the first few
    /// described).
    fn failed_read(&mut self, slot: u32, lpn: u32) {
        let now = self.now.0;
        let f = self.failures.as_mut().expect("failures");
        f.failed_reads += 1;
        if f.failed_list.len() < DESCRIBED {
            f.failed_list.push(serde_json::json!({ "time_ns": now, "lpn": lpn }));
        }
        self.schedule(self.now, super::EV_PAGE_DONE, slot);
    }

    /// A transaction finished (`reprotected`: a re-protection write, which ends its job);
    /// then `die_pump`.
    #[cold]
    #[inline(never)]
    pub(super) fn die_finished(&mut self, reprotected: bool) {
        if reprotected {
            self.failures.as_mut().expect("failures").inflight -= 1;
        }
        self.die_pump();
    }

    /// Reads waiting for their stripe's parity try again, and re-protection goes on
    /// (`reprotect`).
    pub(super) fn die_pump(&mut self) {
        let Some(f) = self.failures.as_mut() else { return };
        if !f.deferred.is_empty() {
            let waiting = std::mem::take(&mut f.deferred);
            for (slot, lpn, since) in waiting {
                let w = (self.now - since).0;
                self.failures.as_mut().expect("failures").read_wait_ns += w;
                self.reread(slot, lpn);
            }
        }
        self.reprotect_pump();
    }

    /// The failures' counters for the report (`flash.extra`) and what failed (`config`).
    pub(super) fn failure_report(&self, extra: &mut std::collections::BTreeMap<String, u64>) -> Option<serde_json::Value> {
        let f = self.failures.as_ref()?;
        let left = self.unprotected_pages();
        for (k, v) in [
            ("die_failures", f.enacted),
            ("die_failure_planes", f.planes_failed),
            ("die_failure_retired_blocks", f.retired_blocks),
            ("die_failure_lost_pages", f.lost_pages),
            ("die_failure_rebuilt_reads", f.rebuilt_reads),
            ("die_failure_member_reads", f.member_reads),
            ("die_failure_read_wait_ns", f.read_wait_ns),
            ("die_failure_relocated_writes", f.relocated_writes),
            ("die_failure_reprotected_pages", f.reprotected),
            ("die_failure_unprotected_pages", left),
            ("failed_reads", f.failed_reads),
        ] {
            extra.insert(k.into(), v);
        }
        Some(serde_json::json!({
            "reprotect_parallel": f.parallel,
            "enacted": f.log,
            "failed_reads_first": f.failed_list,
        }))
    }

    /// Pages still on failed planes that re-protection has not rewritten (and not lost).
    fn unprotected_pages(&self) -> u64 {
        let Some(f) = &self.failures else { return 0 };
        if self.rain.is_none() {
            return 0;
        }
        f.queue.iter().filter(|&&id| {
            let p = self.ftl.l2p[id as usize];
            p != NONE && self.plane_dead(self.ftl.blocks.plane_of(Ppn(p)))
        }).count() as u64
    }
}

/// Each failed plane's substitutes (module doc): the healthy planes of the device, in order
/// from the plane after it; under RAIN (`rain_group`: planes per channel, a plane's group
/// being its index modulo that) only those on dies with no plane of the failed plane's
/// group, so no die holds two members of a stripe. If that leaves none, any healthy plane.
/// Healthy planes get none.
fn substitutes(geo: &crate::nand::Geometry, dead: &[bool], rain_group: Option<u32>) -> Vec<Vec<PlaneId>> {
    let (ppd, n) = (geo.planes_per_die, geo.planes());
    (0..n)
        .map(|p| {
            if !dead[p as usize] {
                return Vec::new();
            }
            let healthy = (1..=n).map(|i| (p + i) % n).filter(|&q| !dead[q as usize]);
            let apart = |q: &u32| {
                rain_group.is_none_or(|ppc| {
                    let die = q / ppd * ppd;
                    (die..die + ppd).all(|x| x % ppc != p % ppc)
                })
            };
            let v: Vec<PlaneId> = healthy.clone().filter(apart).map(PlaneId).collect();
            if v.is_empty() { healthy.map(PlaneId).collect() } else { v }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::substitutes;
    use crate::config::presets;
    use crate::units::PlaneId;

    #[test]
    fn substitutes_keep_a_stripes_members_on_distinct_dies() {
        // bench-ref: 8 channels x 4 chips x 1 die x 2 planes: 64 planes, 8 per channel, a
        // die's two planes adjacent; RAIN groups = plane mod 8.
        let geo = presets::load("bench-ref").unwrap().geometry;
        assert_eq!((geo.planes_per_channel(), geo.planes_per_die, geo.planes()), (8, 2, 64));
        let mut dead = vec![false; 64];
        dead[8] = true; // die 1/0/0: planes 8 and 9 (groups 0 and 1)
        dead[9] = true;
        let ids = |v: &Vec<PlaneId>| v.iter().map(|p| p.0).collect::<Vec<_>>();
        let s = substitutes(&geo, &dead, None);
        assert_eq!(s[8].len(), 62, "without RAIN: every healthy plane");
        assert_eq!(s[8][0], PlaneId(10), "from the plane after it");
        let s = substitutes(&geo, &dead, Some(8));
        // Group 0 has a plane on die 0 of every channel: those dies (planes 8c, 8c+1) are left out.
        assert_eq!(s[8].len(), 64 - 2 * 8);
        assert!(s[8].iter().all(|q| q.0 % 8 >= 2), "{:?}", ids(&s[8]));
        assert_eq!(ids(&s[9]), ids(&s[8]), "group 1 shares those dies");
        assert!(s[0].is_empty() && s[10].is_empty());
        // No plane outside the failed group's dies: any healthy plane.
        let tiny = presets::load("tiny").unwrap().geometry;
        let s = substitutes(&tiny, &[false, false, true, false], Some(2));
        assert_eq!(ids(&s[2]), vec![3, 1], "planes of the other group, from the plane after it");
    }
}
