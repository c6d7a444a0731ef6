//! The event engine: time advances from event to event (phase ends, request arrivals,
//! policy timers); each unit runs one transaction at a time; channels move one transfer at
//! a time. Everything is integer nanoseconds and ties break by insertion order, so a run is
//! bit-for-bit deterministic.
//!
//! This file holds the simulation's state, its construction (preconditioning, settling),
//! the run loop and the event queue. The rest, one concern per file:
//! - `host_path`: requests arrive, split into pages, complete;
//! - `read_path`, `write_path`, `flush`: what a page read or write does (GC-tolerant reads,
//!   allocation and stalls, ttFlash's stripe buffer);
//! - `dispatch`: transactions queue on units, which pick and begin them by priority;
//! - `phases`, `suspend`, `mesh_path`: a running transaction's phases on the channel or the
//!   Venice mesh, and program/erase suspension; `multi_plane`: operations of a die's planes
//!   run as one command;
//! - `complete`: what a finished transaction changes;
//! - `gc_path`: GC operations under the policy's grants, and the policy's hooks;
//! - `content_path`: SplitGC, CAGC and DAGC's own work; `settle`: aged devices' start;
//! - `power_loss`: what survives a power loss (audits); `power_cut`: enacting one;
//! - `report`: the run's report.
//!
//! The hot paths test for features most runs do not have (the content-aware schemes'
//! tables, die failures, the Venice mesh, the flush buffer, GC scheduling limits) and for
//! rare events (a read whose page moved while it queued, a block sealed, a plane out of
//! pages). Those branches begin with `std::hint::cold_path()`, the static form of the block
//! layout a profile-guided build derives: the common path falls through, the rare one is
//! placed aside (workload B: 2–4 % less CPU in paired runs; docs/performance.md).

use super::oracle::Oracle;
use super::requests::{ReqSlab, REQ_WAITS};
use super::{SimError, SimOptions};
use crate::config::{Allocation, DeviceConfig, UnitOfExecution};
use crate::ftl::precondition::PreconditionSummary;
use crate::ftl::rain::Rain;
use crate::ftl::{Ftl, NONE};
use crate::gc::{GcCmd, PlaneGc, Scheme};
use crate::host::{HostRequest, Op, RequestSource};
use crate::interconnect::Channel;
use crate::scheduler::unit::IDLE;
use crate::scheduler::events::EventQueue;
use crate::scheduler::{PhaseCosts, Txn, Unit};
use crate::stats::tail::TAIL_KEEP;
use crate::stats::{FreeBlocksSample, LatencyMode, LatencyRecorder, RunReport, TailKeeper};
use crate::units::{Lpn, Nanos, PlaneId};
pub use start::{SharedStart, StartKey, StartState};
use std::collections::{BTreeMap, VecDeque};
use std::time::Instant;

mod complete;
mod content_path;
mod die_failure;
mod dispatch;
mod flush;
mod gc_path;
mod gc_hold;
mod gc_sched;
mod gtr;
mod host_path;
mod mesh_path;
mod multi_plane;
mod parity_repair;
mod phases;
mod power_cut;
mod power_loss;
mod read_path;
mod report;
mod reprotect;
mod settle;
mod start;
mod suspend;
#[cfg(test)]
mod tests;
mod write_path;
mod write_start;

const EV_UNIT: u8 = 0;
const EV_PAGE_DONE: u8 = 1;
const EV_TIMER: u8 = 2;

/// Bits of an event's id (a unit, a request slot or a timer), beside its kind in the
/// queue's 24-bit payload.
const EV_ID_BITS: u32 = 22;
/// Most host requests in flight at once: a request's slot is an event id. A workload that
/// gets this far ahead of the device stops the run with an error (`run`), not a panic.
const MAX_IN_FLIGHT: u64 = (1 << EV_ID_BITS) - 1;
/// Latest arrival time a run accepts: 2^62 ns, about 146 years. Times are plain `u64`
/// nanoseconds and completions lie after their arrivals, so an arrival near `u64::MAX` (a
/// trace replayed with a tiny --time-scale saturates there) would wrap event times around and
/// stall the run with a wrong diagnosis; the margin leaves three times as long for queueing.
const MAX_ARRIVAL_NS: u64 = 1 << 62;

