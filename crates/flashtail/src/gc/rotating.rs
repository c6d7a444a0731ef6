//! ttFlash's rotating GC (FAST'17 §4.3): while rotation holds, at most one plane per plane
//! group (the planes that hold one RAIN stripe, one per channel) collects, so a read never
//! meets two collecting planes in its stripe and the GC-tolerant read always applies. A
//! plane that needs GC while another plane of its group collects waits in the group's
//! round-robin queue; when a plane finishes a victim the turn passes to the next one still
//! short of free blocks (the plane itself queues again behind them if it still is).
//!
//! Dynamic rotation (`ttflash.rotation`, `config/ttflash.rs`): under the artifact's rule,
//! once more than `ttflash.rotation_chips_below_hard` of the planes are below the hard
//! threshold, rotation holds only while Σ last-GC time / Σ pages those GCs free is at least
//! Σ per-plane write interval (the artifact's `gc_for_channel`, with its sums; the engine
//! keeps the numbers in `PlaneGc::monitor`). While it does not hold, every plane that needs
//! GC collects at once, waiting planes included. `rotation_overrides` counts the grants
//! that rotation would have held back (another plane of the group was collecting).
//! The `hard-threshold` rule drops rotation only for a plane below the hard threshold;
//! `static` never drops it.
//!
//! Does not model: the artifact's one GC per channel and its yielding to queued user I/O
//! (GC scheduling settings elsewhere), its chip-level bookkeeping (planes stand for chips:
//! the artifact's chips have one plane).

use super::policy::{GcCtx, GcMode, GcPolicy, Grant};
use crate::config::RotationRule;
use crate::units::PlaneId;
use std::collections::VecDeque;

pub struct RotatingGc {
    /// Planes per group member = planes per channel (group = plane mod this).
    planes_per_channel: u32,
    waiting: Vec<VecDeque<PlaneId>>,
    queued: Vec<bool>,
    /// Granted in the current hook call (the engine applies grants after the hook returns).
    granted_now: Vec<PlaneId>,
    /// False: rotation is never dropped, whatever the device says.
    pub dynamic: bool,
    /// Whether rotation held at the last decision (the artifact's `dram->rotating_gc`).
    rotating: bool,
    /// Grants made outside the rotation while another plane of the group collected.
    pub overrides: u64,
    /// Times the dynamic rule turned rotation off.
    pub dropped: u64,
    pub turns: u64,
}

impl RotatingGc {
    /// Sized from the device geometry at the first hook call. `dynamic`: follow the device's
    /// `ttflash.rotation` rule; otherwise rotate always.
    pub fn new(dynamic: bool) -> RotatingGc {
        RotatingGc {
            planes_per_channel: 0,
            waiting: Vec::new(),
            queued: Vec::new(),
            granted_now: Vec::new(),
            dynamic,
            rotating: true,
            overrides: 0,
            dropped: 0,
            turns: 0,
        }
    }

    fn init(&mut self, ctx: &GcCtx) {
        if self.planes_per_channel == 0 {
            let ppc = ctx.ftl.geo.planes_per_channel();
            self.planes_per_channel = ppc;
            self.waiting = vec![VecDeque::new(); ppc as usize];
            self.queued = vec![false; ctx.ftl.geo.planes() as usize];
        }
        self.granted_now.clear();
    }

    fn rule(&self, ctx: &GcCtx) -> RotationRule {
        if self.dynamic {
            ctx.dev.ttflash.rotation
        } else {
            RotationRule::Static
        }
    }

    fn group(&self, p: PlaneId) -> usize {
        (p.0 % self.planes_per_channel) as usize
    }

    /// Another plane of `p`'s group collects (or was just granted).
    fn group_busy(&self, ctx: &GcCtx, p: PlaneId) -> bool {
        let g = self.group(p) as u32;
        (0..ctx.ftl.geo.channels).map(|ch| PlaneId(ch * self.planes_per_channel + g)).any(|q| q != p && (ctx.planes[q.idx()].active() || self.granted_now.contains(&q)))
    }

    /// The artifact's rule, decided now for the whole device.
    fn artifact_rotates(&self, ctx: &GcCtx) -> bool {
        let n = ctx.num_planes();
        let below = (0..n).filter(|&p| ctx.free_blocks(PlaneId(p)) < ctx.hard_blocks).count();
        if below as f64 <= ctx.dev.ttflash.rotation_chips_below_hard * n as f64 {
            return true;
        }
        let (mut write, mut gc, mut freed) = (0f64, 0f64, 0f64);
        for m in ctx.planes.iter().map(|g| &g.monitor) {
            write += m.write_interval.0 as f64;
            gc += m.gc_duration.0 as f64;
            freed += f64::from(m.freed_pages);
        }
        // Nothing measured yet: keep rotating (the artifact's start-up case).
        if freed == 0.0 || gc == 0.0 {
            return true;
        }
        gc / freed >= write
    }

