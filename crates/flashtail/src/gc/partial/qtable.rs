//! RL-GC's tabular Q-learning (paper §4.2, §5.2, Table 3): the 68-state encoding, the
//! Q-table with its update Q(s,a) ← (1−α)Q(s,a) + α[r + γQ(s',a')], and ε-greedy choice.
//!
//! State = previous inter-request interval (2 bins, split at 100 µs) × current interval
//! (17 bins: < 100 µs, then five log-spaced bins per decade up to 100 ms, then ≥ 100 ms —
//! our reading of Table 3, whose middle columns are unreadable) × previous action (2 bins:
//! below half the largest action, or not). The bin edges are integer nanoseconds so runs
//! do not depend on floating-point `pow`. A second set of edges, [`LEGIBLE_EDGES_NS`], keeps
//! every edge Table 3 shows legibly (< 100 µs, < 500 µs, > 100 ms) and spaces the rest
//! logarithmically between 500 µs and 100 ms (`rlgc:bins=legible`). No GC logic lives here.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Lower edges (ns) of current-interval bins 1..=16: 100 µs × 10^(k/5), k = 0..=15.
pub const CUR_EDGES_NS: [u64; 16] = [
    100_000,
    158_489,
    251_189,
    398_107,
    630_957,
    1_000_000,
    1_584_893,
    2_511_886,
    3_981_072,
    6_309_573,
    10_000_000,
    15_848_932,
    25_118_864,
    39_810_717,
    63_095_734,
    100_000_000,
];
/// Lower edges (ns) of current-interval bins 1..=16 with Table 3's legible edges: 100 µs,
/// then 500 µs × 200^(k/14), k = 0..=14 (500 µs … 100 ms).
pub const LEGIBLE_EDGES_NS: [u64; 16] = [
    100_000, 500_000, 730_011, 1_065_832, 1_556_137, 2_271_994, 3_317_160, 4_843_125, 7_071_068, 10_323_912, 15_073_134,
    22_007_102, 32_130_845, 46_911_728, 68_492_137, 100_000_000,
];
pub const CUR_BINS: usize = 17;
pub const STATES: usize = 2 * CUR_BINS * 2;

/// Current-interval bin: the number of edges at or below the interval.
pub fn cur_bin(interval_ns: u64) -> usize {
    cur_bin_with(&CUR_EDGES_NS, interval_ns)
}

/// Current-interval bin under the given edges.
pub fn cur_bin_with(edges: &[u64; 16], interval_ns: u64) -> usize {
    edges
        .iter()
        .take_while(|&&e| e <= interval_ns)
        .count()
}

/// State index in 0..68.
pub fn state(
    edges: &[u64; 16],
    prev_interval_ns: u64,
    cur_interval_ns: u64,
    prev_action: u32,
    max_action: u32,
    prev_split_ns: u64,
) -> usize {
    let p = usize::from(prev_interval_ns >= prev_split_ns);
    let a = usize::from(2 * prev_action >= max_action.max(1));
    (p * CUR_BINS + cur_bin_with(edges, cur_interval_ns)) * 2 + a
}

/// Q-values, row-major `[state][action]`, all starting at `init`.
#[derive(Clone, Debug, PartialEq)]
pub struct QTable {
    pub actions: usize,
    pub q: Vec<f64>,
    pub alpha: f64,
    pub gamma: f64,
}

impl QTable {
    pub fn new(actions: usize, alpha: f64, gamma: f64, init: f64) -> QTable {
        QTable {
            actions,
            q: vec![init; STATES * actions],
            alpha,
            gamma,
        }
    }

    pub fn get(&self, s: usize, a: usize) -> f64 {
        self.q[s * self.actions + a]
    }

    pub fn set(&mut self, s: usize, a: usize, v: f64) {
        self.q[s * self.actions + a] = v;
    }

    /// Q(s,a) ← (1−α)Q(s,a) + α[r + γQ(s',a')] (SARSA-style: a' is the action actually
    /// taken next, as in the paper's Algorithm 1 line 9).
    pub fn update(&mut self, s: usize, a: usize, r: f64, s2: usize, a2: usize) {
        let target = r + self.gamma * self.get(s2, a2);
        let v = (1.0 - self.alpha) * self.get(s, a) + self.alpha * target;
        self.set(s, a, v);
    }

    /// ε-greedy: a uniformly random action with probability ε, else the best one (ties
    /// broken uniformly at random, so an untrained row does not always pick action 0).
    /// Returns (action, explored).
    pub fn choose(&self, s: usize, eps: f64, rng: &mut ChaCha8Rng) -> (usize, bool) {
        if rng.gen::<f64>() < eps {
            return (rng.gen_range(0..self.actions), true);
        }
        let row = &self.q[s * self.actions..(s + 1) * self.actions];
        let best = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let ties = row.iter().filter(|&&v| v == best).count();
        let k = if ties > 1 { rng.gen_range(0..ties) } else { 0 };
        let a = row
            .iter()
            .enumerate()
            .filter(|(_, &v)| v == best)
            .nth(k)
            .map(|(i, _)| i)
            .unwrap_or(0);
        (a, false)
    }

