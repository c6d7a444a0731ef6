//! What the RL-GC agent learns, on workloads small enough for CI:
//! - a phased workload (sparse phases with 15-45 ms gaps, dense ones with 2-6 ms gaps) on a
//!   one-plane device: after training, its greedy action right after a request in a dense
//!   phase is no GC, it still spends long gaps on GC, and its p99 write latency is well
//!   under Lazy-RTGC's (which copies 2 pages after every write, dense phase or not);
//! - a workload without idle time: it stays within a stated factor of Lazy-RTGC;
//! - requests arriving together invoke the agent once.
//!
//! Known gap to the paper (see docs/rlgc.md): at p99.99 the agent is *worse* than
//! Lazy-RTGC here; the bound below pins today's behaviour so a regression shows.
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
        let s = qtable::state(1_000_000, qtable::CUR_EDGES_NS[bin - 1], 0, 10, 100_000);
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
            let s = qtable::state(1_000_000, qtable::CUR_EDGES_NS[bin - 1], pa, 10, 100_000);
            greedy.push(argmax(&q[s]) as f64);
        }
    }
    let mean = greedy.iter().sum::<f64>() / greedy.len() as f64;
    assert!(mean >= 3.0, "greedy actions in long gaps: {greedy:?}");

    // Replay a fresh trace of the same kind with the trained table (ε = 0.01 throughout).
    let test = phased(30_000, 200, 30_000_000, 200, 4_000_000, &dev, 0.6, 2);
    let p = Params {
        explore_actions: 0,
        ..Default::default()
    };
    let mut agent = RlGc::new(p, false, 1);
    agent.q.q = q.concat();
    let mut s = flashtail::gc::build_scheme("rlgc", None, 1).unwrap();
    s.gc = Box::new(agent);
    let trained = Simulation::new(dev.clone(), s, opts(1))
        .unwrap()
        .run(&mut VecSource::new(test.clone()))
        .unwrap();
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
    assert!(
        2 * trained.writes.p99_ns < lazy.writes.p99_ns,
        "{} vs {}",
        trained.writes.p99_ns,
        lazy.writes.p99_ns
    );
    // p99.99: the big tasks it runs after the first request of a dense phase (which looks
    // like any request after a long gap) delay the second one; measured 7.0 vs 3.6 ms.
    assert!(
        trained.writes.p99_99_ns < 3 * lazy.writes.p99_99_ns,
        "{} vs {}",
        trained.writes.p99_99_ns,
        lazy.writes.p99_99_ns
    );
    // Similar erase counts (the paper: about equal to Lazy-RTGC).
    let e = trained.flash.erases as f64 / lazy.flash.erases as f64;
    assert!((0.85..=1.1).contains(&e), "erase ratio {e}");
}

#[test]
fn without_idle_time_it_stays_within_a_factor_two_of_lazy_rtgc() {
    // 8 KiB writes every 0.45-1.35 ms, 2 planes: no idle time to exploit.
    let dev = small_128gb(64, 32);
    let reqs = phased(30_000, 1, 900_000, 1, 900_000, &dev, 0.6, 1);
    let lazy = run(&dev, "lazy-rtgc", reqs.clone(), 1);
    let rl = run(&dev, "rlgc", reqs, 1);
    eprintln!(
        "no idle: write p99.99 rlgc {} µs, lazy-rtgc {} µs",
        rl.writes.p99_99_ns / 1000,
        lazy.writes.p99_99_ns / 1000
    );
    assert_eq!(rl.integrity.violations, 0);
    assert!(
        rl.writes.p99_99_ns <= 2 * lazy.writes.p99_99_ns,
        "{} vs {}",
        rl.writes.p99_99_ns,
        lazy.writes.p99_99_ns
    );
    assert!(
        rl.writes.p99_ns <= 2 * lazy.writes.p99_ns,
        "{} vs {}",
        rl.writes.p99_ns,
        lazy.writes.p99_ns
    );
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
            (r.offset + 8192 * 7) % (dev.logical_bytes() / 2),
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
