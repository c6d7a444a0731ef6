//! `rlgc` and `rlgc-aggressive`: RL-assisted GC scheduling (Kang, Shin, Yoo, ACM TECS
//! 2017; Algorithm 1, §5.2-5.3).
//!
//! After a host write is served while some plane has free blocks <= T_GC, a tabular
//! Q-learning agent picks how many valid-page copies (0..=max_copies) to run right away;
//! a non-zero action becomes the victim's erase when it has no valid page left. The task
//! is real flash work (`Exclusive`: it delays whatever arrives meanwhile). The reward is the
//! response time of the request served, graded against the moving p70/p90/p99 (see
//! `reward.rs`), and it updates the *previous* decision: Q(s_{t−1}, a_{t−1}) is updated with
//! r_t + γQ(s_t, a_t), since the GC after request t−1 is what delayed request t.
//! ε = 0.8 for the first 1000 decisions, then 0.01; exploitation is greedy, or with
//! `policy=proportional` the paper's stochastic ∝ Q choice. Requests arriving with a zero interval
//! do not invoke the agent. Intensive mode (one free block, until free > T_IGC) overrides
//! the chosen action with fixed-size tasks after every write.
//!
//! Aggressive variant: the agent also runs at T_GC < free <= T_AGC (100), where actions are
//! capped at 2 copies and new victims must be > 60% invalid (max-limited early triggering),
//! and after reads (read-initiated triggering; the read is served first, so it is not
//! slowed).
//!
//! One agent serves the device: the intervals describe the host, and the idle gap that
//! follows a request is idle time for every plane, so the chosen task runs on every plane
//! in the trigger zone (free <= T_GC; for the aggressive variant also <= T_AGC, capped).
//! That also keeps the paper's credit assignment sound on a multi-plane device: GC after
//! request t−1 delays request t whichever plane t lands on. (Running it only on the plane
//! of the request just served lets the next request dodge the GC by landing on another
//! plane, and the reward then credits the wrong action.) A chain of decisions is broken
//! (no update across it) when a request is served with no plane in the zone.

use super::intervals::Intervals;
use super::params::Params;
use super::qtable::{self, QTable};
use super::reward::RewardTracker;
use super::task::{TaskRunner, task_runner_hooks};
use crate::gc::policy::{GcCtx, GcMode, GcPolicy};
use crate::host::{HostRequest, Op};
use crate::units::{Nanos, PlaneId};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::json;

pub struct RlGc {
    pub run: TaskRunner,
    pub aggressive: bool,
    pub q: QTable,
    pub reward: RewardTracker,
    rng: ChaCha8Rng,
    iv: Intervals,
    prev_action: u32,
    /// The last decision (state, action), waiting for its reward.
    last: Option<(usize, usize)>,
    pub decisions: u64,
    pub explorations: u64,
    pub updates: u64,
    pub early_decisions: u64,
    pub read_decisions: u64,
    pub overridden: u64,
    pub visits: Vec<u64>,
    pub action_hist: Vec<u64>,
}

impl RlGc {
    pub fn new(mut params: Params, aggressive: bool, seed: u64) -> RlGc {
        if aggressive {
            params.read_gc = true;
        }
        let actions = params.max_copies as usize + 1;
        RlGc {
            q: QTable::new(
                actions,
                params.alpha,
                params.gamma,
                params
                    .q_init
                    .unwrap_or(1.0 / (1.0 - params.gamma).max(1e-3)),
            ),
            reward: RewardTracker::new(params.reward_window),
            rng: ChaCha8Rng::seed_from_u64(seed ^ 0x5a5a_0f0f_1234_9876),
            run: TaskRunner::new(params),
            aggressive,
            iv: Intervals::default(),
            prev_action: 0,
            last: None,
            decisions: 0,
            explorations: 0,
            updates: 0,
            early_decisions: 0,
            read_decisions: 0,
            overridden: 0,
            visits: vec![0; qtable::STATES],
            action_hist: vec![0; actions],
        }
    }

    fn epsilon(&self) -> f64 {
        let p = &self.run.params;
        if self.decisions < p.explore_actions {
            p.eps_start
        } else {
            p.eps_end
        }
    }
}

