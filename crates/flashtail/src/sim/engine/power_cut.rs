//! Enacted power loss, a "power cut" (`SimOptions::power_cut_at`; a
//! simulator requirement: reads are checked across power loss). Where an audit (`power_loss`) only asks what a
//! recovery would find, a cut lets the run go on from it, so every later read is checked
//! against the recovered state.
//!
//! A cut after request N happens just before request N + 1 arrives (at its arrival instant,
//! or now if the device is still recovering from an earlier cut), after every event due
//! until then:
//! 1. what survives is computed as the audit computes it (`Simulation::survivors`), and
//!    checked the same way: an acknowledged write lost is an integrity violation; an
//!    unacknowledged one may be lost (counted);
//! 2. everything volatile is lost: flash operations under way (a program not finished is
//!    torn unless power-loss protection finishes it, as in the audit; an erase issued
//!    completes in recovery), queued transactions, held and stalled writes, channel and unit
//!    state, the Venice mesh's path reservations and waiting units, GC runs and grants, RAIN
//!    rebuilds under way, the policy's timers (`GcPolicy::power_cut`), the mapping;
//! 3. recovery rebuilds the FTL (`Ftl::recover`): each logical page maps to its newest
//!    surviving page, blocks being written are sealed as they stand (their torn and unwritten
//!    pages given up, GC reclaims them later), blocks whose erase was issued are erased; the
//!    oracle's newest version of each logical page becomes the recovered one, and so does the
//!    host's promise (`Durability::restart`);
//! 4. the device is unavailable for the recovery: a spare-area scan reads every page whose
//!    program finished (tR of its level) and erases the blocks whose erase was issued (tBERS),
//!    each unit its own planes' pages, the units in parallel: recovery time is the slowest
//!    unit's (channel transfers of the small spare areas are not counted);
//! 5. when the device is back, the engine announces every plane's free space to the GC policy
//!    (as at the start of a run), writes a new parity page for each RAIN stripe the cut left
//!    stale (`parity_repair`), and the host sends again every request that had not
//!    completed, in their order of arrival: a request completes once, its latency counted from
//!    its first arrival, so the outage shows in the tail. Requests arriving during recovery
//!    wait until the device is back (their latency, too, runs from their arrival). A re-sent
//!    write gets new versions.
//!
//! Wait causes: a re-sent request starts a new record of its waits, and the time from its
//! first arrival until the device took it again (the abandoned attempt and the recovery) is
//! its `power_cut` wait; so is a request's wait for the device to come back when it arrived
//! during the recovery (`sim::requests::W_CUT`).
//!
//! The content-aware schemes (splitgc, cagc, dagc) keep their content tables: the
//! supercapacitor flushes them at a power loss (the SplitGC paper, "Crash consistency"), so a logical
//! page mapped to a content stays mapped to it, and the tables drop only the pages flash lost
//! (`ftl::recovery`); their volatile work (scrub pass, SplitGC's waiting queue, Bloom filter,
//! transactions) is lost and re-derived from the tables (`content_path::power_cut`, which
//! says item by item what survives). They are cut, as audited, only with power-loss
//! protection (`power_loss_setup`): the supercapacitor is that protection.
//!
//! Covered: every scheme, with what audits cover (`sim::power_loss::refusal`: not the DRAM
//! write buffer without ttFlash's flush, not NoGC or the content-aware schemes without
//! power-loss protection): RAIN parity (`parity_repair`), ttFlash's capacitor-backed stripe
//! buffer (`flush`), the Venice mesh (venice, gc-bypass, `--interconnect`) and the
//! content-aware schemes' tables (above) included.

use super::{phases, Simulation};
use crate::ftl::{BlockState, NONE};
use crate::gc::PlaneGc;
use crate::host::HostRequest;
use crate::interconnect::Channel;
use crate::scheduler::events::EventQueue;
use crate::sim::SimError;
use crate::units::{BlockId, Nanos, PlaneId};

