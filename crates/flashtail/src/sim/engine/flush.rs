//! ttFlash's GC-tolerant flush (FAST'17 §4.4): host writes land in
//! capacitor-backed RAM — durable on arrival, so the request completes at once — grouped by
//! RAIN stripe. When dirty pages pass 80% of the buffer, least-recently-used stripes are
//! flushed whole: their dirty data pages plus one parity page. A partial stripe's parity needs
//! the stripe's clean members, read back from flash (reconstruct-write); those reads are real.
//! A flush skips stripes whose plane group has a GC'ing plane when an older-but-clean choice
//! exists among the 8 least recent, so writes almost never meet GC either.
//!
//! Reads of a buffered page are served from RAM. A page stays in the buffer map until its
//! flash write is mapped, so no read can fall between the two; a page rewritten while its
//! flushed write waits for its plane (held or stalled) is a new dirty page of its stripe.
//!
//! Power cuts (`power_cut`): the capacitor makes the buffer durable by design, so its data
//! survives a cut (`flush_power_cut`): every dirty page stays buffered, and a page flushed
//! whose flash write was not mapped yet (that write was volatile) is a dirty page of its
//! stripe again, flushed later like any other. Not modelled: the buffer's dump to flash on
//! capacitor power and its reload at restart (untimed).

use super::{Simulation, EV_PAGE_DONE};
use crate::ftl::rain::Rain;
use crate::ftl::NONE;
use crate::scheduler::txn::NO_REQ;
use crate::units::Nanos;
use std::collections::{BTreeMap, HashMap};

/// How far back in LRU order a flush looks for a stripe away from GC.
const FLUSH_LOOKAHEAD: usize = 8;

pub(super) struct StripeBuffer {
    pub cap: u32,
    /// Dirty pages plus flushed pages not yet programmed.
    pub used: u32,
    pub dirty_pages: u32,
    /// Newest buffered version of each dirty logical page.
    pub dirty: HashMap<u32, u32>,
    /// Stripe → (LRU stamp, its dirty pages).
    stripes: HashMap<u32, (u64, Vec<u32>)>,
    lru: BTreeMap<u64, u32>,
    stamp: u64,
    pub flushes: u64,
    pub flushes_steered: u64,
    pub rmw_reads: u64,
}

impl StripeBuffer {
    /// Pages of `lpns` that would be new dirty pages: not in their stripe's buffered pages
    /// yet. (A page can be in `dirty` and not in its stripe: flushed, its flash write waiting
    /// for its plane; a rewrite of it is a new dirty page of the stripe.)
    fn new_pages(&self, rain: &Rain, lpns: &[u32]) -> u32 {
        lpns.iter().filter(|&&l| !self.stripes.get(&rain.stripe_of(l)).is_some_and(|e| e.1.contains(&l))).count() as u32
    }

    pub fn new(cap: u32) -> StripeBuffer {
        StripeBuffer {
            cap,
            used: 0,
            dirty_pages: 0,
            dirty: HashMap::new(),
            stripes: HashMap::new(),
            lru: BTreeMap::new(),
            stamp: 0,
            flushes: 0,
            flushes_steered: 0,
            rmw_reads: 0,
        }
    }
}

impl Simulation {
    /// A host write request under GC-tolerant flush.
    pub(super) fn flush_admit(&mut self, slot: u32, lpns: Vec<u32>) {
        let fb = self.flush.as_ref().expect("flush buffer");
        let new_pages = fb.new_pages(self.rain.as_ref().expect("GC-tolerant flush needs RAIN"), &lpns);
        if !self.buffer_wait.is_empty() || (fb.used + new_pages > fb.cap && fb.used > 0) {
            self.reqs.get(slot).pending += 1;
            self.buffer_wait.push_back((slot, lpns, self.now));
            self.flush_for_room();
            return;
        }
        self.flush_insert(slot, &lpns);
        self.reqs.get(slot).pending += 1;
        self.schedule(self.now + Nanos(self.dev.timing.dram_hit_ns), EV_PAGE_DONE, slot);
        self.flush_if_needed();
    }

    fn flush_insert(&mut self, slot: u32, lpns: &[u32]) {
        for &lpn in lpns {
            let v = self.oracle.bump(&mut self.ftl.l2p, lpn);
            self.note_version(slot, lpn, v);
            let rain = self.rain.as_ref().expect("GC-tolerant flush needs RAIN");
            let s = rain.stripe_of(lpn);
            let fb = self.flush.as_mut().expect("flush buffer");
            fb.stamp += 1;
            let stamp = fb.stamp;
            fb.dirty.insert(lpn, v);
            let e = fb.stripes.entry(s).or_insert((0, Vec::new()));
            if !e.1.contains(&lpn) {
                e.1.push(lpn);
                fb.used += 1;
                fb.dirty_pages += 1;
            }
            if e.0 != 0 {
                fb.lru.remove(&e.0);
            }
            e.0 = stamp;
            fb.lru.insert(stamp, s);
        }
    }

    /// Flush stripes while dirty pages exceed 80% of the buffer.
    fn flush_if_needed(&mut self) {
        self.flush_while(|fb| (fb.dirty_pages as u64) * 10 >= (fb.cap as u64) * 8);
    }

    /// A request waits for room in the buffer: flush stripes until it would fit once their
    /// programs finish. (Waiting for the 80 % mark alone deadlocked a small buffer: with
    /// 8 pages, 5 dirty and a 4-page request waiting, nothing was ever flushed.)
    fn flush_for_room(&mut self) {
        let Some((_, lpns, _)) = self.buffer_wait.front() else { return };
        let rain = self.rain.as_ref().expect("RAIN");
        let need = self.flush.as_ref().expect("flush buffer").new_pages(rain, lpns);
        self.flush_while(|fb| fb.dirty_pages + need > fb.cap);
    }

