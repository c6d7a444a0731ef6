//! The partial-GC task runner every scheme here shares (Lazy-RTGC's mechanism, which RL-GC
//! and the idle predictors build on): a task is at most N valid-page copies of the current
//! victim, or its erase once it has no valid page left — never both. Tasks run as
//! `Exclusive` grants, so they occupy the plane right after the request that triggered
//! them and delay whatever arrives meanwhile (which is the cost RL-GC learns to avoid).
//!
//! Also here: intensive mode (at one free block, tasks grow to `igc_copies` until free
//! blocks exceed T_IGC; they run after every host write, on each plane in that mode), and
//! a guard for a plane that can take no more host writes: it gets intensive tasks re-armed
//! by timer until it can (`blocked_tasks`); only if no task can help is a whole victim
//! collected (`emergency_collections`, never seen in a healthy run). How many tasks to run
//! and when is each scheme's business.

use super::params::{Params, Resolved};
use crate::gc::policy::{GcCtx, GcMode, Grant};
use crate::units::{Nanos, PlaneId};
use serde_json::json;

/// What `run_task` did.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Task {
    /// Nothing asked (0 copies) or nothing collectable.
    Nothing,
    /// The plane still has GC work granted or running: the new task folds into it.
    Busy,
    Copies(u32),
    Erase,
}

/// An intensive-mode transition, for the report and the tests.
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct ModeChange {
    pub time_ns: u64,
    pub plane: u32,
    pub free_blocks: u32,
    pub intensive: bool,
}

/// The three hooks every partial-GC policy hands to its task runner unchanged: a free-space
/// change updates intensive mode and the blocked-plane guard; a finished victim and the
/// guard's timer re-check the guard. Expands inside each policy's `impl GcPolicy`, naming
/// the `TaskRunner` field.
macro_rules! task_runner_hooks {
    ($run:ident) => {
        fn on_free_change(&mut self, ctx: &mut GcCtx, plane: PlaneId) {
            self.$run.update_mode(ctx, plane);
            self.$run.guard(ctx, plane);
        }
        fn on_victim_done(&mut self, ctx: &mut GcCtx, plane: PlaneId) {
            self.$run.guard(ctx, plane);
        }
        fn on_timer(&mut self, ctx: &mut GcCtx, token: u64) {
            self.$run.on_timer(ctx, token);
        }
    };
}
pub(crate) use task_runner_hooks;

/// `power_cut` of a policy whose only volatile state is its task runner's.
macro_rules! task_runner_power_cut {
    ($run:ident) => {
        fn power_cut(&mut self) {
            self.$run.power_cut();
        }
    };
}
pub(crate) use task_runner_power_cut;

/// Timer tokens of the blocked-plane guard.
const GUARD_TOKEN: u64 = 1 << 40;

/// Keep at most this many transitions in the log (the counters keep counting).
const MODE_LOG_CAP: usize = 200;

#[derive(Default, Clone, Debug, serde::Serialize)]
pub struct TaskStats {
    pub copy_tasks: u64,
    pub erase_tasks: u64,
    pub copies_granted: u64,
    pub intensive_tasks: u64,
    pub intensive_entries: u64,
    pub busy_skips: u64,
    /// Intensive tasks run because a plane could take no more host writes.
    pub blocked_tasks: u64,
    pub emergency_collections: u64,
    /// Plane-time (ns, summed over planes) spent in intensive mode, over the intervals
    /// that ended; `TaskRunner::details` adds the ones still open as `intensive_open_since_ns`.
    pub intensive_plane_ns: u64,
}

pub struct TaskRunner {
    pub params: Params,
    /// Set on the first hook (the device is unknown when the scheme is built).
    pub res: Option<Resolved>,
    intensive: Vec<bool>,
    /// When each plane in intensive mode entered it (ns).
    intensive_since: Vec<u64>,
    /// Guard timers pending per plane (see [`TaskRunner::guard`]).
    guard_timers: Vec<u32>,
    pub stats: TaskStats,
    pub mode_log: Vec<ModeChange>,
}

