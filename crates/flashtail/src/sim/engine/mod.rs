//! The event engine: time advances from event to event (phase ends, request arrivals,
//! policy timers); each unit runs one transaction at a time; channels move one transfer at
//! a time. Everything is integer nanoseconds and ties break by insertion order, so a run is
//! bit-for-bit deterministic.

use super::oracle::Oracle;
use super::requests::{Req, ReqSlab, WAIT_CAUSES, WAIT_N, W_FREE};
use super::{SimError, SimOptions};
use crate::config::{Allocation, DeviceConfig, UnitOfExecution};
use crate::ftl::precondition::{precondition, PreconditionSummary};
use crate::ftl::rain::Rain;
use crate::ftl::content::VIRT;
use crate::ftl::{BlockState, Ftl, Stream, NONE};
use crate::gc::{GcCmd, GcCtx, GcMode, PlaneGc, Scheme};
use crate::host::{HostRequest, Op, RequestSource};
use crate::interconnect::Channel;
use crate::scheduler::txn::{CLASS_GC, CLASS_READ, CLASS_WRITE, NO_REQ};
use crate::scheduler::unit::IDLE;
use crate::scheduler::events::EventQueue;
use crate::scheduler::{Cause, PhaseCosts, Txn, TxnKind, Unit};
use crate::stats::tail::{TailEntry, TAIL_KEEP};
use crate::stats::{self, FlashCounts, FreeBlocksSample, IntegrityReport, LatencyMode, LatencyRecorder, RunCost, RunReport, TailClass, TailKeeper, TailReport, WaitBreakdown};
use crate::units::{BlockId, Lpn, Nanos, PlaneId, Ppn};
use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::Ordering;
use std::time::Instant;

mod content_path;
mod flush;
mod mesh_path;
mod phases;
mod read_path;
mod settle;
mod suspend;
mod write_path;

const EV_UNIT: u8 = 0;
const EV_PAGE_DONE: u8 = 1;
const EV_TIMER: u8 = 2;

/// A due event (the queue orders events by time, then by insertion sequence).
#[derive(Copy, Clone, Debug)]
struct Ev {
    t: u64,
    kind: u8,
    id: u32,
}

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

/// A write waiting for a free block on its plane.
#[derive(Clone, Debug)]
struct Stalled {
    req: u32,
    lpn: u32,
    since: Nanos,
    buffered: bool,
    /// A version the data already carries (flushed from the ttFlash buffer).
    version: Option<u32>,
    /// The content id the data carries (content-aware schemes; else 0).
    content: u32,
}

use read_path::Rebuild;

#[derive(Default)]
struct Counters {
    host_pages_programmed: u64,
    gc_pages_programmed: u64,
    parity_pages_programmed: u64,
    rebuilt_reads: u64,
    rebuild_extra_reads: u64,
    max_gc_planes_per_group: u64,
    /// Channel busy time: [user, GC] (indexed by `Txn::is_gc`).
    chan_ns: [u64; 2],
    gc_pages_migrated: u64,
    /// Array time of GC moves: [tR of the source pages, tPROG of the destinations], which
    /// differ by page level on multi-level cells (what WLA-GC's victim choice saves).
    gc_array_ns: [u64; 2],
    copybacks: u64,
    host_pages_read: u64,
    buffer_hits: u64,
    unwritten_reads: u64,
    erases: u64,
    gc_runs: u64,
    events: u64,
    requests_submitted: u64,
    requests_completed: u64,
    wrapped_requests: u64,
    clamped_arrivals: u64,
    waited_on_gc: u64,
    reads_waited_on_gc: u64,
    wait_ns: [u64; WAIT_N],
    stalled_writes: u64,
    suspends: u64,
}

/// One simulation of one scheme on one device.
pub struct Simulation {
    dev: DeviceConfig,
    opts: SimOptions,
    scheme_name: String,
    scheme: Scheme,
    ftl: Ftl,
    oracle: Oracle,
    units: Vec<Unit>,
    /// Unit of each plane.
    unit_of_plane: Vec<u32>,
    channels: Vec<Channel>,
    /// The Venice mesh, for schemes that replace the channel buses with it (`mesh_path`).
    mesh: Option<Box<mesh_path::MeshPaths>>,
    /// A content-aware scheme's work (`content_path`): SplitGC, CAGC, DAGC.
    content: Option<Box<content_path::ContentWork>>,
    gc: Vec<PlaneGc>,
    txns: Vec<Txn>,
    free_txns: Vec<u32>,
    reqs: ReqSlab,
    heap: EventQueue,
    timer_tokens: BTreeMap<u32, u64>,
    next_timer_id: u32,
    seq: u64,
    now: Nanos,
    /// Key (time << 64 | sequence) of the work being done: the event being handled, or an
    /// arrival (sequence `u64::MAX`: arrivals come after every event of their nanosecond).
    cur_key: u128,
    cmds: Vec<GcCmd>,
    stalled: Vec<VecDeque<Stalled>>,
    buffer_used: u32,
    buffer_wait: VecDeque<(u32, Vec<u32>, Nanos)>,
    /// Reused for the page list of each host write (saves an allocation per request).
    lpn_scratch: Vec<u32>,
    reads: LatencyRecorder,
    writes: LatencyRecorder,
    /// Every latency again, in `Tail` latency mode only (see `stats::latency::finish_three`).
    all: Option<LatencyRecorder>,
    c: Counters,
    free_samples: Vec<FreeBlocksSample>,
    sample_every: u64,
    next_sample: u64,
    soft: u32,
    hard: u32,
    page_bytes: u64,
    /// log2 of the page size when it is a power of two (see `page_index`).
    page_shift: Option<u32>,
    /// `Geometry::static_plane` of ids `0..planes()`: the striping repeats with that period,
    /// and the direct computation takes six divisions per written page.
    static_planes: Vec<PlaneId>,
    precond: PreconditionSummary,
    precond_secs: f64,
    first_arrival: Option<Nanos>,
    /// RAIN layout when the scheme keeps parity.
    rain: Option<Rain>,
    /// Accepted data writes per stripe (the epoch a current parity page must carry).
    stripe_epoch: Vec<u32>,
    rebuilds: Vec<Rebuild>,
    free_rebuilds: Vec<u32>,
    /// ttFlash's capacitor-backed stripe buffer (GC-tolerant flush).
    flush: Option<flush::StripeBuffer>,
    /// Pages programmed in the block table after preconditioning (for conservation).
    programmed_at_start: u64,
    /// Set when the device can no longer make progress (GC found no free page): the run
    /// stops with this message instead of crashing.
    fatal: Option<String>,
    /// Phase durations, fixed for the run.
    costs: PhaseCosts,
    /// The GC policy's `watches_requests`, asked once: most policies ignore arrivals and
    /// completions, and the two hook calls per request were 1 % of a run's instructions.
    policy_watches_requests: bool,
    /// The slowest reads and writes with their wait causes (`stats::tail`), indexed by `Op`.
    tail: [TailKeeper; 2],
}