/// A write waiting unallocated on its plane: held behind a full queue, or stalled for want of
/// a free page (`write_path`).
#[derive(Clone, Debug)]
struct Stalled {
    /// Set when the write was held because its plane's queue was full (not for want of a
    /// free page): its unit's busy time per cause then, to charge the hold to what the unit
    /// did meanwhile (`write_path`).
    held: Option<[u64; crate::scheduler::unit::CAUSES]>,
    /// The plane the write waited for (its unit took the `held` snapshot).
    plane: PlaneId,
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
    /// GC-tolerant reads not rebuilt because their stripe's parity was behind its data
    /// (see `try_rebuild`). Not reported: runs that meet the case read normally, and the
    /// reported numbers stay those of the GC-tolerant read itself; the engine tests read it.
    rebuilds_parity_behind: u64,
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
    /// Pages of host reads submitted (the base of the unwritten-read share).
    host_page_reads: u64,
    erases: u64,
    gc_runs: u64,
    events: u64,
    requests_submitted: u64,
    requests_completed: u64,
    wrapped_requests: u64,
    clamped_arrivals: u64,
    waited_on_gc: u64,
    reads_waited_on_gc: u64,
    /// Total waits by cause but `power_cut` (`PowerCuts::wait_ns` keeps that one): the
    /// counters stay laid out as before cuts had a wait cause (one more entry here cost about
    /// 3 % of the reference benchmark's time in paired runs, with no more instructions: a
    /// layout effect, `docs/performance.md`).
    wait_ns: [u64; REQ_WAITS],
    stalled_writes: u64,
    held_writes: u64,
    suspends: u64,
    /// Bytes of the host requests issued: [read, write] (indexed by `Op`), for the
    /// throughput (`report`).
    bytes: [u64; 2],
    /// When the last host request completed (the end of the throughput's span).
    last_done: u64,
    /// Bus transfers (counted at their ends, chained ones included: `phases`), and those that
    /// found their channel busy and waited; the rest found it free when they asked for it
    /// (the first-try conflict-free share, comparable with the mesh's `first_try_paths`).
    bus_transfers: u64,
    bus_waits: u64,
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
    /// Writes waiting unallocated, per plane; under dynamic allocation all in the first
    /// queue, in arrival order (`write_path::wait_queue`).
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
    /// The epoch each stripe's newest mapped parity page carries: behind `stripe_epoch`
    /// while the stripe's parity write waits for free space on the parity plane.
    parity_epoch: Vec<u32>,
    /// Data pages per stripe accepted by no plane yet (held or stalled): the stripe's parity
    /// is written when the last of them is (`write_path`).
    stripe_waiting: Vec<u32>,
    rebuilds: Vec<Rebuild>,
    free_rebuilds: Vec<u32>,
    /// ttFlash's GC-tolerant read: candidates, rebuilds per stripe, counters (`gtr`).
    gtr: gtr::GtrState,
    /// ttFlash's capacitor-backed stripe buffer (GC-tolerant flush).
    flush: Option<flush::StripeBuffer>,
    /// Pages programmed in the block table after preconditioning (for conservation).
    programmed_at_start: u64,
    /// Set when the device can no longer make progress (GC found no free page): the run
    /// stops with this message instead of crashing.
    fatal: Option<String>,
    /// Phase durations, fixed for the run.
    costs: PhaseCosts,
    /// Most host requests in flight before the run stops (`MAX_IN_FLIGHT`; lowered by tests).
    max_in_flight: u64,
    /// Entries in all the planes' `stalled` queues (0: the write path skips looking).
    waiting_writes: u32,
    /// Dynamic allocation: the planes were asked to look for victims because no plane had
    /// room (`write_path::wake_gc_for_space`), and no block was freed since; asking again
    /// would change nothing (NoGC would ask and answer for ever at one instant).
    gc_woken: bool,
    /// The GC policy's `watches_requests`, asked once: most policies ignore arrivals and
    /// completions, and the two hook calls per request were 1 % of a run's instructions.
    policy_watches_requests: bool,
    /// CAGC's hot/cold placement threshold (`ContentParams::cold_refs`; 0: one GC frontier,
    /// and for every other scheme).
    cold_refs: u32,
    /// The slowest reads and writes with their wait causes (`stats::tail`), indexed by `Op`.
    tail: [TailKeeper; 2],
    /// Acknowledged versions for power-loss audits (`power_loss`; off unless asked for).
    durable: Option<Box<crate::sim::power_loss::Durability>>,
    /// No power-loss protection: a page superseded by a write still being programmed keeps
    /// its block from being erased (`write_path`, `gc_path`).
    guard_superseded: bool,
    /// Enacted power cuts (`power_cut`; off unless asked for).
    cuts: Option<Box<power_cut::PowerCuts>>,
    /// Requests submitted from which arrivals take the power cuts' path (`u64::MAX`: none):
    /// a cut is due, or the device may still be recovering from one (`power_cut`).
    next_cut: u64,
    /// Until when the device recovers from a power cut: later arrivals wait for it (0: none).
    down_until: u64,
    /// Die and plane failures (`die_failure`; off unless asked for). Their due request count
    /// shares `next_cut` with power cuts (the two are not combined).
    failures: Option<Box<die_failure::DieFailures>>,
    /// The device's GC-scheduling limits and yielding (`gc_sched`; off unless set).
    gc_sched: Option<Box<gc_sched::GcSched>>,
    /// `ftl.blocking_gc_holds = "channel"`: channels held for GC (`gc_hold`; off by default).
    gc_holds: Option<Box<gc_hold::ChannelHolds>>,
    /// `scheduler.write_start = "channel-free"`: units that put a write off (`write_start`).
    write_start: Option<Box<write_start::WriteStart>>,
    /// `scheduler.order = "reads-first"` (`dispatch`).
    reads_first: bool,
    /// Multi-plane commands' counters: present when `ftl.multi_plane` is on and units span
    /// several planes (`multi_plane`).
    multi_plane: Option<Box<multi_plane::MultiPlaneCounts>>,
    /// The closed-loop host interface's queues (`host::closed_loop`; `None`: open loop).
    closed: Option<Box<crate::host::closed_loop::Queues>>,
}