    /// Whether rotation holds for `p` now; notes a drop of the device-wide rule.
    fn rotates(&mut self, ctx: &GcCtx, p: PlaneId) -> bool {
        match self.rule(ctx) {
            RotationRule::Static => true,
            RotationRule::HardThreshold => ctx.free_blocks(p) >= ctx.hard_blocks,
            RotationRule::Artifact => {
                let now = self.artifact_rotates(ctx);
                if self.rotating && !now {
                    self.dropped += 1;
                }
                self.rotating = now;
                now
            }
        }
    }

    fn grant(&mut self, ctx: &mut GcCtx, p: PlaneId, in_turn: bool) {
        if in_turn {
            self.turns += 1;
        } else if self.group_busy(ctx, p) {
            self.overrides += 1;
        }
        let mode = if ctx.free_blocks(p) < ctx.hard_blocks { GcMode::Urgent } else { GcMode::Exclusive };
        self.granted_now.push(p);
        ctx.grant(p, Grant::until_done(mode));
    }

    fn needs_gc(ctx: &GcCtx, p: PlaneId) -> bool {
        ctx.free_blocks(p) < ctx.soft_blocks && !ctx.planes[p.idx()].active()
    }

    /// Plane `p` needs GC: collect now if its group is free or rotation does not hold,
    /// otherwise wait for the group's turn.
    fn request(&mut self, ctx: &mut GcCtx, p: PlaneId) {
        if !self.rotates(ctx, p) {
            self.grant(ctx, p, false);
            if self.rule(ctx) == RotationRule::Artifact {
                self.release_all(ctx);
            }
        } else if !self.group_busy(ctx, p) {
            self.grant(ctx, p, true);
        } else if !self.queued[p.idx()] {
            self.queued[p.idx()] = true;
            let g = self.group(p);
            self.waiting[g].push_back(p);
        }
    }

    /// Rotation does not hold: every waiting plane that still needs GC collects now.
    fn release_all(&mut self, ctx: &mut GcCtx) {
        for g in 0..self.waiting.len() {
            while let Some(q) = self.waiting[g].pop_front() {
                self.queued[q.idx()] = false;
                if Self::needs_gc(ctx, q) && !self.granted_now.contains(&q) {
                    self.grant(ctx, q, false);
                }
            }
        }
    }

    /// Pass group `g`'s turn to its next waiting plane that still needs GC, if the group is free.
    fn give_turn(&mut self, ctx: &mut GcCtx, g: usize) {
        while let Some(&q) = self.waiting[g].front() {
            if !Self::needs_gc(ctx, q) {
                self.waiting[g].pop_front();
                self.queued[q.idx()] = false;
                continue;
            }
            if self.group_busy(ctx, q) {
                return;
            }
            self.waiting[g].pop_front();
            self.queued[q.idx()] = false;
            self.grant(ctx, q, true);
            return;
        }
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
        if Self::needs_gc(ctx, p) {
            self.request(ctx, p);
        } else if self.rule(ctx) == RotationRule::Artifact && !self.rotates(ctx, p) {
            self.release_all(ctx);
        }
    }

    fn on_victim_done(&mut self, ctx: &mut GcCtx, p: PlaneId) {
        self.init(ctx);
        let g = self.group(p);
        // The plane queues again behind the others if still short; the turn passes on.
        if Self::needs_gc(ctx, p) && !self.queued[p.idx()] {
            self.queued[p.idx()] = true;
            self.waiting[g].push_back(p);
        }
        if self.rule(ctx) == RotationRule::Artifact && !self.rotates(ctx, p) {
            self.release_all(ctx);
        } else {
            self.give_turn(ctx, g);
        }
    }

    /// The queues are lost with the engine's GC state (no plane collects any more).
    fn power_cut(&mut self) {
        self.waiting.iter_mut().for_each(VecDeque::clear);
        self.queued.fill(false);
        self.rotating = true;
    }

    fn details(&self) -> serde_json::Value {
        serde_json::json!({ "rotation_turns": self.turns, "rotation_overrides": self.overrides, "rotation_dropped": self.dropped, "dynamic": self.dynamic })
    }
}
