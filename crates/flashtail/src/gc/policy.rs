//! The GC-scheduling extension point: hooks the engine calls, and the commands a policy
//! may give back (grant GC work on a plane, reclaim instantly, set a timer).
//!
//! A policy never touches engine state directly: it reads a [`GcCtx`] and queues
//! [`GcCmd`]s, which the engine applies after the hook returns. That keeps every scheme's
//! rules in one place and the engine's invariants in another.

use crate::config::DeviceConfig;
use crate::ftl::Ftl;
use crate::host::{HostRequest, Op};
use crate::units::{BlockId, Nanos, PlaneId};

/// How GC steps on a plane compete with user I/O.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GcMode {
    /// Steps run back to back, before any user operation on the unit (blocking GC, and
    /// atomic partial-GC tasks).
    Exclusive,
    /// Steps run only when no user operation waits on the unit (semi-preemptive GC).
    Background,
    /// Like `Exclusive`, counted as urgent (free space nearly exhausted).
    Urgent,
}

/// Permission to do GC work on a plane.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Grant {
    /// Valid-page moves allowed; `u32::MAX` = until the victim is erased. Erasing the victim
    /// always ends the grant.
    pub steps: u32,
    /// Whether the erase may be issued under this grant when the victim has no valid page
    /// left (Lazy-RTGC: a task is either ≤ α copies or one erase).
    pub allow_erase: bool,
    pub mode: GcMode,
    /// Only start a *new* victim whose invalid pages are at least this many (RL-GC's
    /// max-limited early GC takes only victims > 60% invalid).
    pub min_invalid_pages: u32,
}

impl Grant {
    pub fn until_done(mode: GcMode) -> Grant {
        Grant { steps: u32::MAX, allow_erase: true, mode, min_invalid_pages: 1 }
    }
    pub fn steps(n: u32, mode: GcMode) -> Grant {
        Grant { steps: n, allow_erase: true, mode, min_invalid_pages: 1 }
    }
}

/// Commands a policy returns to the engine.
#[derive(Clone, Debug, PartialEq)]
pub enum GcCmd {
    /// Replace the plane's current grant.
    Grant(PlaneId, Grant),
    /// Reclaim victims on the plane instantly, at no time cost, until its free blocks reach
    /// the soft threshold (NoGC).
    Instant(PlaneId),
    /// Call `on_timer(token)` at the given time.
    Timer(Nanos, u64),
}

/// The engine's GC state of one plane (read-only to policies).
#[derive(Clone, Debug)]
pub struct PlaneGc {
    pub victim: Option<BlockId>,
    /// Next page of the victim to examine.
    pub cursor: u32,
    /// Remaining grant.
    pub grant: Option<Grant>,
    /// A GC operation of this plane is queued or running.
    pub in_flight: bool,
    /// The victim's erase was issued (its data is gone if power fails: `sim::power_loss`).
    pub erasing: bool,
    /// The grant under which the victim's erase became due but had to wait for programs
    /// superseding its pages (no power-loss protection): the erase is issued under it when
    /// they finish, even if the policy ended the grant meanwhile.
    pub erase_waits: Option<Grant>,
    /// What ttFlash's dynamic rotation weighs (`gc/rotating.rs`), kept by the engine.
    pub monitor: GcMonitor,
}

/// Per plane: the write rate and the GC efficiency the ttFlash artifact's dynamic rotation
/// rule compares (its `gc_monitor`, per chip). Volatile: a power cut resets it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GcMonitor {
    /// When the plane last took a page write (host data or parity); 0 before any.
    pub last_write: Nanos,
    /// Time between its last two page writes (the first: since t = 0); `Nanos::MAX` before any.
    pub write_interval: Nanos,
    /// When its current (or last) victim was chosen.
    pub gc_started: Nanos,
    /// How long its last finished GC took, victim choice to erase end; 0 before any.
    pub gc_duration: Nanos,
    /// Pages its current (or last) victim frees: pages per block less the valid ones moved.
    pub freed_pages: u32,
}

impl Default for GcMonitor {
    fn default() -> GcMonitor {
        GcMonitor::new()
    }
}

impl GcMonitor {
    pub const fn new() -> GcMonitor {
        GcMonitor { last_write: Nanos::ZERO, write_interval: Nanos::MAX, gc_started: Nanos::ZERO, gc_duration: Nanos::ZERO, freed_pages: 0 }
    }
    /// A page write was placed on the plane at `now`.
    #[inline]
    pub fn wrote(&mut self, now: Nanos) {
        self.write_interval = now.saturating_sub(self.last_write);
        self.last_write = now;
    }
}