impl TaskRunner {
    pub fn new(params: Params) -> TaskRunner {
        TaskRunner {
            params,
            res: None,
            intensive: Vec::new(),
            intensive_since: Vec::new(),
            guard_timers: Vec::new(),
            stats: TaskStats::default(),
            mode_log: Vec::new(),
        }
    }

    /// The resolved thresholds (resolving them on first use).
    pub fn res(&mut self, ctx: &GcCtx) -> Resolved {
        if self.res.is_none() {
            self.res = Some(self.params.resolve(ctx.dev, ctx.soft_blocks));
            self.intensive = vec![false; ctx.num_planes() as usize];
            self.intensive_since = vec![0; ctx.num_planes() as usize];
            self.guard_timers = vec![0; ctx.num_planes() as usize];
        }
        self.res
            .clone()
            .unwrap_or_else(|| self.params.resolve(ctx.dev, ctx.soft_blocks))
    }

    pub fn intensive(&self, p: PlaneId) -> bool {
        self.intensive.get(p.idx()).copied().unwrap_or(false)
    }

    /// Enter or leave intensive mode on a plane whose free-block count changed.
    pub fn update_mode(&mut self, ctx: &GcCtx, p: PlaneId) {
        let r = self.res(ctx);
        let free = ctx.free_blocks(p);
        let on = self.intensive[p.idx()];
        let next = if on {
            free <= r.t_igc
        } else {
            free <= r.igc_on
        };
        if next != on {
            self.intensive[p.idx()] = next;
            if next {
                self.stats.intensive_entries += 1;
                self.intensive_since[p.idx()] = ctx.now.0;
            } else {
                self.stats.intensive_plane_ns += ctx.now.0.saturating_sub(self.intensive_since[p.idx()]);
            }
            if self.mode_log.len() < MODE_LOG_CAP {
                self.mode_log.push(ModeChange {
                    time_ns: ctx.now.0,
                    plane: p.0,
                    free_blocks: free,
                    intensive: next,
                });
            }
        }
    }

    /// Host writes can no longer get a page on this plane. Writes then go elsewhere or
    /// wait, so no write may complete here to trigger the next intensive task: run one now
    /// and look again (by timer) once it should be over, until the plane takes writes.
    pub fn guard(&mut self, ctx: &mut GcCtx, p: PlaneId) {
        let pb = &ctx.ftl.blocks.planes[p.idx()];
        let blocked =
            pb.user_frontier.is_none() && pb.free.len() as u32 <= ctx.dev.ftl.gc_reserved_blocks;
        if !blocked {
            return;
        }
        let r = self.res(ctx);
        let dt = r.igc_copies as u64 * r.copy_ns + ctx.dev.timing.erase_ns;
        if ctx.planes[p.idx()].active() {
            // GC work is already granted here (a task a write triggered, or the last
            // intensive one still waiting behind queued operations). When it ends no hook
            // fires, and no write can complete on a blocked plane to trigger the next task:
            // look again by timer, or the plane's stalled writes wait for ever. One timer
            // per plane is enough (the guard is called on every arrival).
            if self.guard_timers[p.idx()] == 0 {
                self.guard_timers[p.idx()] += 1;
                ctx.timer(ctx.now + Nanos(dt), GUARD_TOKEN | p.0 as u64);
            }
            return;
        }
        match self.run_intensive(ctx, p) {
            Task::Copies(_) | Task::Erase => {
                self.stats.blocked_tasks += 1;
                self.guard_timers[p.idx()] += 1;
                ctx.timer(ctx.now + Nanos(dt), GUARD_TOKEN | p.0 as u64);
            }
            Task::Nothing | Task::Busy => {
                // Nothing collectable by tasks: take a whole victim (never seen in a
                // healthy run; counted).
                self.stats.emergency_collections += 1;
                ctx.grant(p, Grant::until_done(GcMode::Urgent));
            }
        }
    }