    /// The paper's stochastic policy: a uniformly random action with probability ε, else
    /// one drawn with probability ∝ max(Q(s,a), 0) (uniform if no value is positive).
    pub fn choose_proportional(&self, s: usize, eps: f64, rng: &mut ChaCha8Rng) -> (usize, bool) {
        if rng.gen::<f64>() < eps {
            return (rng.gen_range(0..self.actions), true);
        }
        let row = &self.q[s * self.actions..(s + 1) * self.actions];
        let total: f64 = row.iter().map(|&v| v.max(0.0)).sum();
        if total <= 0.0 {
            return (rng.gen_range(0..self.actions), false);
        }
        let mut x = rng.gen::<f64>() * total;
        for (a, &v) in row.iter().enumerate() {
            x -= v.max(0.0);
            if x < 0.0 {
                return (a, false);
            }
        }
        // Rounding left a sliver: the last action with positive weight.
        (row.iter().rposition(|&v| v > 0.0).unwrap_or(0), false)
    }

    /// Rows as nested vectors (for the JSON report).
    pub fn rows(&self) -> Vec<Vec<f64>> {
        self.q.chunks(self.actions).map(|r| r.to_vec()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn bins_cover_68_states() {
        assert_eq!(cur_bin(0), 0);
        assert_eq!(cur_bin(99_999), 0);
        assert_eq!(cur_bin(100_000), 1);
        assert_eq!(cur_bin(999_999), 5);
        assert_eq!(cur_bin(1_000_000), 6);
        assert_eq!(cur_bin(99_999_999), 15);
        assert_eq!(cur_bin(100_000_000), 16);
        assert_eq!(cur_bin(u64::MAX), 16);
        let e = &CUR_EDGES_NS;
        assert_eq!(state(e, 0, 0, 0, 10, 100_000), 0);
        assert_eq!(state(e, 0, 0, 5, 10, 100_000), 1);
        assert_eq!(state(e, 0, 0, 4, 10, 100_000), 0);
        assert_eq!(state(e, 100_000, u64::MAX, 10, 10, 100_000), STATES - 1);
        // Table 3's legible edges: < 100 µs, 100-500 µs, ..., >= 100 ms.
        let l = &LEGIBLE_EDGES_NS;
        assert_eq!((cur_bin_with(l, 99_999), cur_bin_with(l, 499_999), cur_bin_with(l, 500_000)), (0, 1, 2));
        assert_eq!((cur_bin_with(l, 99_999_999), cur_bin_with(l, 100_000_000)), (15, 16));
        assert!(l.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(STATES, 68);
    }

    #[test]
    fn update_arithmetic_by_hand() {
        let mut t = QTable::new(3, 0.3, 0.8, 0.0);
        // From zero: 0.7·0 + 0.3·(1 + 0.8·0) = 0.3.
        t.update(4, 1, 1.0, 9, 2);
        assert!((t.get(4, 1) - 0.3).abs() < 1e-12);
        // 0.7·0.3 + 0.3·(−0.5 + 0.8·0.5) = 0.21 − 0.03 = 0.18.
        t.set(9, 2, 0.5);
        t.update(4, 1, -0.5, 9, 2);
        assert!((t.get(4, 1) - 0.18).abs() < 1e-12, "{}", t.get(4, 1));
        // Self-loop uses the old value: 0.7·0.18 + 0.3·(0.5 + 0.8·0.18) = 0.126 + 0.1932.
        t.update(4, 1, 0.5, 4, 1);
        assert!((t.get(4, 1) - 0.3192).abs() < 1e-12, "{}", t.get(4, 1));
        // Nothing else moved.
        assert_eq!(t.q.iter().filter(|&&v| v != 0.0).count(), 2);
    }

    #[test]
    fn greedy_picks_best_and_epsilon_explores() {
        let mut t = QTable::new(4, 0.3, 0.8, 0.0);
        t.set(7, 2, 0.9);
        t.set(7, 3, 0.1);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        for _ in 0..50 {
            assert_eq!(t.choose(7, 0.0, &mut rng), (2, false));
        }
        let explored = (0..10_000).filter(|_| t.choose(7, 0.8, &mut rng).1).count();
        assert!((7_700..8_300).contains(&explored), "{explored}");
        // Ties in an untrained row are spread over all actions.
        let mut seen = [0u32; 4];
        for _ in 0..400 {
            seen[t.choose(0, 0.0, &mut rng).0] += 1;
        }
        assert!(seen.iter().all(|&c| c > 50), "{seen:?}");
    }

    #[test]
    fn proportional_policy_follows_positive_q() {
        let mut t = QTable::new(4, 0.3, 0.8, 0.0);
        t.set(3, 1, 1.0);
        t.set(3, 2, 3.0);
        t.set(3, 3, -2.0);
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let mut seen = [0u32; 4];
        for _ in 0..8000 {
            seen[t.choose_proportional(3, 0.0, &mut rng).0] += 1;
        }
        // Expected 0 / 2000 / 6000 / 0.
        assert_eq!((seen[0], seen[3]), (0, 0), "{seen:?}");
        assert!((1800..2200).contains(&seen[1]), "{seen:?}");
    }
}
