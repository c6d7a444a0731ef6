//! `lazy-rtgc`: Lazy-RTGC (Zhang et al., ACM TODAES 2015) as the RL-GC paper runs it
//!: while a plane has free blocks <= T_GC, one partial task
//! (`copies` copies, default 2, or the victim's erase) runs after each host write served on
//! it; none after reads; intensive tasks at one free block until free > T_IGC.
//! It does not look at idle time at all: that is the point of comparison.

use super::params::Params;
use super::task::{TaskRunner, task_runner_hooks, task_runner_power_cut};
use crate::gc::policy::{GcCtx, GcMode, GcPolicy};
use crate::host::{HostRequest, Op};
use crate::units::{Nanos, PlaneId};

pub struct LazyRtgc {
    pub run: TaskRunner,
}

impl LazyRtgc {
    pub fn new(params: Params) -> LazyRtgc {
        LazyRtgc {
            run: TaskRunner::new(params),
        }
    }
}

impl GcPolicy for LazyRtgc {
    task_runner_hooks!(run);
    task_runner_power_cut!(run);
    fn on_arrival(&mut self, ctx: &mut GcCtx, _req: &HostRequest) {
        self.run.guard_all(ctx);
    }
    fn on_complete(&mut self, ctx: &mut GcCtx, op: Op, _latency: Nanos, plane: PlaneId) {
        let r = self.run.res(ctx);
        if op == Op::Write {
            self.run.run_intensive_all(ctx);
            if !self.run.intensive(plane) && ctx.free_blocks(plane) <= r.t_gc {
                self.run
                    .run_task(ctx, plane, r.copies, 1, GcMode::Exclusive);
            }
        }
        self.run.guard(ctx, plane);
    }
    fn details(&self) -> serde_json::Value {
        self.run.details()
    }
}
