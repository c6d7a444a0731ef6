//! What the RL-GC agent learns, on workloads small enough for CI:
//! - a phased workload (sparse phases with 15-45 ms gaps, dense ones with 2-6 ms gaps) on a
//!   one-plane device where Lazy-RTGC keeps up: after training, its greedy action right after
//!   a dense-phase request is no GC and its p99 is well under Lazy-RTGC's; at p99.99 it is
//!   *worse* (the big task after the first request of a dense phase, which looks like any
//!   request after a long gap; the bound pins today's behaviour);
//! - the default agent, trained, in the regime the paper describes (a steady-state device
//!   where Lazy-RTGC falls behind and keeps running intensive GC, phased home1 workload):
//!   it spends long gaps on GC, rarely needs intensive GC, and its p99.9 and p99.99 are less
//!   than half Lazy-RTGC's (why: docs/rlgc.md);
//! - the paper's stochastic policy on a one-plane variant: the same outcome, and its cause
//!   (near-uniform task sizes, mean ~5 copies);
//! - a workload without idle time: it stays within a stated factor of Lazy-RTGC;
//! - requests arriving together invoke the agent once.
mod gc_partial_support;
use flashtail::gc::partial::{qtable, rlgc::RlGc, Params};
use flashtail::{HostRequest, Nanos, Op, Simulation, VecSource};
use gc_partial_support::*;

fn one_plane() -> flashtail::DeviceConfig {
    let mut dev = small_128gb(64, 32);
    dev.geometry.planes_per_die = 1;
    dev
}

fn q_of(r: &flashtail::RunReport) -> Vec<Vec<f64>> {
    r.scheme_details["q_table"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            row.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        })
        .collect()
}

fn argmax(row: &[f64]) -> usize {
    row.iter()
        .enumerate()
        .fold((0, f64::MIN), |b, (i, &x)| if x > b.1 { (i, x) } else { b })
        .0
}

#[test]
fn trained_agent_keeps_dense_phases_free_of_gc_and_uses_long_gaps() {
    let dev = one_plane();
    let train = phased(60_000, 200, 30_000_000, 200, 4_000_000, &dev, 0.6, 1);
    let r = run(&dev, "rlgc", train, 1);
    assert_eq!(r.integrity.violations, 0);
    let q = q_of(&r);
    assert_eq!((q.len(), q[0].len()), (68, 11));
    // ε = 0.8 for the first 1000 decisions, 0.01 after: explorations within 4σ of that.
    let (dec, exp) = (
        r.scheme_details["decisions"].as_f64().unwrap(),
        r.scheme_details["explorations"].as_f64().unwrap(),
    );
    let mean = 800.0 + 0.01 * (dec - 1000.0);
    let sd = (1000.0 * 0.8 * 0.2 + (dec - 1000.0) * 0.01 * 0.99_f64).sqrt();
    assert!(
        (exp - mean).abs() < 4.0 * sd,
        "{exp} explorations in {dec} decisions (expected {mean:.0} ± {sd:.0})"
    );
    // Dense phase: gaps of 2-6 ms are current-interval bins 8-10; the previous interval is
    // long (>= 100 µs) and the previous action small. Greedy there: no GC at all.
    for bin in 8..=10 {
        let s = qtable::state(&qtable::CUR_EDGES_NS, 1_000_000, qtable::CUR_EDGES_NS[bin - 1], 0, 10, 100_000);
        let visits = r.scheme_details["state_visits"][s].as_u64().unwrap();
        if visits < 200 {
            continue;
        }
        let row = &q[s];
        assert_eq!(
            argmax(row),
            0,
            "state {s} (bin {bin}, {visits} visits): {row:?}"
        );
        let best_other = row[1..].iter().cloned().fold(f64::MIN, f64::max);
        assert!(row[0] > best_other + 0.3, "state {s}: {row:?}");
    }
    // Sparse phase (15-45 ms, bins 12-14): GC there costs nothing, and the greedy choice
    // is on average well above Lazy-RTGC's 2 copies.
    let mut greedy = Vec::new();
    for bin in 12..=14 {
        for pa in [0, 10] {
            let s = qtable::state(&qtable::CUR_EDGES_NS, 1_000_000, qtable::CUR_EDGES_NS[bin - 1], pa, 10, 100_000);
            greedy.push(argmax(&q[s]) as f64);
        }
    }
    let mean = greedy.iter().sum::<f64>() / greedy.len() as f64;
    assert!(mean >= 3.0, "greedy actions in long gaps: {greedy:?}");

    // Replay a fresh trace of the same kind with the trained table (ε = 0.01 throughout).
    let test = phased(30_000, 200, 30_000_000, 200, 4_000_000, &dev, 0.6, 2);
    let trained = replay_with_table(&dev, "rlgc", q.concat(), test.clone(), 1);
    let lazy = run(&dev, "lazy-rtgc", test, 1);
    eprintln!(
        "write p99 / p99.99 (µs): trained rlgc {} / {}, lazy-rtgc {} / {}",
        trained.writes.p99_ns / 1000,
        trained.writes.p99_99_ns / 1000,
        lazy.writes.p99_ns / 1000,
        lazy.writes.p99_99_ns / 1000
    );
    assert_eq!(trained.integrity.violations, 0);
    // p99: ~0.72 ms (a bare write) against Lazy-RTGC's ~2.2 ms.
    assert_tail_ratio(&trained, &lazy, |r| r.writes.p99_ns, (1, 2), true);
    // p99.99: the big tasks it runs after the first request of a dense phase (which looks
    // like any request after a long gap) delay the second one; measured 7.0 vs 3.6 ms.
    assert_tail_ratio(&trained, &lazy, |r| r.writes.p99_99_ns, (3, 1), true);
    // Similar erase counts (the paper: about equal to Lazy-RTGC).
    let e = trained.flash.erases as f64 / lazy.flash.erases as f64;
    assert!((0.85..=1.1).contains(&e), "erase ratio {e}");
}