    /// A guard timer fired (see [`TaskRunner::guard`]); false if the token is not ours.
    pub fn on_timer(&mut self, ctx: &mut GcCtx, token: u64) -> bool {
        if token & GUARD_TOKEN == 0 {
            return false;
        }
        let p = PlaneId((token & 0xffff_ffff) as u32);
        if let Some(n) = self.guard_timers.get_mut(p.idx()) {
            *n = n.saturating_sub(1);
        }
        self.guard(ctx, p);
        true
    }

    /// Power was cut: the guard's timers are gone (a count left above 0 would keep the guard
    /// from ever setting another). Intensive mode follows free space, which the engine
    /// announces again once the device is back.
    pub fn power_cut(&mut self) {
        self.guard_timers.fill(0);
    }

    /// Guard every plane.
    pub fn guard_all(&mut self, ctx: &mut GcCtx) {
        for p in 0..ctx.num_planes() {
            self.guard(ctx, PlaneId(p));
        }
    }

    /// After a host write: an intensive task on every plane in intensive mode. (Writes
    /// spread over planes, and a plane short of space gets fewer of them, so tying its
    /// intensive tasks to writes served on it alone could leave it starving.)
    pub fn run_intensive_all(&mut self, ctx: &mut GcCtx) {
        for p in 0..self.intensive.len() as u32 {
            if self.intensive[p as usize] {
                self.run_intensive(ctx, PlaneId(p));
            }
        }
    }

    /// The intensive task on one plane.
    pub fn run_intensive(&mut self, ctx: &mut GcCtx, p: PlaneId) -> Task {
        let n = self.res(ctx).igc_copies;
        let t = self.run_task(ctx, p, n, 1, GcMode::Urgent);
        if matches!(t, Task::Copies(_) | Task::Erase) {
            self.stats.intensive_tasks += 1;
        }
        t
    }

    /// One partial task of at most `copies` copies (or the erase) on the plane, taking a new
    /// victim only if it has at least `min_invalid` invalid pages.
    pub fn run_task(
        &mut self,
        ctx: &mut GcCtx,
        p: PlaneId,
        copies: u32,
        min_invalid: u32,
        mode: GcMode,
    ) -> Task {
        if copies == 0 {
            return Task::Nothing;
        }
        let st = &ctx.planes[p.idx()];
        if st.active() {
            self.stats.busy_skips += 1;
            return Task::Busy;
        }
        let blocks = &ctx.ftl.blocks;
        let ready = match st.victim {
            Some(v) => blocks.valid[v.idx()] == 0,
            None => {
                // The engine picks the victim when the grant starts; look ahead so that a
                // fully invalid block becomes an erase task, not an empty copy task. The
                // block with the fewest valid pages answers both questions: is there a
                // victim with at least `min_invalid` invalid pages, and an empty one?
                let ppb = ctx.ftl.geo.pages_per_block;
                match crate::gc::victim::fewest_valid_sealed(ctx.ftl, p) {
                    Some(v) if ppb - v >= min_invalid.max(1) => v == 0,
                    _ => return Task::Nothing,
                }
            }
        };
        if ready {
            self.stats.erase_tasks += 1;
            ctx.grant(
                p,
                Grant {
                    steps: 0,
                    allow_erase: true,
                    mode,
                    min_invalid_pages: min_invalid,
                },
            );
            Task::Erase
        } else {
            self.stats.copy_tasks += 1;
            self.stats.copies_granted += copies as u64;
            ctx.grant(
                p,
                Grant {
                    steps: copies,
                    allow_erase: false,
                    mode,
                    min_invalid_pages: min_invalid,
                },
            );
            Task::Copies(copies)
        }
    }

    pub fn details(&self) -> serde_json::Value {
        json!({
            "params": &self.params,
            "resolved": &self.res,
            "tasks": &self.stats,
            "intensive_changes": &self.mode_log,
            // Planes still in intensive mode at the end, and since when (ns).
            "intensive_open_since_ns": self.intensive.iter().zip(&self.intensive_since).filter(|(on, _)| **on).map(|(_, t)| *t).collect::<Vec<u64>>(),
        })
    }
}
