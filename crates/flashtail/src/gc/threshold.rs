//! Threshold-triggered GC: the baselines `base`, `preemptive` and `nogc`
//!.
//!
//! - `base`: below the soft threshold, a greedy victim is collected to the end while its
//!   unit serves nothing else (channel held only for each transfer).
//! - `preemptive` (Lee et al., ISPASS'11): the same work in steps that yield to waiting user
//!   operations; below the hard threshold the steps become urgent (no longer preemptible).
//! - `nogc`: victims are reclaimed instantly at no time cost (the mapping stays exact).

use super::policy::{GcCtx, GcMode, GcPolicy, Grant};
use crate::units::PlaneId;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ThresholdMode {
    Blocking,
    Preemptive,
    Instant,
}

pub struct ThresholdGc {
    pub mode: ThresholdMode,
}

impl ThresholdGc {
    fn check(&self, ctx: &mut GcCtx, plane: PlaneId) {
        let free = ctx.free_blocks(plane);
        if free >= ctx.soft_blocks {
            return;
        }
        let st = &ctx.planes[plane.idx()];
        match self.mode {
            ThresholdMode::Instant => ctx.instant(plane),
            ThresholdMode::Blocking => {
                if st.grant.is_none() {
                    ctx.grant(plane, Grant::until_done(GcMode::Exclusive));
                }
            }
            ThresholdMode::Preemptive => {
                let mode = if free < ctx.hard_blocks { GcMode::Urgent } else { GcMode::Background };
                if st.grant.map(|g| g.mode) != Some(mode) {
                    ctx.grant(plane, Grant::until_done(mode));
                }
            }
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
        self.check(ctx, plane);
    }
    fn on_victim_done(&mut self, ctx: &mut GcCtx, plane: PlaneId) {
        self.check(ctx, plane);
    }
}
