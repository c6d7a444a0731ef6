//! RL-GC's reward (paper §5.2, Fig. 6): +1 for a response at or under t1, +0.5 under t2,
//! 0 under t3, −0.5 above t3, where t1, t2, t3 are the 70th, 90th and 99th percentiles of
//! the most recent response times, so the scale follows the workload as it changes.
//!
//! The window is a ring of the last `window` response times; its percentiles are recomputed
//! every `window / 10` samples (and on every sample while the window is still small), which
//! keeps the cost per request small without letting the thresholds go stale.

/// Moving p70/p90/p99 of recent response times.
pub struct RewardTracker {
    ring: Vec<u64>,
    next: usize,
    window: usize,
    pushes: u64,
    refresh_every: usize,
    /// Current (t1, t2, t3), ns; `None` before the first sample.
    pub thresholds: Option<[u64; 3]>,
}

/// Nearest-rank percentile of a sorted slice (q in (0, 1]).
pub fn nearest_rank(sorted: &[u64], q: f64) -> u64 {
    let n = sorted.len();
    let k = ((q * n as f64).ceil() as usize).clamp(1, n);
    sorted[k - 1]
}

impl RewardTracker {
    pub fn new(window: u32) -> RewardTracker {
        let window = window.max(1) as usize;
        RewardTracker {
            ring: Vec::with_capacity(window),
            next: 0,
            window,
            pushes: 0,
            refresh_every: (window / 10).max(1),
            thresholds: None,
        }
    }

    /// Add a response time.
    pub fn push(&mut self, ns: u64) {
        if self.ring.len() < self.window {
            self.ring.push(ns);
        } else {
            self.ring[self.next] = ns;
        }
        self.next = (self.next + 1) % self.window;
        self.pushes += 1;
        if self.ring.len() < self.refresh_every
            || self.pushes.is_multiple_of(self.refresh_every as u64)
        {
            self.refresh();
        }
    }

    fn refresh(&mut self) {
        let mut s = self.ring.clone();
        s.sort_unstable();
        self.thresholds = Some([
            nearest_rank(&s, 0.70),
            nearest_rank(&s, 0.90),
            nearest_rank(&s, 0.99),
        ]);
    }

    /// The reward of a response time under the current thresholds (0 before any sample).
    pub fn reward(&self, ns: u64) -> f64 {
        match self.thresholds {
            None => 0.0,
            Some([t1, t2, t3]) => {
                if ns <= t1 {
                    1.0
                } else if ns <= t2 {
                    0.5
                } else if ns <= t3 {
                    0.0
                } else {
                    -0.5
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thresholds_are_p70_p90_p99_and_reward_steps() {
        let mut r = RewardTracker::new(100);
        assert_eq!(r.reward(5), 0.0);
        for ns in 1..=100 {
            r.push(ns);
        }
        assert_eq!(r.thresholds, Some([70, 90, 99]));
        assert_eq!(r.reward(70), 1.0);
        assert_eq!(r.reward(71), 0.5);
        assert_eq!(r.reward(90), 0.5);
        assert_eq!(r.reward(95), 0.0);
        assert_eq!(r.reward(99), 0.0);
        assert_eq!(r.reward(100), -0.5);
    }

    #[test]
    fn window_forgets_old_samples() {
        let mut r = RewardTracker::new(100);
        for _ in 0..100 {
            r.push(1_000_000);
        }
        // A new regime of 100 fast responses replaces the slow ones entirely.
        for ns in 1..=100 {
            r.push(ns);
        }
        assert_eq!(r.thresholds, Some([70, 90, 99]));
    }
}
