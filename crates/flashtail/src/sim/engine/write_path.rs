//! The write path: plane choice (static striping, dynamic, or RAIN), allocation and mapping
//! at arrival, RAIN parity writes, held and stalled writes, and the optional DRAM write buffer.
//!
//! Held and stalled writes: a plane's unit queues at most `Unit::write_cap` writes with their
//! pages allocated (`ftl.max_queued_writes` per plane); later writes are *held* unallocated,
//! in order, until the queue drains, their wait charged to what the unit did meanwhile. A
//! write that finds no free page *stalls* until GC frees a block (`free_space` wait). Both
//! wait in the plane's `stalled` queue; under dynamic allocation, in one queue for all planes
//! (`wait_queue`).
//!
//! Parity (ttFlash RAIN): each accepted data write bumps its stripe's epoch; after a
//! request's pages of one stripe are accepted, one parity page is programmed on the stripe's
//! parity plane carrying that epoch, so the oracle can tell a parity page that covers every
//! accepted data write from a stale one. The host request waits for its parity too. While a
//! data page of the stripe is held or stalled, the parity waits for it (`stripe_waiting`).
//!
//! A data write and its parity are mapped one by one, each when its own plane has room: a
//! parity write that finds the parity plane out of free space waits in that plane's stall
//! queue while the stripe's new data is already mapped, and the stripe's parity is behind
//! (`parity_epoch` < `stripe_epoch`) until it is mapped. The GC-tolerant read refuses to
//! rebuild from such a stripe (read_path.rs).

use super::{Simulation, Stalled};
use crate::config::Allocation;
use crate::ftl::{Stream, NONE};
use crate::scheduler::txn::NO_REQ;
use crate::scheduler::{Txn, TxnKind};
use crate::sim::requests::{W_BUFFER, W_FREE};
use crate::ftl::content::VIRT;
use crate::units::{Lpn, Nanos, PlaneId, Ppn};

impl Simulation {
    /// The write pages of one host request (after splitting and wrapping).
    pub(super) fn write_pages(&mut self, slot: u32, lpns: Vec<u32>) {
        if self.dev.buffer.enabled {
            self.buffer_admit_or_wait(slot, lpns);
        } else {
            self.submit_batch(slot, &lpns, false);
        }
    }

    /// Submit data pages, then one parity page per stripe they touch (RAIN). A stripe with a
    /// data page waiting for its plane (held or stalled, from this request or an earlier one)
    /// gets its parity when the last such page is accepted (`submit_write_versioned`)
    /// instead: written now, the parity would not cover that page and be written again.
    pub(super) fn submit_batch(&mut self, slot: u32, lpns: &[u32], buffered: bool) {
        let mut last_stripe = u32::MAX;
        for (i, &lpn) in lpns.iter().enumerate() {
            if slot != NO_REQ {
                self.reqs.get(slot).pending += 1;
            }
            self.submit_write(slot, lpn, buffered, self.now, true);
            if let Some(r) = &self.rain {
                let s = r.stripe_of(lpn);
                let next_same = lpns.get(i + 1).is_some_and(|&n| r.stripe_of(n) == s);
                if !next_same && s != last_stripe {
                    last_stripe = s;
                    self.submit_stripe_parity(slot, s, buffered);
                }
            }
        }
    }

    /// The plane a write of `id` goes to. A failed plane's writes go to its substitute
    /// (`die_failure`).
    pub(super) fn choose_plane(&self, id: u32) -> PlaneId {
        if let Some(r) = &self.rain {
            return self.healthy_plane(r.plane_of(id), id);
        }
        match self.dev.ftl.allocation {
            Allocation::Static => self.healthy_plane(self.static_plane(id), id),
            Allocation::Dynamic => {
                // The least loaded unit (fewest queued transactions, the lowest on ties), and
                // within it the plane with the most free blocks (the lowest on ties). The
                // planes of a die share its unit's queue, so they always tie on load: taking
                // the lowest of them sent every write to one plane per die until it held
                // only valid data, and then writes stalled on it for good.
                let mut best: Option<(usize, usize, u32)> = None;
                for p in 0..self.ftl.geo.planes() {
                    if !self.has_free_page(PlaneId(p)) || self.plane_dead(PlaneId(p)) {
                        continue;
                    }
                    let free = self.ftl.blocks.planes[p as usize].free.len();
                    let u = self.unit_of_plane[p as usize];
                    let q = self.units[u as usize].queued();
                    let better = match best {
                        None => true,
                        Some((bq, bfree, bp)) => q < bq || (q == bq && self.unit_of_plane[bp as usize] == u && free > bfree),
                    };
                    if better {
                        best = Some((q, free, p));
                    }
                }
                match best {
                    Some((_, _, p)) => PlaneId(p),
                    None => self.healthy_plane(self.static_plane(id), id),
                }
            }
        }
    }

