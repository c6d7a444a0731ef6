//! Threshold-triggered GC: the baselines `base`, `preemptive` and `nogc`
//!.
//!
//! - `base`: below the soft threshold, a greedy victim is collected to the end while its
//!   unit serves nothing else (channel held only for each transfer).
//! - `preemptive` (Lee et al., ISPASS'11): the same work in steps that yield to waiting user
//!   operations; below the hard threshold the steps become urgent (no longer preemptible).
//! - `nogc`: victims are reclaimed instantly at no time cost (the mapping stays exact).
//!
//! How much one trigger collects is `ftl.gc_victims_per_trigger`: until the plane is back at
//! the soft threshold (`refill`, the default), or one victim per block a frontier takes
//! below it (`one`, MQSim's rule).

use super::policy::{GcCtx, GcMode, GcPolicy, Grant};
use crate::config::VictimsPerTrigger;
use crate::units::PlaneId;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ThresholdMode {
    Blocking,
    Preemptive,
    Instant,
}

pub struct ThresholdGc {
    pub mode: ThresholdMode,
    /// Per plane, with `ftl.gc_victims_per_trigger = "one"`: victims owed, and the free
    /// count last seen (a drop is a frontier taking a block).
    owed: Vec<u32>,
    last_free: Vec<Option<u32>>,
}

impl ThresholdGc {
    pub fn new(mode: ThresholdMode) -> ThresholdGc {
        ThresholdGc { mode, owed: Vec::new(), last_free: Vec::new() }
    }

    /// The grant's mode at `free` blocks, or `None` for the instant baseline.
    fn mode_at(&self, ctx: &GcCtx, free: u32) -> Option<GcMode> {
        match self.mode {
            ThresholdMode::Instant => None,
            ThresholdMode::Blocking => Some(GcMode::Exclusive),
            ThresholdMode::Preemptive => Some(if free < ctx.hard_blocks { GcMode::Urgent } else { GcMode::Background }),
        }
    }

    /// Refill: collect while the plane is below the soft threshold.
    fn check(&self, ctx: &mut GcCtx, plane: PlaneId) {
        let free = ctx.free_blocks(plane);
        if free >= ctx.soft_blocks {
            return;
        }
        let st = &ctx.planes[plane.idx()];
        match self.mode_at(ctx, free) {
            None => ctx.instant(plane),
            Some(GcMode::Exclusive) => {
                if st.grant.is_none() {
                    ctx.grant(plane, Grant::until_done(GcMode::Exclusive));
                }
            }
            Some(mode) => {
                if st.grant.map(|g| g.mode) != Some(mode) {
                    ctx.grant(plane, Grant::until_done(mode));
                }
            }
        }
    }

    /// One victim per trigger (MQSim): a drop of the free count below the soft threshold
    /// owes one victim per block taken; owed victims are collected one at a time, and below
    /// the hard threshold the plane collects until it is back at it.
    fn one_per_trigger(&mut self, ctx: &mut GcCtx, plane: PlaneId) {
        let n = ctx.num_planes() as usize;
        if self.owed.len() != n {
            self.owed = vec![0; n];
            self.last_free = vec![None; n];
        }
        let i = plane.idx();
        let free = ctx.free_blocks(plane);
        if let Some(last) = self.last_free[i] {
            if free < last && free < ctx.soft_blocks {
                self.owed[i] += last - free;
            }
        }
        self.last_free[i] = Some(free);
        let Some(mode) = self.mode_at(ctx, free) else { return self.check(ctx, plane) };
        let st = &ctx.planes[i];
        if st.grant.is_some() {
            if let (Some(g), true) = (st.grant, mode == GcMode::Urgent) {
                if g.mode != GcMode::Urgent {
                    ctx.grant(plane, Grant::until_done(mode));
                }
            }
            return;
        }
        if self.owed[i] > 0 {
            self.owed[i] -= 1;
            ctx.grant(plane, Grant::until_done(mode));
        } else if free < ctx.hard_blocks {
            ctx.grant(plane, Grant::until_done(mode));
        }
    }

    fn react(&mut self, ctx: &mut GcCtx, plane: PlaneId) {
        if ctx.dev.ftl.gc_victims_per_trigger == VictimsPerTrigger::One && self.mode != ThresholdMode::Instant {
            self.one_per_trigger(ctx, plane);
        } else {
            self.check(ctx, plane);
        }
    }
}

impl GcPolicy for ThresholdGc {
    /// Greedy thresholds look at free blocks only.
    fn watches_requests(&self) -> bool {
        false
    }
    fn starts_at_soft_threshold(&self) -> bool {
        true
    }
    fn reclaims_instantly(&self) -> bool {
        self.mode == ThresholdMode::Instant
    }
    fn on_free_change(&mut self, ctx: &mut GcCtx, plane: PlaneId) {
        self.react(ctx, plane);
    }
    fn on_victim_done(&mut self, ctx: &mut GcCtx, plane: PlaneId) {
        self.react(ctx, plane);
    }
}
