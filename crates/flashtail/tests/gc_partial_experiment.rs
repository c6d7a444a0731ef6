//! The RL-GC experiment (not run in CI): both RL-GC presets, shrunk to `BLOCKS` blocks per
//! plane so an empty device fills and GC runs within a few hundred thousand requests;
//! write-heavy on/off workloads following RL-GC Table 1 (home1, home2, webmail, oltp);
//! every scheme's write p99 / p99.9 / p99.99 and erase count normalised to lazy-rtgc; the
//! RL schemes over 10 seeds (mean and standard deviation of the normalised values).
//!
//! cargo test --release -p flashtail --test gc_partial_experiment -- --ignored --nocapture
//! (env: BLOCKS=256 REQUESTS=400000 SEEDS=10 OUT=path.md ROWS="home1 oltp"
//! PRESETS=rlgc-128gb SHORT_US=1000: in-burst gap, keeping the row's mean interval;
//! SCHEMES="rlgc idle-es" (compared with lazy-rtgc); GEN=1: the project generator's
//! rlgc-* presets instead of the on/off generator of gc_partial_support;
//! FOOTPRINT=0.6 HOT=0.8: share of the logical space written, share of writes to its hot fifth)
mod gc_partial_support;
use flashtail::config::presets;
use flashtail::RunReport;
use gc_partial_support::*;

fn env<T: std::str::FromStr>(k: &str, d: T) -> T {
    std::env::var(k)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(d)
}

struct Row {
    p99: f64,
    p999: f64,
    p9999: f64,
    erases: f64,
    /// Intensive-mode entries (absolute).
    igc: f64,
}

fn igc(r: &RunReport) -> u64 {
    let d = &r.scheme_details;
    let t = if d["runner"].is_null() {
        &d["tasks"]
    } else {
        &d["runner"]["tasks"]
    };
    t["intensive_entries"].as_u64().unwrap_or(0)
}

fn norm(r: &RunReport, l: &RunReport) -> Row {
    Row {
        p99: r.writes.p99_ns as f64 / l.writes.p99_ns as f64,
        p999: r.writes.p99_9_ns as f64 / l.writes.p99_9_ns as f64,
        p9999: r.writes.p99_99_ns as f64 / l.writes.p99_99_ns as f64,
        erases: r.flash.erases as f64 / l.flash.erases.max(1) as f64,
        igc: igc(r) as f64,
    }
}

fn mean_sd(x: &[f64]) -> (f64, f64) {
    let m = x.iter().sum::<f64>() / x.len() as f64;
    let v = x.iter().map(|a| (a - m) * (a - m)).sum::<f64>() / (x.len().max(2) - 1) as f64;
    (m, v.sqrt())
}

/// The project generator's `rlgc-<row>` preset over the whole logical space (oltp: Poisson
/// at 1250 IOPS instead of the table's 84 µs interval, which would overload the device).
fn project_generator(
    row: &str,
    dev: &flashtail::DeviceConfig,
    n: usize,
) -> Vec<flashtail::HostRequest> {
    use flashtail::workload::{preset, Arrival, Generator};
    use flashtail::RequestSource;
    let mut cfg = preset(&format!("rlgc-{row}"))
        .expect("generator preset")
        .with_span(dev.logical_bytes())
        .with_count(n as u64)
        .with_seed(11);
    if row == "oltp" {
        cfg.arrival = Arrival::Poisson { iops: 1250.0 };
    }
    let mut g = Generator::new(cfg).expect("valid generator config");
    let mut v = Vec::with_capacity(n);
    while let Some(r) = g.next_request().expect("generator") {
        v.push(r);
    }
    v
}