impl Simulation {
    /// Build the device, precondition it, and plug in the scheme.
    pub fn new(dev: DeviceConfig, scheme: Scheme, opts: SimOptions) -> Result<Simulation, SimError> {
        Simulation::build(dev, scheme, opts, None)
    }

    /// Plug the scheme into a device preconditioned beforehand (`SharedStart::take`): the
    /// same simulation as `new` builds, without preconditioning again. Errs when `start` was
    /// built for another device, seed, footprint, oracle setting or parity layout.
    pub fn from_start(dev: DeviceConfig, scheme: Scheme, opts: SimOptions, start: StartState) -> Result<Simulation, SimError> {
        Simulation::build(dev, scheme, opts, Some(start))
    }

    /// The checks on the device and scheme that come before preconditioning, and the RAIN
    /// layout when the scheme keeps parity.
    pub fn prepare(dev: &DeviceConfig, scheme: &Scheme) -> Result<Option<Rain>, SimError> {
        dev.validate().map_err(SimError::Device)?;
        let rain = if scheme.rain {
            if dev.ftl.allocation != Allocation::Static {
                return Err(SimError::Device(format!("scheme '{}' keeps RAIN parity, which needs ftl.allocation = \"static\"", scheme.name)));
            }
            dev.rain_fits().map_err(|e| SimError::Device(format!("scheme '{}': {e}", scheme.name)))?;
            Some(Rain::new(&dev.geometry, dev.host_pages()).map_err(SimError::Device)?)
        } else {
            None
        };
        if scheme.gc_tolerant_flush && rain.is_none() {
            return Err(SimError::Device(format!("scheme '{}': GC-tolerant flush needs RAIN", scheme.name)));
        }
        Ok(rain)
    }