    /// Allocate, map and queue one page write (data or parity id), or leave it waiting
    /// unallocated in its plane's stall queue. `in_batch`: a new write, whose stripe's parity
    /// write follows from the batch; otherwise (a held or stalled write retried) the parity is
    /// issued here.
    pub(super) fn submit_write(&mut self, slot: u32, id: u32, buffered: bool, since: Nanos, in_batch: bool) {
        self.submit_write_versioned(slot, id, buffered, since, in_batch, None);
    }

    /// As `submit_write`; `version` carries a version already given to the data (a page
    /// flushed from the ttFlash buffer) instead of a new one.
    ///
    /// A new write waits unallocated behind the plane's earlier held or stalled writes (so a
    /// page's writes are mapped in order), when its unit's queue already holds
    /// `queued_writes_per_plane` writes per plane (held: a write takes its flash page only
    /// when the plane can get to it soon, as a controller keeps the rest in its memory), and
    /// when the plane has no free page for it (stalled). Held writes are counted in
    /// `held_writes`, stalled ones in `stalled_writes`.
    pub(super) fn submit_write_versioned(&mut self, slot: u32, id: u32, buffered: bool, since: Nanos, in_batch: bool, version: Option<u32>) {
        let plane = self.choose_plane(id);
        let behind = in_batch && self.waiting_writes != 0 && !self.stalled[self.wait_queue(plane)].is_empty();
        let queue_full = self.write_queue_full(plane);
        let allocated = if behind || queue_full { None } else { self.ftl.allocate(plane, Stream::User, self.dev.ftl.gc_reserved_blocks) };
        let Some((ppn, took)) = allocated else {
            std::hint::cold_path();
            let held = queue_full || (behind && self.has_free_page(plane));
            self.wait_for_plane(plane, held, Stalled { held: None, plane, req: slot, lpn: id, since, buffered, version, content: 0 }, in_batch);
            return;
        };
        if slot != NO_REQ {
            let w = (self.now - since).0;
            if w > 0 {
                self.reqs.get(slot).wait[W_FREE] += w;
            }
        }
        let old = self.ftl.l2p[id as usize];
        self.ftl.map(Lpn(id), ppn);
        self.gc[plane.idx()].monitor.wrote(self.now);
        let mut parity = false;
        let v = match &self.rain {
            Some(r) if r.is_parity(id) => {
                parity = true;
                let s = (id - r.data_pages) as usize;
                self.parity_epoch[s] = self.stripe_epoch[s];
                self.parity_covers(s as u32, ppn.0);
                self.oracle.write_version(&mut self.ftl.l2p, id, ppn.0, self.stripe_epoch[s])
            }
            Some(r) => {
                let s = r.stripe_of(id) as usize;
                self.stripe_epoch[s] += 1;
                match version {
                    Some(v) => self.oracle.place(ppn.0, v),
                    None => self.oracle.write(&mut self.ftl.l2p, id, ppn.0),
                }
            }
            None => self.oracle.write(&mut self.ftl.l2p, id, ppn.0),
        };
        if version.is_none() && !parity {
            self.note_version(slot, id, v);
        }
        if let Some(v) = version {
            std::hint::cold_path();
            self.flush_mapped(id, v);
        }
        if self.content.is_some() {
            std::hint::cold_path();
            self.content_mapped(id, old, ppn.0);
        }
        // Without power-loss protection the superseded page stays needed until this write's
        // program finishes (its block's erase waits: `gc_path`). Parity pages are not data;
        // a capacitor-backed buffer keeps its pages until they are programmed.
        let superseded = if self.guard_superseded && old < VIRT && !parity && !buffered {
            let (b, _) = self.ftl.blocks.locate(Ppn(old));
            self.ftl.blocks.superseded_in_flight[b] += 1;
            old
        } else {
            NONE
        };
        let t = Txn { version: v, buffered, parity, dst: superseded, ..self.txn_record(TxnKind::Write, plane, id, ppn.0, slot) };
        let t = self.store_txn(t);
        self.enqueue_user(t);
        if took {
            std::hint::cold_path();
            self.free_changed(plane);
        }
        if !in_batch && !parity {
            if let Some(r) = &self.rain {
                let s = r.stripe_of(id);
                self.stripe_waiting[s as usize] -= 1;
                self.submit_stripe_parity(slot, s, buffered);
            }
        }
    }