#[test]
#[ignore]
fn rlgc_experiment() {
    let blocks: u32 = env("BLOCKS", 256);
    let n: usize = env("REQUESTS", 400_000);
    let seeds: u64 = env("SEEDS", 10);
    let mut out = String::new();
    out += &format!("Devices shrunk to {blocks} blocks/plane (paper: 2731 / 2874), empty at start, host-write reserve 1 block; {n} requests per run; RL schemes over seeds 1..={seeds}.\n\n");
    let schemes: Vec<String> = std::env::var("SCHEMES")
        .unwrap_or("rlgc rlgc-aggressive idle-ma idle-es".into())
        .split_whitespace()
        .map(String::from)
        .collect();
    let presets_env = std::env::var("PRESETS").unwrap_or("rlgc-128gb rlgc-512gb".into());
    for preset in presets_env.split_whitespace() {
        let mut dev = presets::load(preset).unwrap();
        dev.geometry.blocks_per_plane = blocks;
        dev.ftl.gc_reserved_blocks = 1;
        dev.precondition = flashtail::config::Precondition::None;
        out += &format!("### {preset}\n\n| workload | scheme | p99 | p99.9 | p99.99 | erases | IGC entries | lazy-rtgc p99 / p99.9 / p99.99 (ms), erases, IGC entries |\n|---|---|---|---|---|---|---|---|\n");
        let rows: Vec<String> = std::env::var("ROWS")
            .unwrap_or("home1 home2 webmail oltp".into())
            .split_whitespace()
            .map(String::from)
            .collect();
        for row in rows.iter().map(|r| r.as_str()) {
            let mut w = OnOff::table1(row, n, 11);
            if let (Ok(us), true) = (std::env::var("SHORT_US"), w.p_long > 0.0) {
                // Re-split the same mean interval with another in-burst gap.
                let mean = (1.0 - w.p_long) * w.short_ns + w.p_long * w.long_ns;
                w.short_ns = us.parse::<f64>().unwrap() * 1e3;
                w.long_ns = (mean - (1.0 - w.p_long) * w.short_ns) / w.p_long;
            }
            w.footprint = env("FOOTPRINT", w.footprint);
            w.hot_share = env("HOT", w.hot_share);
            let reqs = if std::env::var("GEN").is_ok() {
                project_generator(row, &dev, n)
            } else {
                w.generate(&dev)
            };
            let lazy = run(&dev, "lazy-rtgc", reqs.clone(), 1);
            let ms = |x: u64| x as f64 / 1e6;
            let lazy_txt = format!(
                "{:.2} / {:.2} / {:.2}, {}, {}",
                ms(lazy.writes.p99_ns),
                ms(lazy.writes.p99_9_ns),
                ms(lazy.writes.p99_99_ns),
                lazy.flash.erases,
                igc(&lazy)
            );
            eprintln!(
                "{preset} {row} lazy {lazy_txt} (writes {}, gc moves {})",
                lazy.writes.count, lazy.flash.gc_pages_migrated
            );
            for scheme in schemes.iter().map(|s| s.as_str()) {
                let k = if scheme.starts_with("rlgc") { seeds } else { 1 };
                let rs: Vec<Row> = std::thread::scope(|sc| {
                    let hs: Vec<_> = (1..=k)
                        .collect::<Vec<_>>()
                        .chunks(k.div_ceil(2) as usize)
                        .map(|ch| {
                            let (dev, reqs, lazy, ch) = (&dev, &reqs, &lazy, ch.to_vec());
                            sc.spawn(move || {
                                ch.into_iter()
                                    .map(|s| norm(&run(dev, scheme, reqs.clone(), s), lazy))
                                    .collect::<Vec<Row>>()
                            })
                        })
                        .collect();
                    hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
                });
                let f = |g: fn(&Row) -> f64| {
                    let (m, sd) = mean_sd(&rs.iter().map(g).collect::<Vec<f64>>());
                    if k > 1 {
                        format!("{m:.2} ± {sd:.2}")
                    } else {
                        format!("{m:.2}")
                    }
                };
                let igc_mean = rs.iter().map(|r| r.igc).sum::<f64>() / rs.len() as f64;
                let line = format!(
                    "| {row} | {scheme} | {} | {} | {} | {} | {igc_mean:.0} | {lazy_txt} |\n",
                    f(|r| r.p99),
                    f(|r| r.p999),
                    f(|r| r.p9999),
                    f(|r| r.erases)
                );
                eprint!("{line}");
                out += &line;
            }
        }
        out += "\n";
    }
    println!("{out}");
    if let Ok(p) = std::env::var("OUT") {
        std::fs::write(p, &out).unwrap();
    }
}