/// Replay `test` with a trained Q-table (ε = 0.01 throughout); `scheme` may carry overrides.
fn replay_with_table(
    dev: &flashtail::DeviceConfig,
    scheme: &str,
    q: Vec<f64>,
    test: Vec<HostRequest>,
    seed: u64,
) -> flashtail::RunReport {
    let mut p = Params {
        explore_actions: 0,
        ..Default::default()
    };
    if let Some((_, spec)) = scheme.split_once(':') {
        p.apply("rlgc", spec).unwrap();
    }
    let mut agent = RlGc::new(p, false, seed);
    agent.q.q = q;
    let mut s = flashtail::gc::build_scheme("rlgc", None, seed).unwrap();
    s.gc = Box::new(agent);
    Simulation::new(dev.clone(), s, opts(seed))
        .unwrap()
        .run(&mut VecSource::new(test))
        .unwrap()
}

/// Train on `train`, then replay `test` with the trained table.
fn train_then_replay(
    dev: &flashtail::DeviceConfig,
    scheme: &str,
    train: Vec<HostRequest>,
    test: Vec<HostRequest>,
    seed: u64,
) -> (flashtail::RunReport, flashtail::RunReport) {
    let trained_on = run(dev, scheme, train, seed);
    let replay = replay_with_table(dev, scheme, q_of(&trained_on).concat(), test, seed);
    (trained_on, replay)
}

/// `num/den` bounds the ratio of `a`'s latency (`key`) to `b`'s: a < b × num / den (or <= when
/// `strict` is false), in integer arithmetic.
fn assert_tail_ratio(
    a: &flashtail::RunReport,
    b: &flashtail::RunReport,
    key: impl Fn(&flashtail::RunReport) -> u64,
    (num, den): (u64, u64),
    strict: bool,
) {
    let (x, y) = (key(a) * den, key(b) * num);
    assert!(
        if strict { x < y } else { x <= y },
        "{} vs {} (bound {num}/{den})",
        key(a),
        key(b)
    );
}