    fn build(dev: DeviceConfig, mut scheme: Scheme, opts: SimOptions, start: Option<StartState>) -> Result<Simulation, SimError> {
        let rain = Simulation::prepare(&dev, &scheme)?;
        // The ttFlash family moves by copyback by design (plane-blocking GC); `ftl.gc_copyback`
        // gives the others copyback moves too.
        let plane_blocking = scheme.copyback;
        scheme.copyback |= dev.ftl.gc_copyback;
        if let Some(cl) = &opts.closed_loop {
            cl.validate().map_err(SimError::Device)?;
            if !opts.power_cut_at.is_empty() {
                return Err(SimError::Device(
                    "the closed-loop host interface is not combined with power cuts (requests re-sent after a cut would need \
                     their queue slots back): run open loop (no --closed-loop), or without --power-cut-at"
                        .into(),
                ));
            }
        }
        scheme.victim.attach(&dev.geometry, &dev.timing);
        let geo = dev.geometry.clone();
        let flush = scheme.gc_tolerant_flush.then(|| {
            let cap = crate::config::buffer::buffer_pages(&dev, true);
            flush::StripeBuffer::new(cap)
        });
        let key = StartKey::new(&dev, rain.is_some(), &opts);
        let start = match start {
            Some(s) if s.key == key => s,
            Some(_) => {
                return Err(SimError::Device(format!(
                    "scheme '{}': the preconditioned state given was built for another device, seed, footprint, oracle setting or parity layout",
                    scheme.name
                )))
            }
            None => StartState::build(key, rain.as_ref()).map_err(SimError::Device)?,
        };
        let StartState { ftl, oracle, precond, secs: precond_secs, settled, .. } = start;
        // Preconditioned stripes carry epoch 1 (their parity is version 1 too).
        let stripe_epoch = match &rain {
            Some(r) => (0..r.stripes).map(|s| u32::from(ftl.l2p[r.parity_id(s) as usize] != NONE)).collect(),
            None => Vec::new(),
        };
        let parity_epoch = stripe_epoch.clone();
        let (mut units, unit_of_plane) = build_units(&dev);
        for u in &mut units {
            u.write_cap = (dev.queued_writes_per_plane() as usize).saturating_mul(u.num_planes as usize);
        }
        let unit_planes: Vec<u32> = units.iter().map(|u| u.first_plane).collect();
        let units_len = units.len();
        let mesh = mesh_path::MeshPaths::new(scheme.interconnect, &geo, &dev.interconnect, opts.seed, &unit_planes)
            .map_err(SimError::Device)?
            .map(Box::new);
        let planes = geo.planes() as usize;
        let soft = dev.soft_threshold_blocks();
        let hard = dev.hard_threshold_blocks();
        let policy_watches_requests = scheme.gc.watches_requests();
        // Threshold-driven GC starts at free < soft, host writes stop at free <= reserve: with
        // soft <= reserve a plane can sit at the reserve with GC never started, a deadlock
        // the run reported only as a stall.
        let reserve = dev.ftl.gc_reserved_blocks;
        if scheme.gc.starts_at_soft_threshold() && soft <= reserve {
            let field = dev.soft_threshold_setting(&format!(" ({soft} of {} blocks)", geo.blocks_per_plane));
            return Err(SimError::Device(format!(
                "scheme '{}': {field} must be above ftl.gc_reserved_blocks {reserve}: GC starts below the soft threshold, \
                 but host writes stop at {reserve} free blocks, so GC would never start (raise the threshold to more than {reserve} blocks, \
                 or lower ftl.gc_reserved_blocks)",
                scheme.name
            )));
        }
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
            stripe_waiting: vec![0; parity_epoch.len()],
            parity_epoch,
            rebuilds: Vec::new(),
            free_rebuilds: Vec::new(),
            gtr: gtr::GtrState::default(),
            flush,
            programmed_at_start: 0,
            fatal: None,
            costs: PhaseCosts::new(&geo, &dev.timing),
            max_in_flight: MAX_IN_FLIGHT,
            waiting_writes: 0,
            gc_woken: false,
            policy_watches_requests,
            cold_refs: 0,
            tail: [TailKeeper::new(TAIL_KEEP), TailKeeper::new(TAIL_KEEP)],
            durable: None,
            guard_superseded: !dev.ftl.power_loss_protected(),
            cuts: None,
            next_cut: u64::MAX,
            down_until: 0,
            failures: None,
            gc_sched: gc_sched::GcSched::new(&dev),
            gc_holds: gc_hold::ChannelHolds::new(&dev, geo.channels as usize, units_len, plane_blocking),
            write_start: (dev.scheduler.write_start == crate::config::WriteStart::ChannelFree)
                .then(|| Box::new(write_start::WriteStart::new(geo.channels as usize, units_len))),
            reads_first: dev.scheduler.order == crate::config::QueueOrder::ReadsFirst,
            multi_plane: (!dev.ftl.multi_plane.is_off() && unit_spans_planes(&dev))
                .then(|| Box::new(multi_plane::MultiPlaneCounts { rule: dev.ftl.multi_plane, ..Default::default() })),
            closed: opts.closed_loop.map(|c| Box::new(crate::host::closed_loop::Queues::new(c))),
            ftl,
            dev,
            opts,
        };
        // An aged device below the GC threshold was settled with the preconditioning
        // (settle.rs): the content maps and the conservation baseline below describe the
        // state the run starts from. A failed settling is reported here, as it always was.
        settled.map_err(SimError::Device)?;
        sim.content_setup().map_err(SimError::Device)?;
        sim.parity_setup();
        sim.power_loss_setup().map_err(SimError::Device)?;
        sim.failure_setup().map_err(SimError::Device)?;
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
        // Two requests of lookahead, for prefetching in two stages (see `prefetch_request`):
        // `slots[cur]` is the next request and `slots[cur ^ 1]` the one after it, each
        // there when its `have` is set. Requests are read into the slots in place.
        let mut slots = [HostRequest::new(Nanos::ZERO, 0, 0, Op::Read), HostRequest::new(Nanos::ZERO, 0, 0, Op::Read)];
        let mut have = [false; 2];
        let mut cur = 0;
        have[0] = src.next_request_into(&mut slots[0])?;
        have[1] = have[0] && src.next_request_into(&mut slots[1])?;
        let mut last_arrival = Nanos::ZERO;
        // Building the device may already have stalled (GC at preconditioning found no page).
        self.check_fatal()?;
        loop {
            // Closed loop: the next request waits for a slot of its queue, then issues at its
            // issue time (`host::closed_loop`), which becomes its arrival.
            // With `arrival` timing the request keeps its trace arrival (its latency counts
            // from there) and enters the device at `issue`.
            let mut issue = None;
            if let (Some(q), true) = (&mut self.closed, have[cur]) {
                let r = &mut slots[cur];
                if !q.has_slot() {
                    if self.heap.peek_time().is_none() {
                        return Err(SimError::Stalled(format!("{} requests outstanding in the host's queues never completed", q.outstanding())));
                    }
                    self.step_event();
                    self.check_fatal()?;
                    continue;
                }
                let at = q.issue_time(r.arrival, self.now);
                if q.latency_from_arrival() {
                    issue = Some(at);
                } else {
                    r.arrival = at;
                }
            }
            // Every event due up to the next arrival (at its nanosecond too: arrivals come
            // after the events of their nanosecond), in a tight loop of its own.
            let until = if have[cur] { issue.unwrap_or(slots[cur].arrival).max(last_arrival).0 } else { u64::MAX };
            if !have[cur] && self.content.is_some() {
                self.content_drain();
            }
            while self.heap.peek_time().is_some_and(|t| t <= until) {
                self.step_event();
                self.check_fatal()?;
            }
            if !have[cur] {
                break;
            }
            have[cur] = false;
            let r = &mut slots[cur];
            if r.arrival < last_arrival {
                self.c.clamped_arrivals += 1;
                r.arrival = last_arrival;
            }
            last_arrival = r.arrival;
            // One test for both limits: the request loop is the hottest code of a run.
            if self.reqs.live >= self.max_in_flight || r.arrival.0 > MAX_ARRIVAL_NS {
                return Err(self.refuse(r));
            }
            // A power cut is due before this request, or the device may still be recovering
            // from one (`power_cut`), or a die fails (`die_failure`): one test, and the rest
            // out of line, given only the arrival time (passing the request itself made the
            // loop keep it in memory).
            let at = if self.c.requests_submitted >= self.next_cut { self.cut_or_hold(r.arrival) } else { issue.unwrap_or(r.arrival) };
            self.arrive_at(r, at);
            self.check_fatal()?;
            // The request after becomes the next; its slot takes the one after that.
            cur ^= 1;
            if have[cur] {
                have[cur ^ 1] = src.next_request_into(&mut slots[cur ^ 1])?;
            }
            if have[cur ^ 1] {
                self.prefetch_request(&slots[cur ^ 1]);
            }
            if have[cur] {
                self.prefetch_request_targets(&slots[cur]);
            }
            // One test for both periodic checks (the request loop is hot).
            if self.opts.check_every | self.opts.power_loss_every != 0 {
                self.periodic_checks()?;
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
        if let Some(e) = self.cuts_left().or_else(|| self.failures_left()) {
            return Err(e);
        }
        if self.reqs.live > 0 || self.stalled.iter().any(|s| !s.is_empty()) || !self.buffer_wait.is_empty() {
            return Err(SimError::Stalled(format!(
                "{} requests never completed (free blocks exhausted with nothing left to collect?){}",
                self.reqs.live,
                if self.failures.is_some() {
                    " after a die failure: the healthy planes may not hold the device's data (fail less, or use more over-provisioning)"
                } else {
                    ""
                }
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

    /// The checks asked for every N requests: the map/counter consistency check, and the
    /// power-loss audit (`power_loss`).
    #[cold]
    #[inline(never)]
    fn periodic_checks(&mut self) -> Result<(), SimError> {
        let n = self.c.requests_submitted;
        if self.opts.check_every > 0 && n.is_multiple_of(self.opts.check_every) {
            self.ftl.check_invariants().map_err(SimError::Invariant)?;
        }
        if self.opts.power_loss_every > 0 && n.is_multiple_of(self.opts.power_loss_every) {
            self.audit_power_loss();
        }
        Ok(())
    }

    /// Stop with the device's fatal condition, if one was set (see `fatal`). Tested before
    /// `take`, which would store to `fatal` on every event.
    #[inline]
    fn check_fatal(&mut self) -> Result<(), SimError> {
        if self.fatal.is_some() {
            return Err(self.fatal_error());
        }
        Ok(())
    }

    /// The error `fatal` stands for: a failed recovery from a power cut (`power_cut`), or the
    /// device's stall.
    #[cold]
    #[inline(never)]
    fn fatal_error(&mut self) -> SimError {
        if let Some(e) = self.cuts.as_mut().and_then(|pc| pc.failed.take()) {
            return e;
        }
        SimError::Stalled(self.fatal.take().unwrap_or_default())
    }

    /// The error for a request that arrives with `max_in_flight` others still in flight, or
    /// after [`MAX_ARRIVAL_NS`] (the workload's fault, reported as such).
    #[cold]
    fn refuse(&self, r: &HostRequest) -> SimError {
        if r.arrival.0 > MAX_ARRIVAL_NS {
            return SimError::Source(crate::host::SourceError {
                location: format!("request {}", self.c.requests_submitted + 1),
                message: format!(
                    "arrives at t={} ns, after the latest time flashtail simulates (2^62 ns, about 146 years): \
                     replay the trace faster (a larger --time-scale) or fewer times (--loops), or generate fewer requests",
                    r.arrival.0
                ),
            });
        }
        SimError::Overloaded(format!(
            "request {} (arriving at t={} ns) found {} requests still in flight, the most flashtail tracks: \
             the workload arrives far faster than this device serves it. Replay it more slowly \
             (--time-scale below 1 for a trace), or give the device more parallelism",
            self.c.requests_submitted + 1,
            r.arrival.0,
            self.reqs.live
        ))
    }

    /// Every request completed once, and the pages the block table saw programmed equal
    /// host + GC + parity programs (erased blocks were fully programmed when erased).
    fn check_conservation(&self) -> Result<(), String> {
        if self.c.requests_completed != self.c.requests_submitted {
            return Err(format!("{} requests submitted, {} completed", self.c.requests_submitted, self.c.requests_completed));
        }
        let now: u64 = self.ftl.blocks.programmed.iter().map(|&x| x as u64).sum();
        let seen = now + self.c.erases * self.ftl.geo.pages_per_block as u64 - self.programmed_at_start;
        // Power cuts seal open blocks, giving up their unwritten pages (`power_cut`).
        let padded = self.cuts.as_ref().map_or(0, |pc| pc.padded_pages);
        let counted = self.c.host_pages_programmed + self.c.gc_pages_programmed + self.c.parity_pages_programmed + padded;
        if seen != counted {
            return Err(format!("flash saw {seen} page programs but host + GC + parity (+ pages given up at power cuts) = {counted}"));
        }
        if let Some(m) = &self.mesh {
            m.check_idle()?;
        }
        let queued: usize = self.stalled.iter().map(VecDeque::len).sum();
        if queued != self.waiting_writes as usize {
            return Err(format!("{queued} writes wait in the planes' stall queues, but {} were counted", self.waiting_writes));
        }
        Ok(())
    }

    /// Stage one of prefetching for the request after next: start loading its map entries
    /// (with the oracle's versions beside them), random accesses into a table far larger
    /// than the caches. A request has the events due before it, and then the next request's
    /// arrival, to fetch them.
    fn prefetch_request(&self, r: &HostRequest) {
        let lp = self.ftl.logical_pages as u64;
        let first = wrap_page(self.page_index(r.offset), lp);
        let last = wrap_page(self.page_index(r.offset + r.size.max(1) - 1), lp);
        for l in [first, last] {
            self.ftl.prefetch(l);
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
        assert!(id < 1 << EV_ID_BITS, "event id {id} exceeds 2^{EV_ID_BITS}");
        self.heap.push(t.0, seq, (u32::from(kind) << EV_ID_BITS) | id);
    }

    fn step_event(&mut self) {
        let (t, seq, packed) = self.heap.pop().expect("event present");
        let (kind, id) = ((packed >> EV_ID_BITS) as u8, packed & ((1 << EV_ID_BITS) - 1));
        debug_assert!(t >= self.now.0, "time went backwards");
        let before = self.now;
        self.now = Nanos(t);
        self.cur_key = phases::key(self.now, seq);
        self.c.events += 1;
        // Nearly every event is a unit's: test for it first instead of a `match`, which
        // compiled to an indirect jump through a table on every event.
        if kind == EV_UNIT {
            self.phase_done(id, seq);
            return;
        }
        self.other_event(kind, id, before);
    }

    /// A request's page served from controller memory, or a timer (out of line: the unit
    /// events' path stays small, with fewer registers to save per event).
    #[inline(never)]
    fn other_event(&mut self, kind: u8, id: u32, before: Nanos) {
        match kind {
            EV_PAGE_DONE => self.page_done(id),
            EV_TIMER => {
                if let Some(token) = self.timer_tokens.remove(&id) {
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
                    if token & gc_sched::GC_WAKE_TOKEN == gc_sched::GC_WAKE_TOKEN {
                        self.wake_gc_waiters();
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

    fn schedule_free_change(&mut self, plane: PlaneId) {
        // A zero-delay timer with a reserved token range routes the notification.
        self.schedule_token(self.now, FREE_CHANGE_TOKEN | plane.0 as u64);
    }

    /// Queue a timer carrying `token` at `at` (not before now).
    fn schedule_token(&mut self, at: Nanos, token: u64) {
        let id = self.next_timer_id;
        self.next_timer_id = (self.next_timer_id + 1) & ((1 << EV_ID_BITS) - 1);
        self.timer_tokens.insert(id, token);
        self.schedule(at.max(self.now), EV_TIMER, id);
    }
}

/// A page index folded into the logical space (requests past its end wrap around); the
/// division only runs for the rare wrapped page.
#[inline]
fn wrap_page(p: u64, logical_pages: u64) -> u32 {
    (if p < logical_pages { p } else { p % logical_pages }) as u32
}

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

/// Whether an execution unit spans several planes (a die of two or more planes).
fn unit_spans_planes(dev: &DeviceConfig) -> bool {
    dev.ftl.unit == UnitOfExecution::Die && dev.geometry.planes_per_die > 1
}