impl GcPolicy for RlGc {
    task_runner_hooks!(run);
    fn on_arrival(&mut self, ctx: &mut GcCtx, req: &HostRequest) {
        self.iv.arrive(req.arrival.0);
        self.run.guard_all(ctx);
    }
    fn on_complete(&mut self, ctx: &mut GcCtx, op: Op, latency: Nanos, plane: PlaneId) {
        let r = self.run.res(ctx);
        let gap = self.iv.complete(ctx.now.0, latency.0);
        let reward = self.reward.reward(latency.0);
        self.reward.push(latency.0);
        // Planes in the trigger zone, each with whether it is only in the early zone.
        let (t_gc, t_agc) = (
            r.t_gc,
            if self.aggressive {
                self.run.params.t_agc
            } else {
                0
            },
        );
        let zone: Vec<(PlaneId, bool)> = (0..ctx.num_planes())
            .map(PlaneId)
            .filter_map(|p| {
                let free = ctx.free_blocks(p);
                (free <= t_gc.max(t_agc)).then_some((p, free > t_gc))
            })
            .collect();
        if zone.is_empty() {
            self.last = None;
        }
        let op_ok = op == Op::Write || self.run.params.read_gc;
        if op == Op::Write {
            self.run.run_intensive_all(ctx);
        }
        if let Some(g) = gap.filter(|_| !zone.is_empty() && op_ok) {
            let p = &self.run.params;
            let edges = if p.legible_bins { &qtable::LEGIBLE_EDGES_NS } else { &qtable::CUR_EDGES_NS };
            let s = qtable::state(
                edges,
                g.prev,
                g.cur,
                self.prev_action,
                p.max_copies,
                p.prev_split_us * 1000,
            );
            let (a, explored) = if p.proportional {
                self.q.choose_proportional(s, self.epsilon(), &mut self.rng)
            } else {
                self.q.choose(s, self.epsilon(), &mut self.rng)
            };
            if let Some((s0, a0)) = self.last {
                self.q.update(s0, a0, reward, s, a);
                self.updates += 1;
            }
            self.last = Some((s, a));
            self.prev_action = a as u32;
            self.decisions += 1;
            self.explorations += u64::from(explored);
            self.early_decisions += u64::from(zone.iter().all(|&(_, early)| early));
            self.read_decisions += u64::from(op == Op::Read);
            self.visits[s] += 1;
            self.action_hist[a] += 1;
            let cap = p.agc_cap;
            for (q, early) in zone {
                if op == Op::Write && self.run.intensive(q) {
                    // Intensive GC overrides the agent (its task already ran above).
                    self.overridden += 1;
                } else if early {
                    self.run.run_task(
                        ctx,
                        q,
                        (a as u32).min(cap),
                        r.agc_min_invalid,
                        GcMode::Exclusive,
                    );
                } else {
                    self.run.run_task(ctx, q, a as u32, 1, GcMode::Exclusive);
                }
            }
        }
        self.run.guard(ctx, plane);
    }
    /// The decision waiting for its reward and the requests' interval records are lost;
    /// the Q-table is kept (see `GcPolicy::power_cut`).
    fn power_cut(&mut self) {
        self.run.power_cut();
        self.last = None;
        self.iv.power_cut();
    }
    fn details(&self) -> serde_json::Value {
        let used = self.visits.iter().filter(|&&v| v > 0).count();
        json!({
            "agent": if self.aggressive { "rlgc-aggressive" } else { "rlgc" },
            "states": qtable::STATES,
            "actions": self.q.actions,
            "q_table": self.q.rows(),
            "state_visits": &self.visits,
            "states_visited": used,
            "action_histogram": &self.action_hist,
            "decisions": self.decisions,
            "explorations": self.explorations,
            "q_updates": self.updates,
            "early_decisions": self.early_decisions,
            "read_decisions": self.read_decisions,
            "decisions_overridden_by_intensive": self.overridden,
            "epsilon_now": self.epsilon(),
            "reward_thresholds_ns": self.reward.thresholds,
            "zero_gap_requests": self.iv.zero_gap_requests,
            "current_interval_bin_edges_ns": if self.run.params.legible_bins { qtable::LEGIBLE_EDGES_NS } else { qtable::CUR_EDGES_NS },
            "runner": self.run.details(),
        })
    }
}