/// Print the two runs' write tails, intensive entries and erases; check both kept the data.
fn compare_tails(rl: &flashtail::RunReport, lazy: &flashtail::RunReport) {
    let ms = |x: u64| x as f64 / 1e6;
    let tails = |r: &flashtail::RunReport| {
        format!(
            "{:.1} / {:.1} / {:.1}",
            ms(r.writes.p99_ns),
            ms(r.writes.p99_9_ns),
            ms(r.writes.p99_99_ns)
        )
    };
    eprintln!(
        "write p99 / p99.9 / p99.99 (ms): rlgc {}, lazy-rtgc {}; intensive entries {} vs {}; erases {} vs {}",
        tails(rl),
        tails(lazy),
        intensive_entries(rl),
        intensive_entries(lazy),
        rl.flash.erases,
        lazy.flash.erases
    );
    assert_eq!((rl.integrity.violations, lazy.integrity.violations), (0, 0));
}

/// Decision states after a request whose current interval fell in `bins` (previous interval
/// long, either previous action), with how often each was visited.
fn states_after(
    r: &flashtail::RunReport,
    bins: std::ops::RangeInclusive<usize>,
) -> Vec<(usize, u64)> {
    let mut v = Vec::new();
    for bin in bins {
        for prev_action in [0, 10] {
            let s = qtable::state(
                &qtable::CUR_EDGES_NS,
                1_000_000,
                qtable::CUR_EDGES_NS[bin - 1],
                prev_action,
                10,
                100_000,
            );
            v.push((s, r.scheme_details["state_visits"][s].as_u64().unwrap()));
        }
    }
    v
}

fn intensive_entries(r: &flashtail::RunReport) -> u64 {
    let d = &r.scheme_details;
    let t = if d["runner"].is_null() {
        &d["tasks"]
    } else {
        &d["runner"]["tasks"]
    };
    t["intensive_entries"].as_u64().unwrap()
}

/// Expected task size when the agent draws ∝ Q in state `s` (negative Q counts as 0).
fn expected_action(row: &[f64]) -> f64 {
    let w: Vec<f64> = row.iter().map(|&q| q.max(0.0)).collect();
    let total: f64 = w.iter().sum();
    w.iter().enumerate().map(|(a, x)| a as f64 * x).sum::<f64>() / total
}