    /// Write stripe `s`'s parity for request `slot` (which then waits for it too), unless a
    /// data page of the stripe still waits for its plane: the parity comes when the last such
    /// page is accepted, covering it.
    pub(super) fn submit_stripe_parity(&mut self, slot: u32, s: u32, buffered: bool) {
        let Some(r) = &self.rain else { return };
        if self.stripe_waiting[s as usize] > 0 {
            return;
        }
        let pid = r.parity_id(s);
        if slot != NO_REQ {
            self.reqs.get(slot).pending += 1;
        }
        self.submit_write(slot, pid, buffered, self.now, true);
    }

    /// Queue write `s` on `plane`'s stall queue: `held` behind a full queue (or earlier held
    /// writes), else for want of a free page. (Kept out of line: the write path's hot
    /// function stays small.)
    #[cold]
    #[inline(never)]
    fn wait_for_plane(&mut self, plane: PlaneId, held: bool, mut s: Stalled, in_batch: bool) {
        if held {
            self.c.held_writes += 1;
            s.held = Some(self.units[self.unit_of_plane[plane.idx()] as usize].cum(self.now));
        } else {
            self.c.stalled_writes += 1;
        }
        if let Some(r) = self.rain.as_ref().filter(|r| !r.is_parity(s.lpn)) {
            if in_batch {
                self.stripe_waiting[r.stripe_of(s.lpn) as usize] += 1;
            }
        }
        s.content = self.content.as_ref().map_or(0, |w| w.write_content);
        self.waiting_writes += 1;
        let q = self.wait_queue(plane);
        self.stalled[q].push_back(s);
        if !held && self.dev.ftl.allocation == Allocation::Dynamic {
            self.wake_gc_for_space();
        }
    }

    /// The stall queue of writes waiting for `plane`. Under dynamic allocation a waiting
    /// write is bound to no plane (it takes whichever plane has room when it is retried), so
    /// all wait in one queue, in arrival order: per-plane queues left writes held on a plane
    /// that then filled with valid data, waiting for ever while other planes had room, and
    /// let a newer write of a page be mapped before an older one held elsewhere.
    #[inline]
    pub(super) fn wait_queue(&self, plane: PlaneId) -> usize {
        match self.dev.ftl.allocation {
            Allocation::Static => plane.idx(),
            Allocation::Dynamic => 0,
        }
    }

    /// Dynamic allocation found no plane with a free page. GC policies look at a plane when
    /// its free space changes, but here a plane's victims also appear when writes placed on
    /// other planes invalidate its pages: a plane that found no victim when it last looked
    /// (all its data valid then) may have plenty now. Let every plane below the soft
    /// threshold with no GC under way look again (after this event: not while a write is
    /// being placed). Once until a block is freed (`gc_woken`).
    #[cold]
    fn wake_gc_for_space(&mut self) {
        if std::mem::replace(&mut self.gc_woken, true) {
            return;
        }
        for p in 0..self.ftl.geo.planes() {
            let plane = PlaneId(p);
            if self.ftl.free_blocks(plane) < self.soft && !self.gc[plane.idx()].active() {
                self.schedule_free_change(plane);
            }
        }
    }

    /// A write of unit `u` finished: its queue has room again for writes held on its planes.
    #[inline]
    pub(super) fn retry_held(&mut self, u: u32) {
        if self.waiting_writes == 0 {
            return;
        }
        if self.dev.ftl.allocation == Allocation::Dynamic {
            // Any plane's waiting write may go to this unit.
            self.retry_stalled(PlaneId(0));
            return;
        }
        let unit = &self.units[u as usize];
        for p in unit.first_plane..unit.first_plane + unit.num_planes {
            if !self.stalled[p as usize].is_empty() {
                self.retry_stalled(PlaneId(p));
            }
        }
    }