impl Simulation {
    /// Build the device, precondition it, and plug in the scheme.
    pub fn new(dev: DeviceConfig, mut scheme: Scheme, opts: SimOptions) -> Result<Simulation, SimError> {
        dev.validate().map_err(SimError::Device)?;
        scheme.victim.attach(&dev.geometry, &dev.timing);
        let geo = dev.geometry.clone();
        let t0 = Instant::now();
        let rain = if scheme.rain {
            if dev.ftl.allocation != Allocation::Static {
                return Err(SimError::Device(format!("scheme '{}' keeps RAIN parity, which needs ftl.allocation = \"static\"", scheme.name)));
            }
            Some(Rain::new(&geo, Rain::data_capacity(dev.logical_pages(), geo.channels)).map_err(SimError::Device)?)
        } else {
            None
        };
        if scheme.gc_tolerant_flush && rain.is_none() {
            return Err(SimError::Device(format!("scheme '{}': GC-tolerant flush needs RAIN", scheme.name)));
        }
        let flush = scheme.gc_tolerant_flush.then(|| {
            let cap = if dev.buffer.enabled { dev.buffer.capacity_pages } else { (64u32 << 20) / geo.page_size };
            flush::StripeBuffer::new(cap)
        });
        let (data_pages, slots) = match &rain {
            Some(r) => (r.data_pages, r.data_pages + r.stripes),
            None => (dev.logical_pages(), dev.logical_pages()),
        };
        let mut ftl = Ftl::new(&geo, data_pages, slots);
        let mut oracle = Oracle::new(opts.oracle, slots, geo.total_pages());
        let place = |id: u32| match &rain {
            Some(r) => r.plane_of(id),
            None => geo.static_plane(Lpn(id)),
        };
        let precond = precondition(&mut ftl, &dev, opts.seed, &place, rain.as_ref(), |l, p| oracle.preload(l.0, p))
            .map_err(SimError::Device)?;
        // Preconditioned stripes carry epoch 1 (their parity is version 1 too).
        let stripe_epoch = match &rain {
            Some(r) => (0..r.stripes).map(|s| u32::from(ftl.l2p[r.parity_id(s) as usize] != NONE)).collect(),
            None => Vec::new(),
        };
        let precond_secs = t0.elapsed().as_secs_f64();
        let (units, unit_of_plane) = build_units(&dev);
        let unit_planes: Vec<u32> = units.iter().map(|u| u.first_plane).collect();
        let mesh = mesh_path::MeshPaths::new(scheme.interconnect, &geo, &dev.interconnect, opts.seed, &unit_planes)
            .map_err(SimError::Device)?
            .map(Box::new);
        let planes = geo.planes() as usize;
        let soft = dev.soft_threshold_blocks();
        let hard = dev.hard_threshold_blocks();
        let policy_watches_requests = scheme.gc.watches_requests();
        let mut sim = Simulation {
            scheme_name: scheme.name.clone(),
            scheme,
            oracle,
            units,
            unit_of_plane,
            channels: vec![Channel::default(); geo.channels as usize],
            mesh,
            content: None,
            gc: vec![PlaneGc::idle(); planes],
            txns: Vec::new(),
            free_txns: Vec::new(),
            reqs: ReqSlab::default(),
            heap: EventQueue::default(),
            timer_tokens: BTreeMap::new(),
            next_timer_id: 0,
            seq: 0,
            now: Nanos::ZERO,
            cur_key: 0,
            cmds: Vec::new(),
            stalled: vec![VecDeque::new(); planes],
            buffer_used: 0,
            buffer_wait: VecDeque::new(),
            lpn_scratch: Vec::new(),
            reads: LatencyRecorder::new(opts.latency),
            writes: LatencyRecorder::new(opts.latency),
            all: (opts.latency == LatencyMode::Tail).then(|| LatencyRecorder::new(LatencyMode::Tail)),
            c: Counters::default(),
            free_samples: Vec::new(),
            sample_every: 1_000_000,
            next_sample: 0,
            soft,
            hard,
            page_bytes: geo.page_size as u64,
            page_shift: geo.page_size.is_power_of_two().then(|| geo.page_size.trailing_zeros()),
            static_planes: (0..geo.planes()).map(|l| geo.static_plane(Lpn(l))).collect(),
            precond,
            precond_secs,
            first_arrival: None,
            rain,
            stripe_epoch,
            rebuilds: Vec::new(),
            free_rebuilds: Vec::new(),
            flush,
            programmed_at_start: 0,
            fatal: None,
            costs: PhaseCosts::new(&geo, &dev.timing),
            policy_watches_requests,
            tail: [TailKeeper::new(TAIL_KEEP), TailKeeper::new(TAIL_KEEP)],
            ftl,
            dev,
            opts,
        };
        // An aged device below the GC threshold is settled first (settle.rs): the content
        // maps and the conservation baseline below describe the state the run starts from.
        sim.settle().map_err(SimError::Device)?;
        sim.content_setup().map_err(SimError::Device)?;
        sim.programmed_at_start = sim.ftl.blocks.programmed.iter().map(|&x| x as u64).sum();
        // A preconditioned plane may already sit below the GC threshold.
        for p in 0..planes as u32 {
            sim.free_changed(PlaneId(p));
        }
        Ok(sim)
    }