/// The issue's claim, in the regime the paper describes (its Fig. 9: Lazy-RTGC "retains 3 or
/// 4 free blocks" and so keeps running intensive GC): the RL-GC 128 Gb device shrunk to
/// 2 planes × 128 blocks × 128 pages, preconditioned to steady state (90 % of the logical
/// space valid, free blocks at the GC threshold), and the paper's home1 row (99 % writes of
/// 8 KiB, mean interval 85.6 ms) as alternating phases of 100 requests: dense ones 2.5-7.5 ms
/// apart, sparse ones 83-249 ms apart. Lazy-RTGC's 2 copies per write fall behind, and its
/// intensive 7-copy tasks queue up in the dense phases. The agent (default: ε-greedy) is
/// trained on 100 000 requests, then replays a fresh 50 000 with its table. Measured
/// (seed 1, 24 Nov 2026): write p99 / p99.9 / p99.99 7.5 / 13.6 / 27.6 ms vs Lazy-RTGC's
/// 27.4 / 94.5 / 131.6 ms; intensive entries 7 vs 86; erases 3420 vs 3196.
///
/// Where the gain comes from (docs/rlgc.md): the reward cannot tell task sizes apart after
/// a long gap (every size earns the same), so there the greedy choice is whichever Q-value
/// noise put on top — but any size costs nothing there, and on average it is far above
/// Lazy-RTGC's 2 copies; after dense-phase requests it has learned smaller tasks.
#[test]
fn trained_agent_beats_lazy_rtgc_at_p99_99_where_lazy_rtgc_falls_behind() {
    let mut dev = small_128gb(128, 128);
    dev.precondition = flashtail::config::Precondition::Steady {
        fill: 0.9,
        free_blocks_margin: 1,
    };
    let home1 = |n: usize, seed: u64| {
        let mut w = OnOff::table1("home1", n, seed).phased(100, 5_000_000.0);
        w.footprint = 0.9;
        w.generate(&dev)
    };
    let (trained_on, rl) =
        train_then_replay(&dev, "rlgc", home1(100_000, 1), home1(50_000, 101), 1);
    let lazy = run(&dev, "lazy-rtgc", home1(50_000, 101), 1);
    compare_tails(&rl, &lazy);
    // After a request that came >= 63 ms after the previous one (current-interval bins 15
    // and 16: sparse-phase gaps), the greedy task, weighted by how often each such state was
    // seen, is larger than Lazy-RTGC's 2 copies: the long gaps are spent on GC.
    let q = q_of(&trained_on);
    let (mut copies, mut seen) = (0.0, 0.0);
    for (s, visits) in states_after(&trained_on, 15..=16) {
        copies += (argmax(&q[s]) as u64 * visits) as f64;
        seen += visits as f64;
    }
    assert!(seen > 10_000.0, "{seen} decisions after long gaps");
    assert!(
        copies / seen > 2.0,
        "mean greedy task after a long gap: {:.2}",
        copies / seen
    );
    // The mechanism: it rarely needs intensive GC, Lazy-RTGC again and again.
    assert!(
        4 * intensive_entries(&rl) < intensive_entries(&lazy),
        "intensive entries {} vs {}",
        intensive_entries(&rl),
        intensive_entries(&lazy)
    );
    // The result: the tail is less than half Lazy-RTGC's, at p99.9 and p99.99 ...
    assert_tail_ratio(&rl, &lazy, |r| r.writes.p99_99_ns, (1, 2), true);
    assert_tail_ratio(&rl, &lazy, |r| r.writes.p99_9_ns, (1, 2), true);
    // ... for a few more erases (it collects fuller victims earlier).
    let e = rl.flash.erases as f64 / lazy.flash.erases as f64;
    assert!((1.0..=1.15).contains(&e), "erase ratio {e:.3}");
}

/// The paper's stochastic policy (`policy=proportional`) in the same kind of regime, on a
/// one-plane device with 32-page blocks: phases of 100 writes 75-225 ms apart alternate with
/// phases of 100 writes 2.5-7.5 ms apart, 90 % of the space written, so that Lazy-RTGC's
/// 2 copies per write cannot keep up and it keeps falling into intensive GC (7-copy tasks
/// after every write, ~6.3 ms, which queue up in the dense phases). The trained agent spends
/// the long gaps on GC, never needs intensive GC, and its tail is shorter. Measured (seed 1): write p99.99 31.8 vs 50.1 ms, p99.9 28.6 vs
/// 41.7 ms, intensive entries 0 vs 101, erases 3025 vs 2377.
///
/// What this does *not* show (docs/rlgc.md): that the gain comes from learned timing. Its
/// Q-values differ by ~10 % between task sizes, so ∝ Q draws sizes almost uniformly (mean
/// ~5 copies, in dense phases too); a fixed 4-copy Lazy-RTGC task (`lazy-rtgc:copies=4`)
/// gives 8.9 ms at p99.99 on the same trace, idle-es 12.8 ms.
#[test]
fn stochastic_policy_spends_long_gaps_on_gc_and_beats_lazy_rtgc_at_p99_99() {
    let dev = one_plane();
    let train = phased(60_000, 100, 150_000_000, 100, 5_000_000, &dev, 0.9, 1);
    let test = phased(30_000, 100, 150_000_000, 100, 5_000_000, &dev, 0.9, 101);
    let (trained_on, rl) =
        train_then_replay(&dev, "rlgc:policy=proportional", train, test.clone(), 1);
    let lazy = run(&dev, "lazy-rtgc", test, 1);
    compare_tails(&rl, &lazy);
    // After a request 75-225 ms after the previous one (current-interval bins 14-16) the
    // task it draws is, on average, more than twice Lazy-RTGC's 2 copies.
    let q = q_of(&trained_on);
    let sparse: Vec<f64> = states_after(&trained_on, 14..=16)
        .into_iter()
        .filter(|&(_, visits)| visits >= 100)
        .map(|(s, _)| expected_action(&q[s]))
        .collect();
    assert!(sparse.len() >= 2, "long-gap states visited: {sparse:?}");
    let mean_sparse = sparse.iter().sum::<f64>() / sparse.len() as f64;
    assert!(
        mean_sparse > 4.0,
        "expected task after a long gap: {sparse:?}"
    );
    // The mechanism: no intensive GC for the agent, Lazy-RTGC in it again and again.
    assert!(
        intensive_entries(&rl) <= 5 && intensive_entries(&lazy) >= 50,
        "intensive entries {} vs {}",
        intensive_entries(&rl),
        intensive_entries(&lazy)
    );
    // The result: a shorter tail at p99.9 and p99.99.
    assert_tail_ratio(&rl, &lazy, |r| r.writes.p99_99_ns, (9, 10), true);
    assert_tail_ratio(&rl, &lazy, |r| r.writes.p99_9_ns, (9, 10), true);
}