    /// Accept a plane's held and stalled writes, in order, while its queue and free pages
    /// allow. Under dynamic allocation: the one queue of all planes (`wait_queue`), each
    /// write going where `choose_plane` puts it now.
    pub(super) fn retry_stalled(&mut self, plane: PlaneId) {
        let q = self.wait_queue(plane);
        while let Some(s) = self.stalled[q].pop_front() {
            let target = match self.dev.ftl.allocation {
                Allocation::Static => plane,
                Allocation::Dynamic => self.choose_plane(s.lpn),
            };
            if !self.has_free_page(target) || self.write_queue_full(target) {
                self.stalled[q].push_front(s);
                if self.dev.ftl.allocation == Allocation::Dynamic && !self.has_free_page(target) {
                    // No plane has room (a write held behind a full queue can find that
                    // when its turn comes).
                    self.wake_gc_for_space();
                }
                return;
            }
            self.waiting_writes -= 1;
            if let Some(w) = &mut self.content {
                w.write_content = s.content;
            }
            let since = match s.held {
                Some(snap) if s.req != NO_REQ => self.charge_hold(s.req, s.plane, snap, s.since),
                _ => s.since,
            };
            self.submit_write_versioned(s.req, s.lpn, s.buffered, since, false, s.version);
        }
    }

    /// Charge a held write's wait to what its unit did meanwhile (busy time per cause since
    /// `snap`, as a queued transaction's wait is charged); returns the start of the rest of
    /// the wait, which `submit_write_versioned` charges to free_space (the unit idle with the
    /// write held behind a plane that had no free page).
    fn charge_hold(&mut self, req: u32, plane: PlaneId, snap: [u64; crate::scheduler::unit::CAUSES], since: Nanos) -> Nanos {
        let u = self.unit_of_plane[plane.idx()];
        self.charge_unit_busy(req, u, snap);
        let busy = self.units[u as usize].cum(self.now).iter().sum::<u64>() - snap.iter().sum::<u64>();
        debug_assert!(busy <= (self.now - since).0, "a unit is busy at most the time it was watched");
        Nanos((since.0 + busy).min(self.now.0))
    }

    /// Can a host write take a page on `plane` (its open block has room, or a free block
    /// beyond GC's reserve is left)?
    #[inline]
    pub(super) fn has_free_page(&self, plane: PlaneId) -> bool {
        let pb = &self.ftl.blocks.planes[plane.idx()];
        pb.user_frontier.is_some() || pb.free.len() as u32 > self.dev.ftl.gc_reserved_blocks
    }

    /// Does the unit of `plane` already queue its most writes with allocated pages?
    #[inline]
    pub(super) fn write_queue_full(&self, plane: PlaneId) -> bool {
        let u = &self.units[self.unit_of_plane[plane.idx()] as usize];
        u.writes.len() >= u.write_cap
    }

    /// Is this logical id's newest data still waiting to be programmed?
    pub(super) fn pending_in_dram(&self, ppn: u32) -> bool {
        ppn != NONE && !self.ftl.blocks.is_programmed(&self.ftl.geo, crate::units::Ppn(ppn))
    }

    fn buffer_admit_or_wait(&mut self, slot: u32, lpns: Vec<u32>) {
        let cap = self.dev.buffer.capacity_pages;
        let n = lpns.len() as u32;
        if self.buffer_wait.is_empty() && (self.buffer_used + n <= cap || self.buffer_used == 0) {
            self.buffer_admit(slot, lpns);
        } else {
            self.reqs.get(slot).pending += 1;
            self.buffer_wait.push_back((slot, lpns, self.now));
        }
    }

    fn buffer_admit(&mut self, slot: u32, lpns: Vec<u32>) {
        self.buffer_used += lpns.len() as u32;
        self.submit_batch(NO_REQ, &lpns, true);
        // The host request completes once its data is in DRAM.
        self.reqs.get(slot).pending += 1;
        self.schedule(self.now + Nanos(self.dev.timing.dram_hit_ns), super::EV_PAGE_DONE, slot);
    }

    /// A buffered page was programmed: free its slot and admit waiting writes.
    pub(super) fn buffer_release(&mut self, parity: bool) {
        if !parity {
            self.buffer_used -= 1;
        }
        let cap = self.dev.buffer.capacity_pages;
        while let Some((slot, lpns, since)) = self.buffer_wait.front() {
            let n = lpns.len() as u32;
            if self.buffer_used + n > cap && self.buffer_used > 0 {
                return;
            }
            let (slot, lpns, since) = (*slot, lpns.clone(), *since);
            self.buffer_wait.pop_front();
            self.reqs.get(slot).wait[W_BUFFER] += (self.now - since).0;
            self.buffer_admit(slot, lpns);
            self.page_done(slot);
        }
    }
}
