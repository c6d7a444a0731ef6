//! `idle-ma` and `idle-es`: the simple idle-time predictors the RL-GC paper compares with
//! (§6.2, Tables 11-12). After each write, while some plane has free blocks <= T_GC, the
//! next inter-request interval is predicted — by the moving average of the last
//! `ma_window` intervals, or by exponential smoothing with weight `es_weight` — and the
//! task is sized to the idle time left: floor((predicted − this response time) / one copy),
//! at most `max_copies`, on every plane in that zone (as with the RL agent, the idle gap is
//! the device's); as with the agent, a non-zero task becomes the erase when the
//! victim is empty. Zero-interval requests run nothing; intensive mode overrides.
//! The paper does not give its predictors' parameters; ours are stated in `Params`.

use super::intervals::Intervals;
use super::params::Params;
use super::task::{TaskRunner, task_runner_hooks};
use crate::gc::policy::{GcCtx, GcMode, GcPolicy};
use crate::host::{HostRequest, Op};
use crate::units::{Nanos, PlaneId};
use serde_json::json;
use std::collections::VecDeque;

/// How the next interval is predicted.
pub enum Predictor {
    /// Mean of the last `n` intervals.
    MovingAverage {
        n: usize,
        recent: VecDeque<u64>,
        sum: u64,
    },
    /// s ← w·x + (1−w)·s.
    Smoothing { w: f64, s: Option<f64> },
}

impl Predictor {
    pub fn moving_average(n: u32) -> Predictor {
        Predictor::MovingAverage {
            n: n.max(1) as usize,
            recent: VecDeque::new(),
            sum: 0,
        }
    }
    pub fn smoothing(w: f64) -> Predictor {
        Predictor::Smoothing { w, s: None }
    }
    pub fn observe(&mut self, iv: u64) {
        match self {
            Predictor::MovingAverage { n, recent, sum } => {
                recent.push_back(iv);
                *sum += iv;
                if recent.len() > *n {
                    *sum -= recent.pop_front().unwrap_or(0);
                }
            }
            Predictor::Smoothing { w, s } => {
                let x = iv as f64;
                *s = Some(match *s {
                    None => x,
                    Some(old) => *w * x + (1.0 - *w) * old,
                });
            }
        }
    }
    /// Predicted next interval, ns (0 before any observation).
    pub fn predict(&self) -> u64 {
        match self {
            Predictor::MovingAverage { recent, sum, .. } => {
                if recent.is_empty() {
                    0
                } else {
                    sum / recent.len() as u64
                }
            }
            Predictor::Smoothing { s, .. } => s.map_or(0, |v| v as u64),
        }
    }
}

pub struct IdlePredictGc {
    pub run: TaskRunner,
    pub predictor: Predictor,
    iv: Intervals,
    /// Histogram of task sizes chosen (index = copies).
    hist: Vec<u64>,
}

impl IdlePredictGc {
    pub fn new(params: Params, predictor: Predictor) -> IdlePredictGc {
        let n = params.max_copies as usize + 1;
        IdlePredictGc {
            run: TaskRunner::new(params),
            predictor,
            iv: Intervals::default(),
            hist: vec![0; n],
        }
    }
}

impl GcPolicy for IdlePredictGc {
    task_runner_hooks!(run);
    fn on_arrival(&mut self, ctx: &mut GcCtx, req: &HostRequest) {
        if let Some(iv) = self.iv.arrive(req.arrival.0) {
            self.predictor.observe(iv);
        }
        self.run.guard_all(ctx);
    }
    fn on_complete(&mut self, ctx: &mut GcCtx, op: Op, latency: Nanos, plane: PlaneId) {
        let r = self.run.res(ctx);
        let gap = self.iv.complete(ctx.now.0, latency.0);
        if op == Op::Write {
            self.run.run_intensive_all(ctx);
            if gap.is_some() {
                // The idle gap is the device's: every plane in the zone may use it.
                let idle = self.predictor.predict().saturating_sub(latency.0);
                let n = (idle / r.copy_ns.max(1)).min(self.run.params.max_copies as u64) as u32;
                let mut used = false;
                for p in (0..ctx.num_planes()).map(PlaneId) {
                    if !self.run.intensive(p) && ctx.free_blocks(p) <= r.t_gc {
                        used = true;
                        self.run.run_task(ctx, p, n, 1, GcMode::Exclusive);
                    }
                }
                if used {
                    self.hist[n as usize] += 1;
                }
            }
        }
        self.run.guard(ctx, plane);
    }
    /// The requests' interval records are lost; the predictor's history is kept (see
    /// `GcPolicy::power_cut`).
    fn power_cut(&mut self) {
        self.run.power_cut();
        self.iv.power_cut();
    }
    fn details(&self) -> serde_json::Value {
        let name = match self.predictor {
            Predictor::MovingAverage { .. } => "moving-average",
            Predictor::Smoothing { .. } => "exponential-smoothing",
        };
        json!({
            "predictor": name,
            "task_size_histogram": &self.hist,
            "zero_gap_requests": self.iv.zero_gap_requests,
            "runner": self.run.details(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predictors_by_hand() {
        let mut ma = Predictor::moving_average(3);
        assert_eq!(ma.predict(), 0);
        for x in [100, 200, 300, 1000] {
            ma.observe(x);
        }
        assert_eq!(ma.predict(), 500); // (200 + 300 + 1000) / 3
        let mut es = Predictor::smoothing(0.5);
        for x in [100, 300, 1000] {
            es.observe(x);
        }
        assert_eq!(es.predict(), 600); // 100 → 200 → 600
    }
}