    /// Flush least-recently-used stripes (steering away from GC'ing plane groups) while
    /// `more` holds and dirty stripes are left.
    fn flush_while(&mut self, more: impl Fn(&StripeBuffer) -> bool) {
        loop {
            let fb = self.flush.as_ref().expect("flush buffer");
            if fb.lru.is_empty() || !more(fb) {
                return;
            }
            let rain = self.rain.as_ref().expect("RAIN");
            let candidates: Vec<u32> = fb.lru.values().take(FLUSH_LOOKAHEAD).copied().collect();
            let clear = candidates.iter().position(|&s| {
                let g = rain.group_of_plane(rain.plane_of(rain.parity_id(s)));
                rain.group_planes(g).all(|p| !self.gc[p.idx()].active())
            });
            let pick = candidates[clear.unwrap_or(0)];
            if clear.is_some_and(|i| i > 0) {
                self.flush.as_mut().expect("fb").flushes_steered += 1;
            }
            self.flush_stripe(pick);
        }
    }

    fn flush_stripe(&mut self, s: u32) {
        let rain = self.rain.clone().expect("RAIN");
        let fb = self.flush.as_mut().expect("flush buffer");
        let Some((stamp, lpns)) = fb.stripes.remove(&s) else { return };
        fb.lru.remove(&stamp);
        fb.flushes += 1;
        fb.dirty_pages -= lpns.len() as u32;
        // Reconstruct-write: a partial stripe's parity needs its clean members from flash.
        for m in rain.data_members(s) {
            if lpns.contains(&m) {
                continue;
            }
            let mp = self.ftl.l2p[m as usize];
            if mp == NONE || self.pending_in_dram(mp) {
                continue;
            }
            self.flush.as_mut().expect("fb").rmw_reads += 1;
            self.internal_read(m, mp, NONE);
        }
        for &lpn in &lpns {
            let v = self.flush.as_ref().expect("fb").dirty[&lpn];
            self.submit_flush_write(lpn, v);
        }
        self.submit_stripe_parity(NO_REQ, s, true);
    }

    /// Write one flushed page; it leaves the buffer map when its flash page is mapped.
    fn submit_flush_write(&mut self, lpn: u32, v: u32) {
        self.submit_write_versioned(NO_REQ, lpn, true, self.now, true, Some(v));
    }

    /// A flushed page was mapped to flash: drop it from the buffer map unless rewritten since.
    pub(super) fn flush_mapped(&mut self, lpn: u32, v: u32) {
        if let Some(fb) = self.flush.as_mut() {
            if fb.dirty.get(&lpn) == Some(&v) {
                fb.dirty.remove(&lpn);
            }
        }
    }

    /// A flushed page was programmed: free its slot and admit waiting writes.
    pub(super) fn flush_release(&mut self) {
        let fb = self.flush.as_mut().expect("flush buffer");
        fb.used -= 1;
        while let Some((slot, lpns, since)) = self.buffer_wait.front() {
            let fb = self.flush.as_ref().expect("fb");
            let new_pages = fb.new_pages(self.rain.as_ref().expect("RAIN"), lpns);
            if fb.used + new_pages > fb.cap && fb.used > 0 {
                self.flush_for_room();
                return;
            }
            let (slot, lpns, since) = (*slot, lpns.clone(), *since);
            self.buffer_wait.pop_front();
            self.reqs.get(slot).wait[crate::sim::requests::W_BUFFER] += (self.now - since).0;
            self.flush_insert(slot, &lpns);
            self.schedule(self.now + Nanos(self.dev.timing.dram_hit_ns), EV_PAGE_DONE, slot);
            self.flush_if_needed();
        }
    }

    /// A power cut (module doc): the buffered data stays; work in flight does not. Pages
    /// flushed but not mapped rejoin their stripes (in page order, so the run stays
    /// deterministic), and the buffer holds exactly its dirty pages (flushed pages being
    /// programmed finish on capacitor power and leave it).
    pub(super) fn flush_power_cut(&mut self) {
        let Some(fb) = self.flush.as_mut() else { return };
        let rain = self.rain.as_ref().expect("GC-tolerant flush needs RAIN");
        let mut orphans: Vec<u32> = fb.dirty.keys().copied().filter(|&l| !fb.stripes.get(&rain.stripe_of(l)).is_some_and(|e| e.1.contains(&l))).collect();
        orphans.sort_unstable();
        for lpn in orphans {
            let s = rain.stripe_of(lpn);
            let e = fb.stripes.entry(s).or_insert((0, Vec::new()));
            e.1.push(lpn);
            fb.dirty_pages += 1;
            if e.0 == 0 {
                fb.stamp += 1;
                e.0 = fb.stamp;
                fb.lru.insert(fb.stamp, s);
            }
        }
        debug_assert_eq!(fb.dirty_pages as usize, fb.stripes.values().map(|e| e.1.len()).sum::<usize>());
        debug_assert_eq!(fb.dirty_pages as usize, fb.dirty.len(), "every dirty page is in its stripe once");
        fb.used = fb.dirty_pages;
    }

    /// Newest buffered version of a page, if it is dirty in the flush buffer.
    #[inline]
    pub(super) fn buffered_version(&self, lpn: u32) -> Option<u32> {
        self.flush.as_ref().and_then(|fb| fb.dirty.get(&lpn).copied())
    }
}