    /// The FTL (for tests and tools).
    pub fn ftl(&self) -> &Ftl {
        &self.ftl
    }

    /// Replay every request of `src` and report.
    pub fn run(mut self, src: &mut dyn RequestSource) -> Result<RunReport, SimError> {
        let wall = Instant::now();
        // Two requests of lookahead, for prefetching in two stages (see `prefetch_request`).
        let mut next: Option<HostRequest> = src.next_request()?;
        let mut after: Option<HostRequest> = if next.is_some() { src.next_request()? } else { None };
        let mut last_arrival = Nanos::ZERO;
        // Building the device may already have stalled (GC at preconditioning found no page).
        self.check_fatal()?;
        loop {
            // Every event due up to the next arrival (at its nanosecond too: arrivals come
            // after the events of their nanosecond), in a tight loop of its own.
            let until = next.as_ref().map_or(u64::MAX, |r| r.arrival.max(last_arrival).0);
            if next.is_none() && self.content.is_some() {
                self.content_drain();
            }
            while self.heap.peek_time().is_some_and(|t| t <= until) {
                self.step_event();
                self.check_fatal()?;
            }
            let Some(mut r) = next.take() else { break };
            if r.arrival < last_arrival {
                self.c.clamped_arrivals += 1;
                r.arrival = last_arrival;
            }
            last_arrival = r.arrival;
            self.arrive(r);
            self.check_fatal()?;
            next = after.take();
            if next.is_some() {
                after = src.next_request()?;
            }
            if let Some(n) = &after {
                self.prefetch_request(n);
            }
            if let Some(n) = &next {
                self.prefetch_request_targets(n);
            }
            if self.opts.check_every > 0 && self.c.requests_submitted.is_multiple_of(self.opts.check_every) {
                self.ftl.check_invariants().map_err(SimError::Invariant)?;
            }
        }
        if self.c.requests_submitted == 0 {
            // A short first line saying why, then the source's notes one per line: two dozen
            // notes on one line hid the one that mattered.
            let why = src.empty_reason().unwrap_or_else(|| "the workload yielded no requests".to_string());
            let mut msg = format!("{why}\n  workload: {}", src.describe());
            for (k, v) in src.summary() {
                msg.push_str(&format!("\n    {k}: {v}"));
            }
            return Err(SimError::Empty(msg));
        }
        if self.reqs.live > 0 || self.stalled.iter().any(|s| !s.is_empty()) || !self.buffer_wait.is_empty() {
            return Err(SimError::Stalled(format!(
                "{} requests never completed (free blocks exhausted with nothing left to collect?)",
                self.reqs.live
            )));
        }
        self.ftl.check_invariants().map_err(SimError::Invariant)?;
        self.check_conservation().map_err(SimError::Invariant)?;
        if self.oracle.violations > 0 {
            return Err(SimError::Integrity { count: self.oracle.violations, first: self.oracle.first_violations.clone() });
        }
        let notes = src.summary();
        let workload = src.describe();
        Ok(self.report(wall.elapsed().as_secs_f64(), workload, notes))
    }

    /// Stop with the device's fatal condition, if one was set (see `fatal`). Tested before
    /// `take`, which would store to `fatal` on every event.
    #[inline]
    fn check_fatal(&mut self) -> Result<(), SimError> {
        if self.fatal.is_some() {
            return Err(SimError::Stalled(self.fatal.take().unwrap_or_default()));
        }
        Ok(())
    }

    /// Every request completed once, and the pages the block table saw programmed equal
    /// host + GC + parity programs (erased blocks were fully programmed when erased).
    fn check_conservation(&self) -> Result<(), String> {
        if self.c.requests_completed != self.c.requests_submitted {
            return Err(format!("{} requests submitted, {} completed", self.c.requests_submitted, self.c.requests_completed));
        }
        let now: u64 = self.ftl.blocks.programmed.iter().map(|&x| x as u64).sum();
        let seen = now + self.c.erases * self.ftl.geo.pages_per_block as u64 - self.programmed_at_start;
        let counted = self.c.host_pages_programmed + self.c.gc_pages_programmed + self.c.parity_pages_programmed;
        if seen != counted {
            return Err(format!("flash saw {seen} page programs but host + GC + parity = {counted}"));
        }
        if let Some(m) = &self.mesh {
            m.check_idle()?;
        }
        Ok(())
    }

    /// Stage one of prefetching for the request after next: start loading its map (and
    /// oracle) entries, random accesses into arrays far larger than the caches. A request
    /// has the events due before it, and then the next request's arrival, to fetch them.
    fn prefetch_request(&self, r: &HostRequest) {
        let lp = self.ftl.logical_pages as u64;
        let first = wrap_page(self.page_index(r.offset), lp);
        let last = wrap_page(self.page_index(r.offset + r.size.max(1) - 1), lp);
        for l in [first, last] {
            self.ftl.prefetch(l);
            self.oracle.prefetch(l);
        }
    }

