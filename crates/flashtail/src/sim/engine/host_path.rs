//! The host side of the engine: a request arrives, is split into its pages (each a read or
//! a write submitted down the read or write path), and completes when its last page does;
//! its latency and waits are then recorded.
//!
//! Does not do: what a page read or write does on the way to flash (read_path.rs,
//! write_path.rs, flush.rs, content_path/), the request slots themselves (sim/requests.rs).

use super::{phases, wrap_page, Simulation};
use crate::host::{HostRequest, Op};
use crate::scheduler::Cause;
use crate::sim::requests::{Req, REQ_WAITS, WAIT_N, W_CUT, W_FREE};
use crate::stats::tail::TailEntry;
use crate::units::{Lpn, Nanos, PlaneId};
use std::sync::atomic::Ordering;

impl Simulation {
    /// The plane of logical id `id` under static striping (`Geometry::static_plane`).
    #[inline]
    pub(super) fn static_plane(&self, id: u32) -> PlaneId {
        let n = self.static_planes.len() as u32;
        let i = if n.is_power_of_two() { id & (n - 1) } else { id % n };
        let p = self.static_planes[i as usize];
        debug_assert_eq!(p, self.ftl.geo.static_plane(Lpn(id)));
        p
    }

    /// The page holding byte `offset`: a shift for power-of-two pages (every preset), since
    /// a 64-bit division costs tens of cycles and runs several times per request.
    #[inline]
    pub(super) fn page_index(&self, offset: u64) -> u64 {
        match self.page_shift {
            Some(k) => offset >> k,
            None => offset / self.page_bytes,
        }
    }

    /// Request `r` arrives at the device at `at`: its arrival, or later when the device was
    /// recovering from a power cut (`power_cut`; its latency still counts from its arrival).
    #[inline(always)]
    pub(super) fn arrive_at(&mut self, r: &HostRequest, at: Nanos) {
        self.now = at;
        self.cur_key = phases::key(self.now, u64::MAX);
        if self.first_arrival.is_none() && self.content.is_some() {
            self.content_first_arrival();
        }
        self.first_arrival.get_or_insert(r.arrival);
        self.c.requests_submitted += 1;
        if self.now.0 >= self.next_sample {
            self.sample_free();
        }
        if self.policy_watches_requests {
            std::hint::cold_path();
            self.notify(|p, ctx| p.on_arrival(ctx, r));
        }

        let first = self.page_index(r.offset);
        let last = self.page_index(r.offset + r.size.max(1) - 1);
        let lp = self.ftl.logical_pages as u64;
        if last >= lp {
            self.c.wrapped_requests += 1;
        }
        let pages = (last - first + 1).min(u32::MAX as u64) as u32;
        let slot = self.reqs.insert(Req { arrival: r.arrival, op: r.op, pending: 1, wait: [0; REQ_WAITS], last_plane: PlaneId(0), pages });
        self.c.bytes[r.op as usize] += r.size;
        if let Some(q) = &mut self.closed {
            q.issued(slot);
        }
        if let Some(pc) = &mut self.cuts {
            // Later than its arrival only after a cut (re-sent, or held while recovering):
            // its `power_cut` wait, counted in the run's total now (not on the completion
            // path, which every request takes; a request abandoned again by a later cut has
            // it taken back there: `PowerCuts::sent`).
            pc.sent(slot, r, at.0.saturating_sub(r.arrival.0));
        }
        match r.op {
            Op::Read => {
                for page in first..=last {
                    self.reqs.get(slot).pending += 1;
                    self.submit_read(slot, wrap_page(page, lp));
                }
                if !self.gtr.candidates.is_empty() {
                    // Pages on collecting planes: rebuild them from their stripes? (gtr.rs)
                    self.gtr_review();
                }
            }
            Op::Write => {
                // The page list of a write: a reused buffer unless a buffer path keeps it.
                let mut lpns = std::mem::take(&mut self.lpn_scratch);
                lpns.clear();
                lpns.extend((first..=last).map(|p| wrap_page(p, lp)));
                if self.content.is_some() {
                    std::hint::cold_path();
                    self.content_write(slot, &lpns, r);
                    self.lpn_scratch = lpns;
                } else if self.flush.is_some() {
                    std::hint::cold_path();
                    self.flush_admit(slot, lpns);
                } else if self.dev.buffer.enabled {
                    self.write_pages(slot, lpns);
                } else {
                    self.submit_batch(slot, &lpns, false);
                    self.lpn_scratch = lpns;
                }
            }
        }
        // Drop the guard count taken at insert.
        self.page_done(slot);
    }

    /// One page of a request finished (or the arrival guard was dropped).
    ///
    /// Always inlined, as a profile-guided build does: its callers (`complete`, `arrive`)
    /// run it once per page and mostly take its first return (−1.2 % instructions).
    #[inline(always)]
    pub(super) fn page_done(&mut self, slot: u32) {
        let r = self.reqs.get(slot);
        r.pending -= 1;
        if r.pending > 0 {
            return;
        }
        let lat = (self.now - r.arrival).0;
        let (op, wait, plane) = (r.op, r.wait, r.last_plane);
        // One comparison unless the request is among the slowest of its class so far.
        if self.tail[op as usize].admits(lat) {
            self.keep_slow(slot, lat);
        }
        self.reqs.remove(slot);
        if let Some(q) = &mut self.closed {
            q.completed(slot);
        }
        self.c.requests_completed += 1;
        self.c.last_done = self.now.0;
        match op {
            Op::Read => self.reads.record(lat),
            Op::Write => {
                self.writes.record(lat);
                if let Some(d) = &mut self.durable {
                    d.acknowledge(slot);
                }
            }
        }
        if let Some(all) = &mut self.all {
            all.record(lat);
        }
        for (acc, w) in self.c.wait_ns.iter_mut().zip(wait) {
            *acc += w;
        }
        if wait[Cause::GcCopy as usize] + wait[Cause::GcErase as usize] + wait[W_FREE] > 0 {
            self.c.waited_on_gc += 1;
            if op == Op::Read {
                self.c.reads_waited_on_gc += 1;
            }
        }
        if let Some(p) = &self.opts.progress {
            p.requests_done.fetch_add(1, Ordering::Relaxed);
            p.sim_time_ns.store(self.now.0, Ordering::Relaxed);
        }
        if self.policy_watches_requests {
            std::hint::cold_path();
            self.notify(|p, ctx| p.on_complete(ctx, op, Nanos(lat), plane));
        }
    }

    /// Offer completed request `slot` to its class's slowest-requests keeper (out of line:
    /// the caller is the hot path, and few requests get here).
    #[cold]
    #[inline(never)]
    fn keep_slow(&mut self, slot: u32, lat: u64) {
        let seq = self.c.requests_completed;
        let r = self.reqs.get(slot);
        let mut wait = [0; WAIT_N];
        wait[..REQ_WAITS].copy_from_slice(&r.wait);
        wait[W_CUT] = self.cuts.as_ref().map_or(0, |pc| pc.cut_wait(slot));
        let e = TailEntry { latency: lat, arrival: r.arrival.0, seq, wait, plane: r.last_plane.0, pages: r.pages };
        self.tail[r.op as usize].offer(e);
    }
}