/// The power cuts of a run, what the host sent, and what the cuts did.
pub(super) struct PowerCuts {
    /// Request counts after which power is cut, ascending; `next` is the first not enacted,
    /// `due` its count (`u64::MAX`: none left).
    at: Vec<u64>,
    next: usize,
    due: u64,
    /// Each request as the host sent it, by slot, with its order of arrival (kept until the
    /// slot is reused): what the host sends again after a cut.
    sent: Vec<Option<(u64, HostRequest)>>,
    order: u64,
    /// Each slot's request's `power_cut` wait (`sim::requests::W_CUT`), by slot, and the
    /// run's total of them (a request abandoned by a cut has its wait taken back: the one it
    /// gets when sent again includes it).
    cut_wait: Vec<u64>,
    pub wait_ns: u64,
    pub cuts: u64,
    pub recovery_ns: u64,
    pub reissued: u64,
    pub unacked_lost: u64,
    /// Pages given up when open blocks were sealed (torn, or never written).
    pub padded_pages: u64,
    /// Content-aware schemes, summed over the cuts: logical pages recovered mapped to a
    /// content, and listed copies the content tables dropped because flash lost them
    /// (`ftl::recovery`).
    pub shared_pages: u64,
    pub copies_dropped: u64,
    /// ttFlash's stripe buffer: dirty pages it kept across the cuts (`flush_power_cut`).
    pub buffered_kept: u64,
    /// RAIN: parity pages written again after recovery for stripes the cut left stale
    /// (`parity_repair`).
    pub parity_rewrites: u64,
    /// RAIN: data pages read to compute those parity pages.
    pub parity_reads: u64,
    /// A recovery that left the FTL inconsistent: the run stops with it (through `fatal`,
    /// so the run loop needs no error path of its own for cuts).
    pub failed: Option<SimError>,
    /// A deliberately wrong recovery, for the test that the oracle catches one: this logical
    /// page's surviving page is dropped from the rebuilt mapping.
    #[cfg(test)]
    pub drop_survivor: Option<u32>,
    /// Another, for content-aware schemes: every listed copy of the content this logical page
    /// is mapped to is dropped from the rebuilt content tables.
    #[cfg(test)]
    pub drop_copies_of: Option<u32>,
    /// A recovery that leaves RAIN parity as it survived (no stale stripe detected), for the
    /// test that the oracle catches a read rebuilt from a parity that does not cover its
    /// stripe's data.
    #[cfg(test)]
    pub skip_parity_repair: bool,
}

impl PowerCuts {
    /// Remember request `r` as the host sent it (slot `slot`), and its `power_cut` wait
    /// (`cut_wait`: from its arrival until the device took it).
    #[inline]
    pub(super) fn sent(&mut self, slot: u32, r: &HostRequest, cut_wait: u64) {
        let i = slot as usize;
        if self.sent.len() <= i {
            self.sent.resize_with(i + 1, || None);
            self.cut_wait.resize(i + 1, 0);
        }
        self.order += 1;
        self.sent[i] = Some((self.order, r.clone()));
        self.cut_wait[i] = cut_wait;
        self.wait_ns += cut_wait;
    }

    /// The `power_cut` wait of the request in slot `slot` (`sent`).
    #[inline]
    pub(super) fn cut_wait(&self, slot: u32) -> u64 {
        self.cut_wait[slot as usize]
    }
}