    /// Stage two, for the next request, whose map entries stage one fetched a request ago:
    /// read them and start loading the physical-page entries they point at. A write
    /// invalidates the old page (its reverse-map entry and validity word); a read checks
    /// the page's version with the oracle. (The entries may change before the request
    /// arrives, GC moving a page; a prefetch is only a hint.) Long requests stop after
    /// `MAX_TARGET_PREFETCH` pages: their later pages are adjacent map entries anyway.
    fn prefetch_request_targets(&self, r: &HostRequest) {
        const MAX_TARGET_PREFETCH: u64 = 8;
        let lp = self.ftl.logical_pages as u64;
        let first = self.page_index(r.offset);
        let last = self.page_index(r.offset + r.size.max(1) - 1).min(first + MAX_TARGET_PREFETCH - 1);
        for page in first..=last {
            let l = wrap_page(page, lp);
            match r.op {
                Op::Write => self.ftl.prefetch_mapped_page(l),
                Op::Read if self.oracle.enabled => {
                    if let Some(&ppn) = self.ftl.l2p.get(l as usize) {
                        self.oracle.prefetch_page(ppn);
                    }
                }
                Op::Read => {}
            }
        }
    }

    // ----- events -------------------------------------------------------------------

    #[inline]
    fn schedule(&mut self, t: Nanos, kind: u8, id: u32) {
        let seq = self.next_seq();
        self.push_event(t, seq, kind, id);
    }

    #[inline(always)]
    fn push_event(&mut self, t: Nanos, seq: u64, kind: u8, id: u32) {
        assert!(id < 1 << 22, "event id {id} exceeds 2^22 (over 4 million requests in flight?)");
        self.heap.push(t.0, seq, (u32::from(kind) << 22) | id);
    }

    fn step_event(&mut self) {
        let (t, seq, packed) = self.heap.pop().expect("event present");
        let (kind, id) = ((packed >> 22) as u8, packed & ((1 << 22) - 1));
        let ev = Ev { t, kind, id };
        debug_assert!(ev.t >= self.now.0, "time went backwards");
        let before = self.now;
        self.now = Nanos(ev.t);
        self.cur_key = phases::key(self.now, seq);
        self.c.events += 1;
        // Nearly every event is a unit's: test for it first instead of a `match`, which
        // compiled to an indirect jump through a table on every event.
        if ev.kind == EV_UNIT {
            self.phase_done(ev.id, seq);
            return;
        }
        match ev.kind {
            EV_PAGE_DONE => self.page_done(ev.id),
            EV_TIMER => {
                if let Some(token) = self.timer_tokens.remove(&ev.id) {
                    if token & content_path::SCRUB_TOKEN == content_path::SCRUB_TOKEN {
                        self.scrub_pass_start();
                        if self.heap.peek_time().is_none() && self.units.iter().all(|u| u.running == IDLE) {
                            // A pass timer left over after the last request is no work:
                            // it does not stretch the run's simulated time.
                            self.now = before;
                        }
                        return;
                    }
                    if token & content_path::WAKE_TOKEN == content_path::WAKE_TOKEN {
                        self.dispatch((token & 0xffff_ffff) as u32);
                        return;
                    }
                    if token & FREE_CHANGE_TOKEN != 0 {
                        self.free_changed(PlaneId((token & 0xffff_ffff) as u32));
                        return;
                    }
                    self.notify(|p, ctx| p.on_timer(ctx, token));
                }
            }
            _ => unreachable!("unknown event kind"),
        }
    }

    // ----- host requests ------------------------------------------------------------

    /// The plane of logical id `id` under static striping (`Geometry::static_plane`).
    #[inline]
    fn static_plane(&self, id: u32) -> PlaneId {
        let n = self.static_planes.len() as u32;
        let i = if n.is_power_of_two() { id & (n - 1) } else { id % n };
        let p = self.static_planes[i as usize];
        debug_assert_eq!(p, self.ftl.geo.static_plane(Lpn(id)));
        p
    }

    /// The page holding byte `offset`: a shift for power-of-two pages (every preset), since
    /// a 64-bit division costs tens of cycles and runs several times per request.
    #[inline]
    fn page_index(&self, offset: u64) -> u64 {
        match self.page_shift {
            Some(k) => offset >> k,
            None => offset / self.page_bytes,
        }
    }

    fn arrive(&mut self, r: HostRequest) {
        self.now = r.arrival;
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
            self.notify(|p, ctx| p.on_arrival(ctx, &r));
        }