/// Without idle time the agent is *worse* than Lazy-RTGC, not "no worse" as the issue
/// expected: measured p99.99 35.1 vs 20.1 ms here (1.75x); after training on 60 000 requests
/// and replaying a fresh trace, 82 vs 19 ms (58 ms with ε = 0; `q_init=0`, α = 0.1 or a
/// 10 000-sample reward window do not close it). Every state looks the same under a steady
/// load, the reward thresholds follow the backlog the agent's own large tasks build, and its
/// table never settles on small tasks (docs/rlgc.md). This bound pins today's behaviour.
#[test]
fn without_idle_time_it_stays_within_a_factor_two_of_lazy_rtgc() {
    // 8 KiB writes every 0.45-1.35 ms, 2 planes: no idle time to exploit.
    let dev = small_128gb(64, 32);
    let reqs = phased(30_000, 1, 900_000, 1, 900_000, &dev, 0.6, 1);
    let lazy = run(&dev, "lazy-rtgc", reqs.clone(), 1);
    let rl = run(&dev, "rlgc", reqs, 1);
    compare_tails(&rl, &lazy);
    assert_tail_ratio(&rl, &lazy, |r| r.writes.p99_99_ns, (2, 1), false);
    assert_tail_ratio(&rl, &lazy, |r| r.writes.p99_ns, (2, 1), false);
}

#[test]
fn requests_arriving_together_invoke_the_agent_once() {
    let dev = small_128gb(64, 32);
    // Pairs of writes at the same instant, pairs 3 ms apart.
    let base = phased(8_000, 1, 3_000_000, 1, 3_000_000, &dev, 0.6, 4);
    let mut reqs = Vec::new();
    for r in base {
        let twin = HostRequest::new(
            Nanos(r.arrival.0),
            (r.offset + 8192 * 7) % (dev.host_bytes() / 2),
            8192,
            Op::Write,
        );
        reqs.push(r);
        reqs.push(twin);
    }
    let r = run(&dev, "rlgc", reqs, 1);
    let d = &r.scheme_details;
    assert_eq!(d["zero_gap_requests"], 8_000);
    let decisions = d["decisions"].as_u64().unwrap();
    assert!(decisions > 1_000 && decisions <= 8_000, "{decisions}");
    assert_eq!(
        d["action_histogram"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .sum::<u64>(),
        decisions
    );
    assert_eq!(
        d["state_visits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_u64().unwrap())
            .sum::<u64>(),
        decisions
    );
    // Every decision but the first of a chain (chains break when no plane needs GC)
    // updates the previous one: measured 2209 updates for 2469 decisions.
    let updates = d["q_updates"].as_u64().unwrap();
    assert!(
        updates < decisions && 10 * updates >= 8 * decisions,
        "{updates} updates, {decisions} decisions"
    );
}
