//! ttFlash's rotating GC (FAST'17 §4.3): at most one plane per
//! plane group (the planes that hold one RAIN stripe) collects at a time, so a read never
//! meets two GC'ing planes in its stripe and the GC-tolerant read always applies. Planes
//! that need GC while their group's turn is taken wait in a round-robin queue.
//!
//! Dynamic rotation: a plane whose free blocks fall below the hard threshold may not wait —
//! rotation is dropped for it and it collects at once (urgent), so a write burst can never
//! exhaust free space. (The artifact's rule — keep rotating while GC time per freed page
//! ≥ host write interval once 30% of chips are below the hard threshold — needs a write-rate
//! estimate; the hard-threshold override is the simpler reading of the same intent.)

use super::policy::{GcCtx, GcMode, GcPolicy, Grant};
use crate::units::PlaneId;
use std::collections::VecDeque;

pub struct RotatingGc {
    /// Planes per group member = planes per channel (group = plane mod this).
    planes_per_channel: u32,
    /// The plane holding each group's turn.
    holder: Vec<Option<PlaneId>>,
    waiting: Vec<VecDeque<PlaneId>>,
    queued: Vec<bool>,
    pub dynamic: bool,
    /// Times rotation was dropped for an urgent plane.
    pub overrides: u64,
    pub turns: u64,
}

impl RotatingGc {
    /// Sized from the device geometry at the first hook call.
    pub fn new(dynamic: bool) -> RotatingGc {
        RotatingGc { planes_per_channel: 0, holder: Vec::new(), waiting: Vec::new(), queued: Vec::new(), dynamic, overrides: 0, turns: 0 }
    }

    fn init(&mut self, ctx: &GcCtx) {
        if self.planes_per_channel == 0 {
            let ppc = ctx.ftl.geo.planes_per_channel();
            self.planes_per_channel = ppc;
            self.holder = vec![None; ppc as usize];
            self.waiting = vec![VecDeque::new(); ppc as usize];
            self.queued = vec![false; ctx.ftl.geo.planes() as usize];
        }
    }

    fn group(&self, p: PlaneId) -> usize {
        (p.0 % self.planes_per_channel) as usize
    }

    fn give_turn(&mut self, ctx: &mut GcCtx, g: usize) {
        while let Some(p) = self.waiting[g].pop_front() {
            self.queued[p.idx()] = false;
            if ctx.free_blocks(p) < ctx.soft_blocks && ctx.planes[p.idx()].grant.is_none() {
                self.holder[g] = Some(p);
                self.turns += 1;
                ctx.grant(p, Grant::until_done(GcMode::Exclusive));
                return;
            }
        }
        self.holder[g] = None;
    }
}

impl GcPolicy for RotatingGc {
    /// Turns pass on free-block changes and erases only.
    fn watches_requests(&self) -> bool {
        false
    }
    fn starts_at_soft_threshold(&self) -> bool {
        true
    }
    fn on_free_change(&mut self, ctx: &mut GcCtx, p: PlaneId) {
        self.init(ctx);
        let free = ctx.free_blocks(p);
        if free >= ctx.soft_blocks || ctx.planes[p.idx()].active() {
            return;
        }
        let g = self.group(p);
        match self.holder[g] {
            None => {
                self.holder[g] = Some(p);
                self.turns += 1;
                ctx.grant(p, Grant::until_done(GcMode::Exclusive));
            }
            Some(h) if h == p => ctx.grant(p, Grant::until_done(GcMode::Exclusive)),
            Some(_) if self.dynamic && free < ctx.hard_blocks => {
                self.overrides += 1;
                ctx.grant(p, Grant::until_done(GcMode::Urgent));
            }
            Some(_) => {
                if !self.queued[p.idx()] {
                    self.queued[p.idx()] = true;
                    self.waiting[g].push_back(p);
                }
            }
        }
    }

    fn on_victim_done(&mut self, ctx: &mut GcCtx, p: PlaneId) {
        self.init(ctx);
        let g = self.group(p);
        if self.holder[g] != Some(p) {
            // An urgent plane outside the rotation: re-check it, it may still be short.
            self.on_free_change(ctx, p);
            return;
        }
        // Pass the turn on; the plane queues again behind the others if still short.
        if ctx.free_blocks(p) < ctx.soft_blocks && !self.queued[p.idx()] {
            self.queued[p.idx()] = true;
            self.waiting[g].push_back(p);
        }
        self.give_turn(ctx, g);
    }

    /// Turns and the queue are lost with the engine's GC state (no plane collects any more).
    fn power_cut(&mut self) {
        self.holder.fill(None);
        self.waiting.iter_mut().for_each(VecDeque::clear);
        self.queued.fill(false);
    }

    fn details(&self) -> serde_json::Value {
        serde_json::json!({ "rotation_turns": self.turns, "rotation_overrides": self.overrides, "dynamic": self.dynamic })
    }
}