impl PlaneGc {
    pub fn idle() -> PlaneGc {
        PlaneGc { victim: None, cursor: 0, grant: None, in_flight: false, erasing: false, erase_waits: None, monitor: GcMonitor::new() }
    }
    /// True while this plane has GC work granted or running.
    pub fn active(&self) -> bool {
        self.grant.is_some() || self.in_flight
    }
    /// True while this plane has a grant that runs ahead of user operations (not
    /// `GcMode::Background`, which waits for idle units).
    #[inline]
    pub fn foreground(&self) -> bool {
        matches!(self.grant, Some(g) if g.mode != GcMode::Background)
    }
}

/// What a policy sees, and its command queue.
pub struct GcCtx<'a> {
    pub now: Nanos,
    pub dev: &'a DeviceConfig,
    pub ftl: &'a Ftl,
    pub planes: &'a [PlaneGc],
    /// Per plane: failed (`--fail-die`; empty without failures). A failed plane is shown as
    /// having every block free ([`GcCtx::free_blocks`]), so no policy collects or waits on it.
    pub failed: &'a [bool],
    pub soft_blocks: u32,
    pub hard_blocks: u32,
    pub cmds: &'a mut Vec<GcCmd>,
}

impl GcCtx<'_> {
    pub fn free_blocks(&self, p: PlaneId) -> u32 {
        if self.failed.get(p.idx()) == Some(&true) {
            return self.ftl.geo.blocks_per_plane;
        }
        self.ftl.free_blocks(p)
    }
    pub fn grant(&mut self, p: PlaneId, g: Grant) {
        self.cmds.push(GcCmd::Grant(p, g));
    }
    pub fn instant(&mut self, p: PlaneId) {
        self.cmds.push(GcCmd::Instant(p));
    }
    pub fn timer(&mut self, at: Nanos, token: u64) {
        self.cmds.push(GcCmd::Timer(at, token));
    }
    pub fn num_planes(&self) -> u32 {
        self.ftl.geo.planes()
    }
}

/// The GC-scheduling extension point. Every hook has a default that does nothing, so a
/// policy implements only the moments its paper's rules speak of.
pub trait GcPolicy: Send {
    /// A plane's free-block count changed (a frontier took a block, or an erase finished).
    fn on_free_change(&mut self, _ctx: &mut GcCtx, _plane: PlaneId) {}
    /// Whether the policy reacts to `on_arrival` and `on_complete`. The engine calls those two
    /// hooks once per host request each; a policy that keeps their default (no-op) bodies
    /// says `false` here and the engine skips the calls. The default, `true`, is the safe
    /// one for a policy that forgets to say.
    fn watches_requests(&self) -> bool {
        true
    }
    /// Whether GC starts only when a plane falls below the soft threshold. Host writes stop
    /// at `gc_reserved_blocks` free blocks, so such a policy needs the soft threshold above
    /// the reserve or GC never starts (`Simulation::new` refuses the device). Policies that
    /// start their own GC at the reserve (the partial-GC schemes) keep the default.
    fn starts_at_soft_threshold(&self) -> bool {
        false
    }
    /// Whether the policy reclaims blocks at once, outside the engine's GC operations
    /// (`GcCmd::Instant`, NoGC): such erases skip the wait for programs superseding a block's
    /// pages, so power-loss audits without protection are refused (`sim::power_loss`).
    fn reclaims_instantly(&self) -> bool {
        false
    }
    /// A host request arrived (before it is split into pages).
    fn on_arrival(&mut self, _ctx: &mut GcCtx, _req: &HostRequest) {}
    /// A host request completed, with its latency; `plane` is the plane of its last page.
    fn on_complete(&mut self, _ctx: &mut GcCtx, _op: Op, _latency: Nanos, _plane: PlaneId) {}
    /// A victim was erased on the plane (its grant has ended).
    fn on_victim_done(&mut self, _ctx: &mut GcCtx, _plane: PlaneId) {}
    /// A timer set with `GcCmd::Timer` fired.
    fn on_timer(&mut self, _ctx: &mut GcCtx, _token: u64) {}
    /// Power was cut (`SimOptions::power_cut_at`): forget what was under way in controller
    /// memory (timers set, a decision waiting for its outcome); the engine's timers and GC
    /// state are gone, and once the device is back every plane's free space is announced
    /// again (`on_free_change`), as at the start of a run. What a policy has learned (a
    /// Q-table, a predictor's history) it keeps, as if checkpointed to flash.
    fn power_cut(&mut self) {}
    /// Scheme-specific output for the run report (e.g. a Q-table).
    fn details(&self) -> serde_json::Value {
        serde_json::Value::Null
    }
}