impl Simulation {
    /// Power cuts asked for (from `power_loss_setup`, which refused what neither audits nor
    /// cuts cover: `sim::power_loss::refusal`): check the list.
    pub(super) fn power_cut_setup(&mut self) -> Result<(), String> {
        let mut at = self.opts.power_cut_at.clone();
        at.sort_unstable();
        if let Some(w) = at.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!("--power-cut-at lists request {} twice", w[0]));
        }
        if at.first() == Some(&0) {
            return Err("--power-cut-at 0: a cut comes after the N-th request, N at least 1".into());
        }
        self.next_cut = at[0];
        self.cuts = Some(Box::new(PowerCuts {
            due: at[0],
            at,
            next: 0,
            sent: Vec::new(),
            order: 0,
            cut_wait: Vec::new(),
            wait_ns: 0,
            cuts: 0,
            recovery_ns: 0,
            reissued: 0,
            unacked_lost: 0,
            padded_pages: 0,
            shared_pages: 0,
            copies_dropped: 0,
            parity_rewrites: 0,
            parity_reads: 0,
            buffered_kept: 0,
            failed: None,
            #[cfg(test)]
            drop_survivor: None,
            #[cfg(test)]
            drop_copies_of: None,
            #[cfg(test)]
            skip_parity_repair: false,
        }));
        Ok(())
    }

    /// A request arriving at `arrival` when a cut is due before it, or while the device may
    /// be recovering from one (the run loop's rare case): cut power if due; returns when the
    /// request reaches the device (once it is back). A failed recovery stops the run at
    /// the run loop's next `check_fatal`.
    #[cold]
    #[inline(never)]
    pub(super) fn cut_or_hold(&mut self, arrival: Nanos) -> Nanos {
        if self.failures.is_some() {
            return self.failures_due(arrival);
        }
        let due = self.cuts.as_ref().map_or(u64::MAX, |pc| pc.due);
        if self.c.requests_submitted >= due {
            let at = arrival.max(self.now);
            if let Err(e) = self.power_cut(at) {
                self.fatal = Some(e.to_string());
                if let Some(pc) = &mut self.cuts {
                    pc.failed = Some(e);
                }
            }
        }
        let still_down = arrival.0 < self.down_until;
        // Arrivals come in time order (the run loop clamps them): while this one comes before
        // the device is back, the next may too, and takes this path; once one comes after,
        // only the next cut does. (This request is counted when it arrives, just after.)
        let due = self.cuts.as_ref().map_or(u64::MAX, |pc| pc.due);
        self.next_cut = if still_down { self.c.requests_submitted + 1 } else { due };
        arrival.max(Nanos(self.down_until))
    }

    /// The error for cuts the workload ended before (a cut after request N needs a request
    /// N + 1 to come before). Out of line: the run loop's function stays as it was.
    #[cold]
    #[inline(never)]
    pub(super) fn cuts_left(&self) -> Option<SimError> {
        let pc = self.cuts.as_ref()?;
        let left = &pc.at[pc.next..];
        let first = *left.first()?;
        let n = self.c.requests_submitted;
        Some(SimError::Source(crate::host::SourceError {
            location: format!("request {n} (the last)"),
            message: format!(
                "--power-cut-at {first}: the workload ended after {n} requests, and a cut after request N happens \
                 just before request N + 1 arrives (N must be below {n})"
            ),
        }))
    }

    /// Cut power at `at` and recover (module doc); the device is back at `down_until`.
    #[cold]
    #[inline(never)]
    pub(super) fn power_cut(&mut self, at: Nanos) -> Result<(), SimError> {
        self.now = at;
        self.cur_key = phases::key(at, u64::MAX);
        let found = self.survivors(true);
        let logical = self.ftl.logical_pages as usize;
        // 1. The promise, checked as an audit checks it; from now on the recovered versions
        // are what the host counts on.
        let mut d = self.durable.take().expect("power cuts keep the acknowledged versions");
        let (losses, unacked) = d.check(&found.version[..logical], |l| self.oracle.newest(&self.ftl.l2p, l));
        self.report_losses(&losses);
        d.restart(&found.version[..logical]);
        self.durable = Some(d);
        // RAIN: the stripes whose parity the cut left behind their data (`parity_repair`).
        let stale = self.stale_stripes(&found.page);
        let geo = self.ftl.geo.clone();
        let ppb = geo.pages_per_block;
        let erased = &found.erasing;
        // 4. Recovery time: each unit scans its planes' finished pages and erases their
        // blocks whose erase was issued; units work in parallel.
        let mut unit_ns = vec![0u64; self.units.len()];
        for b in 0..geo.total_blocks() {
            let u = self.unit_of_plane[geo.plane_of_block(BlockId(b)).idx()] as usize;
            if erased[b as usize] {
                unit_ns[u] += self.dev.timing.erase_ns;
                continue;
            }
            let first = geo.ppn(BlockId(b), 0).0;
            unit_ns[u] += (first..first + found.end[b as usize]).map(|p| self.costs.read_of(p).0).sum::<u64>();
        }
        let recovery = unit_ns.iter().copied().max().unwrap_or(0);
        // 2. Requests in flight are abandoned (the host sends them again, below).
        let mut resend = Vec::new();
        for slot in self.reqs.live_slots() {
            self.reqs.remove(slot);
            let pc = self.cuts.as_mut().expect("power cuts");
            let sent = pc.sent.get_mut(slot as usize).and_then(Option::take);
            resend.push(sent.expect("every request in flight was remembered when it arrived"));
            // Its `power_cut` wait so far is part of the one it gets when sent again.
            pc.wait_ns -= pc.cut_wait(slot);
        }
        resend.sort_by_key(|(order, r)| (r.arrival, *order));
        self.drop_volatile();
        // 3. The spare areas of pages given up are gone with them: torn and unwritten pages of
        // the blocks sealed now, GC copies whose program had not finished (their version is
        // still 0), and the blocks erased. Host programs that finish on capacitor power are
        // host programs like any other.
        let (mut finished_host, mut finished_parity) = (0u64, 0u64);
        for b in 0..geo.total_blocks() {
            let first = geo.ppn(BlockId(b), 0).0;
            if erased[b as usize] {
                self.oracle.erase(first, ppb);
                continue;
            }
            let (end, programmed) = (found.end[b as usize], self.ftl.blocks.programmed[b as usize]);
            if programmed == ppb || self.ftl.blocks.state[b as usize] == BlockState::Free {
                continue;
            }
            for p in first + programmed..first + end {
                if self.oracle.page(p) == 0 {
                    self.ftl.p2l[p as usize] = NONE;
                } else if self.ftl.p2l[p as usize] >= self.ftl.logical_pages {
                    finished_parity += 1;
                } else {
                    finished_host += 1;
                }
            }
            for p in first + end..first + ppb {
                self.ftl.p2l[p as usize] = NONE;
            }
            self.oracle.erase(first + end, ppb - end);
        }
        let rebuilt = self.ftl.recover(&found.page, erased, at.0);
        #[cfg(test)]
        self.sabotage_recovery();
        // The maps, the block table and the content tables (`Content::check`) agree.
        self.ftl.check_invariants().map_err(|e| SimError::Invariant(format!("after the power cut at t={} ns: {e}", at.0)))?;
        self.oracle.recover(&mut self.ftl.l2p, &found.version, &found.page);
        self.restart_stripes(&found.version, &stale);
        #[cfg(test)]
        let stale = self.sabotage_parity_repair(stale);
        self.c.erases += rebuilt.erased;
        self.c.host_pages_programmed += finished_host;
        self.c.parity_pages_programmed += finished_parity;
        let back = at + Nanos(recovery);
        if let Some(pc) = &mut self.cuts {
            pc.cuts += 1;
            pc.next += 1;
            pc.recovery_ns += recovery;
            pc.reissued += resend.len() as u64;
            pc.unacked_lost += unacked;
            pc.padded_pages += rebuilt.pages_sealed - finished_host - finished_parity;
            pc.parity_rewrites += stale.len() as u64;
            pc.buffered_kept += self.flush.as_ref().map_or(0, |fb| u64::from(fb.dirty_pages));
            pc.shared_pages += rebuilt.shared_kept;
            pc.copies_dropped += rebuilt.copies_dropped;
            pc.due = pc.at.get(pc.next).copied().unwrap_or(u64::MAX);
        }
        // 5. The device is back.
        self.down_until = back.0;
        self.now = back;
        self.cur_key = phases::key(back, u64::MAX);
        if self.content.is_some() {
            self.content_recovered();
        }
        for p in 0..geo.planes() {
            self.free_changed(PlaneId(p));
        }
        let parity_reads = self.rewrite_parity(&stale);
        if let Some(pc) = &mut self.cuts {
            pc.parity_reads += parity_reads;
        }
        for (_, r) in resend {
            // Sent again, not a new request: it is counted once.
            self.c.requests_submitted -= 1;
            self.arrive_at(&r, back);
        }
        Ok(())
    }

    /// Everything a power cut loses besides the mapping (module doc, step 2).
    fn drop_volatile(&mut self) {
        let now = self.now;
        for u in &mut self.units {
            u.power_cut(now);
        }
        self.channels.fill(Channel::default());
        if let Some(h) = self.gc_holds.as_deref_mut() {
            h.power_cut(now);
        }
        self.heap = EventQueue::default();
        self.timer_tokens.clear();
        self.cmds.clear();
        self.txns.clear();
        self.free_txns.clear();
        self.gc.fill(PlaneGc::idle());
        for s in &mut self.stalled {
            s.clear();
        }
        self.waiting_writes = 0;
        self.buffer_used = 0;
        self.buffer_wait.clear();
        self.rebuilds.clear();
        self.free_rebuilds.clear();
        self.gtr.power_cut();
        self.gc_woken = false;
        self.flush_power_cut();
        if let Some(m) = &mut self.mesh {
            m.power_cut();
        }
        self.scheme.gc.power_cut();
        if self.content.is_some() {
            self.content_power_cut();
        }
    }

    /// The deliberately wrong parity repair a test asks for (`PowerCuts::skip_parity_repair`):
    /// every stripe taken as clean, its parity trusted as it survived; returns the stripes
    /// whose parity is written again (none then).
    #[cfg(test)]
    fn sabotage_parity_repair(&mut self, stale: Vec<u32>) -> Vec<u32> {
        if !self.cuts.as_ref().is_some_and(|pc| pc.skip_parity_repair) {
            return stale;
        }
        self.stripe_epoch.copy_from_slice(&self.parity_epoch);
        Vec::new()
    }

    /// The deliberately wrong recoveries the engine tests ask for (`PowerCuts::drop_survivor`,
    /// `drop_copies_of`).
    #[cfg(test)]
    fn sabotage_recovery(&mut self) {
        let Some(pc) = self.cuts.as_ref() else { return };
        let (survivor, copies_of) = (pc.drop_survivor, pc.drop_copies_of);
        if let Some(l) = survivor {
            self.ftl.unmap(crate::units::Lpn(l));
        }
        if let Some(l) = copies_of {
            let c = self.ftl.l2p[l as usize] & !crate::ftl::content::VIRT;
            let ct = self.ftl.content.as_mut().expect("content tables");
            for p in ct.copies(c).to_vec() {
                ct.forget_page(p);
            }
        }
    }
}
