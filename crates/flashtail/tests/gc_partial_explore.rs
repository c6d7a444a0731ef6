//! Diagnostics behind docs/rlgc.md's findings (all `#[ignore]`, not CI): side-by-side runs
//! on small devices (`explore`), the agent's learned Q-table per visited state
//! (`policy_dump`), train-then-replay (`trained`) and one-state sanity check
//! (`sanity_regular`). Knobs by environment: PLANES, DENSE, SPARSE (ns), N, SCHEME(S), GAP.
//!
//! cargo test --release -p flashtail --test gc_partial_explore -- --ignored --nocapture sanity_regular
mod gc_partial_support;
use gc_partial_support::*;

#[test]
#[ignore]
fn explore() {
    let mut dev = small_128gb(64, 32);
    dev.geometry.planes_per_die = env_or("PLANES", 2);
    let dense_gap: u64 = env_or("DENSE", 1_000_000);
    let schemes: Vec<String> = std::env::var("SCHEMES")
        .unwrap_or("lazy-rtgc rlgc rlgc:explore_actions=0 rlgc-aggressive idle-ma".into())
        .split_whitespace()
        .map(String::from)
        .collect();
    let n: usize = env_or("N", 30_000);
    for (name, reqs) in [
        (
            "phased",
            phased(n, 200, 30_000_000, 200, dense_gap, &dev, 0.6, 1),
        ),
        (
            "sparse",
            OnOff {
                requests: n,
                write_pct: 100.0,
                mean_size: 8192.0,
                short_ns: 300_000.0,
                p_long: 0.8,
                long_ns: 20e6,
                footprint: 0.9,
                hot_share: 0.2,
                phase_len: 0,
                seed: 1,
            }
            .generate(&dev),
        ),
        ("noidle", phased(n, 1, 900_000, 1, 900_000, &dev, 0.6, 1)),
    ] {
        for s in &schemes {
            let t = std::time::Instant::now();
            let r = run_counted(&dev, s, reqs.clone(), 1);
            let d = &r.scheme_details;
            eprintln!(
                "{name} {s:16} p99 {:>8} p99.9 {:>8} p99.99 {:>8} mean {:>8.0} erases {:>5} migr {:>6} waf {:.2} counting {} | tasks {} | hist {} | {:.2}s",
                r.writes.p99_ns / 1000, r.writes.p99_9_ns / 1000, r.writes.p99_99_ns / 1000, r.writes.mean_ns / 1000.0,
                r.flash.erases, r.flash.gc_pages_migrated, r.flash.waf,
                d["counting"], d["inner"]["runner"]["tasks"].to_string() + &d["inner"]["tasks"].to_string(),
                d["inner"]["action_histogram"], t.elapsed().as_secs_f64()
            );
        }
    }
}

#[test]
#[ignore]
fn policy_dump() {
    let mut dev = small_128gb(64, 32);
    dev.geometry.planes_per_die = env_or("PLANES", 2);
    let dense_gap: u64 = env_or("DENSE", 1_000_000);
    let scheme = std::env::var("SCHEME").unwrap_or("rlgc".into());
    let n: usize = env_or("N", 30_000);
    let reqs = phased(n, 200, 30_000_000, 200, dense_gap, &dev, 0.6, 1);
    let r = run(&dev, &scheme, reqs, 1);
    let d = &r.scheme_details;
    eprintln!(
        "p99.99 {} decisions {} tasks {} thr {} hist {}",
        r.writes.p99_99_ns / 1000,
        d["decisions"],
        d["runner"]["tasks"],
        d["reward_thresholds_ns"],
        d["action_histogram"]
    );
    let q = d["q_table"].as_array().unwrap();
    for (s, row) in q.iter().enumerate() {
        let v = d["state_visits"][s].as_u64().unwrap();
        if v == 0 {
            continue;
        }
        let row: Vec<f64> = row
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        let best = row
            .iter()
            .cloned()
            .enumerate()
            .fold((0, f64::MIN), |b, (i, x)| if x > b.1 { (i, x) } else { b });
        let rs: Vec<String> = row.iter().map(|x| format!("{x:5.2}")).collect();
        eprintln!(
            "s{s:2} prev{} cur{:2} pa{} visits {v:6} best {} | {}",
            s / 34,
            (s / 2) % 17,
            s % 2,
            best.0,
            rs.join(" ")
        );
    }
}