        let first = self.page_index(r.offset);
        let last = self.page_index(r.offset + r.size.max(1) - 1);
        let lp = self.ftl.logical_pages as u64;
        if last >= lp {
            self.c.wrapped_requests += 1;
        }
        let pages = (last - first + 1).min(u32::MAX as u64) as u32;
        let slot = self.reqs.insert(Req { arrival: r.arrival, op: r.op, pending: 1, wait: [0; WAIT_N], last_plane: PlaneId(0), pages });
        match r.op {
            Op::Read => {
                for page in first..=last {
                    self.reqs.get(slot).pending += 1;
                    self.submit_read(slot, wrap_page(page, lp));
                }
            }
            Op::Write => {
                // The page list of a write: a reused buffer unless a buffer path keeps it.
                let mut lpns = std::mem::take(&mut self.lpn_scratch);
                lpns.clear();
                lpns.extend((first..=last).map(|p| wrap_page(p, lp)));
                if self.content.is_some() {
                    self.content_write(slot, &lpns, &r);
                    self.lpn_scratch = lpns;
                } else if self.flush.is_some() {
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
    fn page_done(&mut self, slot: u32) {
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
        self.c.requests_completed += 1;
        match op {
            Op::Read => self.reads.record(lat),
            Op::Write => self.writes.record(lat),
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
        let e = TailEntry { latency: lat, arrival: r.arrival.0, seq, wait: r.wait, plane: r.last_plane.0, pages: r.pages };
        self.tail[r.op as usize].offer(e);
    }

    // ----- transactions and units ----------------------------------------------------

    fn new_txn(&mut self, kind: TxnKind, plane: PlaneId, lpn: u32, ppn: u32, req: u32) -> u32 {
        let t = self.txn_record(kind, plane, lpn, ppn, req);
        self.store_txn(t)
    }

    /// A fresh transaction record, queued now, in its first phase.
    #[inline]
    fn txn_record(&self, kind: TxnKind, plane: PlaneId, lpn: u32, ppn: u32, req: u32) -> Txn {
        Txn {
            kind,
            plane,
            lpn,
            ppn,
            dst: NONE,
            version: 0,
            req,
            phase: 0,
            snap: [0; crate::scheduler::unit::CAUSES],
            chan_wait_start: Nanos::ZERO,
            buffered: false,
            parity: false,
            parent: NONE,
            internal: false,
            background: false,
        }
    }

    /// Store transaction `t` in a free slot: its id.
    #[inline]
    fn store_txn(&mut self, t: Txn) -> u32 {
        if let Some(i) = self.free_txns.pop() {
            self.txns[i as usize] = t;
            i
        } else {
            self.txns.push(t);
            (self.txns.len() - 1) as u32
        }
    }

    fn enqueue_user(&mut self, t: u32) {
        let txn = &mut self.txns[t as usize];
        let u = self.unit_of_plane[txn.plane.idx()];
        let unit = &mut self.units[u as usize];
        txn.snap = unit.cum(self.now);
        if txn.req != NO_REQ {
            self.reqs.get(txn.req).last_plane = txn.plane;
        }
        let is_read = txn.kind == TxnKind::Read;
        if is_read {
            // Checked when the read starts, possibly after queueing: fetch it meanwhile.
            self.oracle.prefetch_page(txn.ppn);
            unit.reads.push_back(t);
        } else {
            unit.writes.push_back(t);
        }
        if is_read && self.dev.timing.suspend.enabled {
            self.maybe_suspend(u);
        }
        if self.content.is_some() {
            // A background transaction holding the unit takes the request's channel class.
            self.lend_channel_class(u, if is_read { CLASS_READ } else { CLASS_WRITE });
        }
        self.dispatch(u);
    }

    /// Start work on an idle unit, if it has any.
    ///
    /// Always inlined (into `complete`, `enqueue_user` and the GC commands), as a
    /// profile-guided build does: as a call it paid a large register save and restore per
    /// transaction (cachegrind, 300k requests: −0.9 % instructions inlined).
    #[inline(always)]
    fn dispatch(&mut self, u: u32) {
        loop {
            let unit = &self.units[u as usize];
            if unit.running != IDLE {
                return;
            }
            if unit.parked.is_some() && unit.reads.is_empty() {
                self.resume(u);
                return;
            }
            let Some(t) = self.pick(u) else { return };
            self.begin(u, t);
        }
    }

    /// The next transaction for a unit, by priority. (Inlined into `dispatch`, its only
    /// caller: saving and restoring registers for the call was a quarter of its own
    /// instructions.)
    #[inline(always)]
    fn pick(&mut self, u: u32) -> Option<u32> {
        let unit = &mut self.units[u as usize];
        if unit.parked.is_some() {
            // Only reads run while a program or erase is suspended.
            return unit.reads.pop_front();
        }
        let (first, n) = (unit.first_plane, unit.num_planes);
        for p in first..first + n {
            if self.gc[p as usize].foreground() {
                if let Some(t) = self.next_gc_txn(PlaneId(p)) {
                    return Some(t);
                }
            }
        }
        let unit = &mut self.units[u as usize];
        if let Some(t) = unit.reads.pop_front() {
            return Some(t);
        }
        if let Some(t) = unit.writes.pop_front() {
            return Some(t);
        }
        for p in first..first + n {
            if matches!(self.gc[p as usize].grant, Some(g) if g.mode == GcMode::Background) {
                if let Some(t) = self.next_gc_txn(PlaneId(p)) {
                    return Some(t);
                }
            }
        }
        if self.content.is_some() {
            return self.content_background(u);
        }
        None
    }

    /// The next GC operation of a plane under its grant: a valid-page move or the erase.
    fn next_gc_txn(&mut self, plane: PlaneId) -> Option<u32> {
        let g = &mut self.gc[plane.idx()];
        if g.in_flight {
            return None;
        }
        let grant = g.grant?;
        if g.victim.is_none() {
            match self.scheme.victim.select(&self.ftl, plane, grant.min_invalid_pages, self.now) {
                Some(v) => {
                    self.ftl.blocks.state[v.idx()] = BlockState::Victim;
                    g.victim = Some(v);
                    g.cursor = 0;
                    self.c.gc_runs += 1;
                    prefetch_victim(&self.ftl, &self.oracle, v);
                }
                None => {
                    g.grant = None;
                    if self.content.is_some() {
                        self.content_channel_check(self.unit_of_plane[plane.idx()]);
                    }
                    return None;
                }
            }
        }
        let victim = g.victim.expect("victim chosen");
        if self.content.is_some() {
            if let Some(t) = self.content_gc_step(plane, victim) {
                return t;
            }
        }
        self.gc_step(plane, victim, grant)
    }

    /// The ordinary next step of `plane`'s GC on `victim` under `grant`: move the next
    /// valid page, or erase. (Always inlined: its one hot caller is `next_gc_txn`.)
    #[inline(always)]
    fn gc_step(&mut self, plane: PlaneId, victim: BlockId, grant: crate::gc::Grant) -> Option<u32> {
        let g = &mut self.gc[plane.idx()];
        match self.ftl.next_valid_in_block(victim, g.cursor) {
            Some(src) if grant.steps > 0 => {
                let cursor = self.ftl.blocks.locate(src).1 + 1;
                g.cursor = cursor;
                if grant.steps != u32::MAX {
                    g.grant = Some(crate::gc::Grant { steps: grant.steps - 1, ..grant });
                }
                let Some((dst, took)) = self.ftl.allocate(plane, Stream::Gc, 0) else {
                    g.grant = None;
                    self.fatal = Some(format!(
                        "plane {plane} has no free page left for GC at t={} ns (raise ftl.gc_reserved_blocks or over-provisioning)",
                        self.now.0
                    ));
                    return None;
                };
                g.in_flight = true;
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
                        // as soon as that move is issued: fetch that entry one move ahead.
                        self.oracle.prefetch(self.ftl.p2l[next.idx()]);
                    }
                }
                let kind = if self.scheme.copyback { TxnKind::GcCopyback } else { TxnKind::GcCopy };
                let v = self.oracle.page(src.0);
                if self.flush.as_ref().is_some_and(|fb| fb.dirty.contains_key(&lpn)) {
                    // Newer data waits in the flush buffer: flash must hold an older version.
                    self.oracle.check_older(lpn, v, "GC read (newer data buffered)", self.now.0);
                } else {
                    self.oracle.check(lpn, v, "GC read", self.now.0);
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
                None
            }
            None if grant.allow_erase => {
                g.in_flight = true;
                if self.content.is_some() {
                    self.content_erasing(victim);
                }
                Some(self.new_txn(TxnKind::Erase, plane, NONE, victim.0, NO_REQ))
            }
            None => {
                g.grant = None;
                None
            }
        }
    }

    /// One step of `plane`'s grant was used (unlimited grants count none).
    fn gc_took_step(&mut self, plane: PlaneId) {
        let g = &mut self.gc[plane.idx()];
        if let Some(grant) = g.grant.filter(|gr| gr.steps != u32::MAX) {
            g.grant = Some(crate::gc::Grant { steps: grant.steps - 1, ..grant });
        }
    }

    /// A GC operation of `plane` other than the erase finished (`sealed`: it sealed a block).
    #[inline(always)]
    fn gc_op_done(&mut self, plane: PlaneId, sealed: bool) {
        let g = &mut self.gc[plane.idx()];
        g.in_flight = false;
        if matches!(g.grant, Some(gr) if gr.steps == 0 && !gr.allow_erase) {
            g.grant = None;
        }
        if sealed {
            self.free_changed(plane);
        }
    }

    fn schedule_free_change(&mut self, plane: PlaneId) {
        // A zero-delay timer with a reserved token range routes the notification.
        self.schedule_token(self.now, FREE_CHANGE_TOKEN | plane.0 as u64);
    }

    /// Queue a timer carrying `token` at `at` (not before now).
    fn schedule_token(&mut self, at: Nanos, token: u64) {
        let id = self.next_timer_id;
        self.next_timer_id = (self.next_timer_id + 1) & ((1 << 22) - 1);
        self.timer_tokens.insert(id, token);
        self.schedule(at.max(self.now), EV_TIMER, id);
    }

    /// Put a transaction on a unit and start its first phase.
    ///
    /// Reads the fields it needs one at a time instead of cloning the transaction: it was
    /// usually just stored (`store_txn`), and a wide copy of data still in the store buffer
    /// can miss store-to-load forwarding.
    fn begin(&mut self, u: u32, t: u32) {
        let (kind, req) = (self.txns[t as usize].kind, self.txns[t as usize].req);
        if kind == TxnKind::Read {
            let (lpn, internal, parent) = {
                let x = &self.txns[t as usize];
                (x.lpn, x.internal, x.parent)
            };
            // A newer write may have entered the flush buffer since this read was queued.
            if !internal {
                if let Some(v) = self.buffered_version(lpn) {
                    self.free_txns.push(t);
                    self.add_wait_from_snap(u, t);
                    self.serve_from_ram(req, lpn, v, "flush-buffer read");
                    return;
                }
            }
            // Resolve the mapping now: GC may have moved the page, or a newer write replaced it.
            let mut cur = self.ftl.l2p[lpn as usize];
            // A logical page sharing another page's copy reads that copy (content_path).
            let shared = cur >= VIRT && cur != NONE;
            if shared {
                cur = self.serving_copy(cur);
            }
            if cur != self.txns[t as usize].ppn && cur != NONE {
                if !self.ftl.blocks.is_programmed(&self.ftl.geo, Ppn(cur)) {
                    self.free_txns.push(t);
                    self.add_wait_from_snap(u, t);
                    self.dram_hit(req, lpn, cur);
                    if parent != NONE {
                        self.rebuild_part_done(parent);
                    }
                    return;
                }
                let plane = self.ftl.blocks.plane_of(Ppn(cur));
                self.txns[t as usize].ppn = cur;
                if self.unit_of_plane[plane.idx()] != u {
                    self.add_wait_from_snap(u, t);
                    self.txns[t as usize].plane = plane;
                    self.enqueue_user(t);
                    return;
                }
            }
            let ppn = self.txns[t as usize].ppn;
            if shared {
                self.oracle.check_content(lpn, ppn, "shared-copy read", self.now.0);
            } else if !internal {
                let got = if ppn == NONE { 0 } else { self.oracle.page(ppn) };
                self.oracle.check(lpn, got, "flash read", self.now.0);
            }
            if ppn == NONE {
                self.c.unwritten_reads += 1;
            }
        }
        if req != NO_REQ {
            self.add_wait_from_snap(u, t);
        }
        // Only content-aware schemes flag transactions background: others skip the look.
        let cause = if self.content.is_some() { Cause::of_txn(&self.txns[t as usize]) } else { Cause::of(kind) };
        self.units[u as usize].occupy(t, cause, self.now);
        // Only fresh transactions are begun (a suspended one resumes without `begin`), so
        // the phase is 0; passing it saves reading back a just-written byte (see
        // `start_phase_at`).
        debug_assert_eq!(self.txns[t as usize].phase, 0);
        self.start_phase_at(u, t, 0);
    }

    /// Attribute a user transaction's queueing time to what its unit was busy with.
    fn add_wait_from_snap(&mut self, u: u32, t: u32) {
        let req = self.txns[t as usize].req;
        if req == NO_REQ {
            return;
        }
        let cum = self.units[u as usize].cum(self.now);
        let snap = self.txns[t as usize].snap;
        let r = self.reqs.get(req);
        for ((w, now), then) in r.wait.iter_mut().zip(cum).zip(snap) {
            *w += now - then;
        }
    }

    /// A transaction finished its last phase. (Not inlined into `start_phase`: it is needed
    /// once per transaction, and inlined it made every phase start pay its large frame.)
    #[inline(never)]
    fn complete(&mut self, u: u32) {
        let unit = &mut self.units[u as usize];
        let t = unit.running;
        unit.vacate(self.now);
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
        self.free_txns.push(t);
        let geo = &self.ftl.geo;
        match txn.kind {
            TxnKind::Read => {
                self.c.host_pages_read += 1;
                if txn.parent != NONE {
                    self.rebuild_part_done(txn.parent);
                } else if txn.req != NO_REQ {
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
                    self.free_changed(txn.plane);
                }
                if txn.buffered && self.flush.is_some() {
                    if !txn.parity {
                        self.flush_release();
                    }
                } else if txn.buffered {
                    self.buffer_release(txn.parity);
                } else {
                    self.page_done(txn.req);
                }
            }
            TxnKind::GcCopy | TxnKind::GcCopyback => {
                let sealed = self.ftl.blocks.mark_programmed(geo, Ppn(txn.dst), self.now.0);
                self.c.gc_pages_programmed += 1;
                if self.ftl.geo.bits_per_cell > 1 {
                    self.count_gc_array_time(txn.ppn, txn.dst);
                }
                self.oracle.copy(txn.dst, txn.version);
                let moved = self.ftl.remap_if_current(Ppn(txn.ppn), Ppn(txn.dst));
                if moved {
                    self.c.gc_pages_migrated += 1;
                    if txn.kind == TxnKind::GcCopyback {
                        self.c.copybacks += 1;
                    }
                }
                if self.content.is_some() {
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
            TxnKind::Erase => {
                let b = BlockId(txn.ppn);
                self.ftl.blocks.erase(geo, b);
                let first = geo.ppn(b, 0).0;
                self.oracle.erase(first, geo.pages_per_block);
                self.c.erases += 1;
                let g = &mut self.gc[txn.plane.idx()];
                g.victim = None;
                g.grant = None;
                g.in_flight = false;
                self.victim_done(txn.plane);
                self.free_changed(txn.plane);
                self.retry_stalled(txn.plane);
            }
        }
        self.dispatch(u);
        if self.content.is_some() {
            self.content_channel_check(u);
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

    // ----- GC policy plumbing ----------------------------------------------------------

    fn free_changed(&mut self, plane: PlaneId) {
        self.notify(|p, ctx| p.on_free_change(ctx, plane));
    }

    fn victim_done(&mut self, plane: PlaneId) {
        self.notify(|p, ctx| p.on_victim_done(ctx, plane));
    }

    /// Call one hook of the scheme's GC policy with a view of the device, then apply the
    /// commands it gave.
    fn notify(&mut self, hook: impl FnOnce(&mut dyn crate::gc::GcPolicy, &mut GcCtx)) {
        let mut cmds = std::mem::take(&mut self.cmds);
        {
            let mut ctx = GcCtx {
                now: self.now,
                dev: &self.dev,
                ftl: &self.ftl,
                planes: &self.gc,
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
                GcCmd::Grant(p, g) => {
                    self.gc[p.idx()].grant = Some(g);
                    if self.content.is_some() && g.mode != GcMode::Background {
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

    // ----- reporting ---------------------------------------------------------------------

    fn sample_free(&mut self) {
        let mut total = 0u64;
        let mut min = u64::MAX;
        for p in 0..self.ftl.geo.planes() {
            let f = self.ftl.free_blocks(PlaneId(p)) as u64;
            total += f;
            min = min.min(f);
        }
        self.free_samples.push(FreeBlocksSample { time_ns: self.now.0, total_free_blocks: total, min_plane_free_blocks: min });
        if self.free_samples.len() >= 2000 {
            // Keep the timeline bounded: drop every other sample, sample half as often.
            let kept: Vec<FreeBlocksSample> = self.free_samples.iter().step_by(2).cloned().collect();
            self.free_samples = kept;
            self.sample_every *= 2;
        }
        self.next_sample = self.now.0 + self.sample_every;
    }

    fn report(mut self, wall: f64, workload: String, notes: Vec<(String, String)>) -> RunReport {
        self.sample_free();
        let [(reads, cdf_reads), (writes, cdf_writes), (all, cdf_all)] =
            stats::latency::finish_three(std::mem::take(&mut self.reads), std::mem::take(&mut self.writes), self.all.take());
        let c = &self.c;
        let programmed = c.host_pages_programmed + c.gc_pages_programmed + c.parity_pages_programmed;
        let mut extra = BTreeMap::new();
        extra.insert("unwritten_reads".into(), c.unwritten_reads);
        extra.insert("stalled_writes".into(), c.stalled_writes);
        extra.insert("channel_busy_gc_ns".into(), c.chan_ns[1]);
        extra.insert("channel_busy_user_ns".into(), c.chan_ns[0]);
        if self.ftl.geo.bits_per_cell > 1 {
            // Where the pages sit on the word-lines sets what GC costs (WLA-GC, spec 05).
            extra.insert("gc_read_ns".into(), c.gc_array_ns[0]);
            extra.insert("gc_program_ns".into(), c.gc_array_ns[1]);
            extra.insert("gc_move_ns_per_victim".into(), (c.gc_array_ns[0] + c.gc_array_ns[1]).checked_div(c.erases).unwrap_or(0));
        }
        if self.rain.is_some() {
            extra.insert("gtr_rebuilt_reads".into(), c.rebuilt_reads);
            extra.insert("gtr_extra_page_reads".into(), c.rebuild_extra_reads);
            extra.insert("max_gc_planes_per_group".into(), c.max_gc_planes_per_group);
        }
        if let Some(m) = &self.mesh {
            m.report(&mut extra);
        }
        self.content_report(&mut extra);
        if let Some(fb) = &self.flush {
            extra.insert("flush_stripes".into(), fb.flushes);
            extra.insert("flush_steered_around_gc".into(), fb.flushes_steered);
            extra.insert("flush_rmw_reads".into(), fb.rmw_reads);
            extra.insert("flush_buffer_pages".into(), fb.cap as u64);
        }
        let flash = FlashCounts {
            host_pages_programmed: c.host_pages_programmed,
            gc_pages_programmed: c.gc_pages_programmed,
            parity_pages_programmed: c.parity_pages_programmed,
            gc_pages_migrated: c.gc_pages_migrated,
            copybacks: c.copybacks,
            host_pages_read: c.host_pages_read,
            buffer_hits: c.buffer_hits,
            erases: c.erases,
            gc_runs: c.gc_runs,
            suspends: c.suspends,
            waf: if c.host_pages_programmed == 0 { 0.0 } else { programmed as f64 / c.host_pages_programmed as f64 },
            extra,
        };
        let n = c.requests_completed.max(1) as f64;
        let waits = WaitBreakdown {
            requests_waited_on_gc: c.waited_on_gc,
            share_waited_on_gc: c.waited_on_gc as f64 / n,
            reads_waited_on_gc: c.reads_waited_on_gc,
            share_reads_waited_on_gc: c.reads_waited_on_gc as f64 / (reads.count.max(1) as f64),
            wait_ns_by_cause: WAIT_CAUSES.iter().zip(c.wait_ns).map(|(k, v)| (k.to_string(), v)).collect(),
        };
        let [tail_reads, tail_writes] = std::mem::take(&mut self.tail).map(TailKeeper::into_kept);
        let tail = TailReport {
            kept_per_class: TAIL_KEEP as u64,
            reads: TailClass::build(&tail_reads, &reads, TAIL_KEEP),
            writes: TailClass::build(&tail_writes, &writes, TAIL_KEEP),
        };
        let sim_time = self.now.0.saturating_sub(self.first_arrival.unwrap_or(Nanos::ZERO).0);
        let mut workload_notes: BTreeMap<String, String> = notes.into_iter().collect();
        workload_notes.insert("requests_wrapped_into_capacity".into(), c.wrapped_requests.to_string());
        workload_notes.insert("arrivals_clamped_out_of_order".into(), c.clamped_arrivals.to_string());
        workload_notes.insert("logical_capacity_bytes".into(), self.dev.logical_bytes().to_string());
        let config = serde_json::json!({
            "device": &self.dev,
            "scheme": { "name": &self.scheme_name, "victim": self.scheme.victim.name(), "copyback": self.scheme.copyback,
                        "rain": self.scheme.rain, "gc_tolerant_read": self.scheme.gc_tolerant_read,
                        "interconnect": self.scheme.interconnect.name() },
            "seed": self.opts.seed,
            "oracle": self.opts.oracle,
            "precondition": &self.precond,
        });
        RunReport {
            flashtail_version: env!("CARGO_PKG_VERSION").to_string(),
            scheme: self.scheme_name.clone(),
            device: self.dev.name.clone(),
            workload,
            workload_notes,
            seed: self.opts.seed,
            sim_time_ns: sim_time,
            reads,
            writes,
            all,
            cdf_reads,
            cdf_writes,
            cdf_all,
            flash,
            waits,
            tail,
            free_blocks: std::mem::take(&mut self.free_samples),
            integrity: IntegrityReport {
                oracle_enabled: self.oracle.enabled,
                reads_checked: self.oracle.checked,
                violations: self.oracle.violations,
                requests_submitted: c.requests_submitted,
                requests_completed: c.requests_completed,
            },
            cost: RunCost {
                wall_seconds: wall,
                precondition_seconds: self.precond_secs,
                peak_rss_bytes: stats::process::peak_rss_bytes(),
                events: c.events,
                simulated_requests_per_second: if wall > 0.0 { c.requests_completed as f64 / wall } else { 0.0 },
            },
            scheme_details: self.scheme.gc.details(),
            config,
        }
    }
}

/// A page index folded into the logical space (requests past its end wrap around); the
/// division only runs for the rare wrapped page.
#[inline]
fn wrap_page(p: u64, logical_pages: u64) -> u32 {
    (if p < logical_pages { p } else { p % logical_pages }) as u32
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

/// Timer tokens with this bit set are the engine's own: free-space notifications (the plane
/// in the low bits), or with a second bit, the content-aware schemes' (`content_path`).
const FREE_CHANGE_TOKEN: u64 = 1 << 63;

fn build_units(dev: &DeviceConfig) -> (Vec<Unit>, Vec<u32>) {
    let geo = &dev.geometry;
    let per_unit = match dev.ftl.unit {
        UnitOfExecution::Plane => 1,
        UnitOfExecution::Die => geo.planes_per_die,
    };
    let mut units = Vec::new();
    let mut of_plane = Vec::with_capacity(geo.planes() as usize);
    for p in (0..geo.planes()).step_by(per_unit as usize) {
        units.push(Unit::new(p, per_unit, geo.channel_of(PlaneId(p))));
        for _ in 0..per_unit {
            of_plane.push((units.len() - 1) as u32);
        }
    }
    (units, of_plane)
}