/// Train on one trace, then replay a fresh trace of the same kind with the trained table.
#[test]
#[ignore]
fn trained() {
    use flashtail::gc::partial::{rlgc::RlGc, Params};
    let mut dev = small_128gb(64, 32);
    dev.geometry.planes_per_die = env_or("PLANES", 1);
    let dense_gap: u64 = env_or("DENSE", 2_500_000);
    let n: usize = env_or("N", 60_000);

    let sparse_gap: u64 = env_or("SPARSE", 30_000_000);
    let test = phased(30_000, 200, sparse_gap, 200, dense_gap, &dev, 0.6, 2);
    let train = phased(n, 200, sparse_gap, 200, dense_gap, &dev, 0.6, 1);
    let scheme = std::env::var("SCHEME").unwrap_or("rlgc".into());
    let r = run(&dev, &scheme, train, 1);
    let q: Vec<f64> = r.scheme_details["q_table"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|row| row.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()))
        .collect();
    let mut p = Params::default();
    let (base, spec) = scheme.split_once(':').unwrap_or((&scheme, ""));
    p.apply(base, spec).unwrap();
    p.explore_actions = 0;
    let mut agent = RlGc::new(p, base == "rlgc-aggressive", 1);
    agent.q.q = q;
    let mut s = flashtail::gc::build_scheme("rlgc", None, 1).unwrap();
    s.gc = Box::new(agent);
    let sim = flashtail::Simulation::new(dev.clone(), s, opts(1)).unwrap();
    let rt = sim
        .run(&mut flashtail::VecSource::new(test.clone()))
        .unwrap();
    let lazy = run(&dev, "lazy-rtgc", test.clone(), 1);
    let fresh = run(&dev, &scheme, test.clone(), 1);
    let ma = run(&dev, "idle-ma", test, 1);
    for (name, x) in [
        ("lazy", &lazy),
        ("fresh rl", &fresh),
        ("trained rl", &rt),
        ("idle-ma", &ma),
    ] {
        eprintln!(
            "{name:12} p99 {:>7} p99.9 {:>7} p99.99 {:>7} erases {}",
            x.writes.p99_ns / 1000,
            x.writes.p99_9_ns / 1000,
            x.writes.p99_99_ns / 1000,
            x.flash.erases
        );
    }
    eprintln!(
        "hist trained {} tasks {}",
        rt.scheme_details["action_histogram"], rt.scheme_details["runner"]["tasks"]
    );
    eprintln!("lazy tasks {}", lazy.scheme_details["tasks"]);
    for (l, f) in [(&lazy, "lazy"), (&rt, "trained")] {
        let pts = &l.cdf_writes.points;
        let tail: Vec<String> = pts
            .iter()
            .rev()
            .take(12)
            .map(|(x, q)| format!("{}:{:.5}", x / 1000, q))
            .collect();
        eprintln!("{f} tail {}", tail.join(" "));
    }
}

#[test]
#[ignore]
fn sanity_regular() {
    let mut dev = small_128gb(64, 32);
    dev.geometry.planes_per_die = 1;
    let gap: u64 = env_or("GAP", 2_000_000);
    let reqs = bursts(30_000, 1, 0, gap, &dev, 0.6, 1);
    let schemes: Vec<String> = std::env::var("SCHEMES")
        .unwrap_or("lazy-rtgc rlgc".into())
        .split_whitespace()
        .map(String::from)
        .collect();
    for s in schemes.iter().map(|s| s.as_str()) {
        let r = run(&dev, s, reqs.clone(), 1);
        let d = &r.scheme_details;
        eprintln!(
            "{s} p99 {} p99.9 {} p99.99 {} mean {}",
            r.writes.p99_ns / 1000,
            r.writes.p99_9_ns / 1000,
            r.writes.p99_99_ns / 1000,
            r.writes.mean_ns / 1000.0
        );
        if s.starts_with("rlgc") {
            eprintln!(
                "hist {} thr {}",
                d["action_histogram"], d["reward_thresholds_ns"]
            );
            for (i, row) in d["q_table"].as_array().unwrap().iter().enumerate() {
                if d["state_visits"][i].as_u64().unwrap() > 0 {
                    let v: Vec<String> = row
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|x| format!("{:.2}", x.as_f64().unwrap()))
                        .collect();
                    eprintln!("s{i} visits {} | {}", d["state_visits"][i], v.join(" "));
                }
            }
        }
    }
}
