//! Side by side with the ttFlash artifact (ucare-uchicago/tinyTailFlash 40f3386, the SSDsim
//! fork behind Tiny-Tail Flash, FAST'17, built outside this repository): its figures for its
//! five configurations (`nogc`, `def`, `pbl`, `gtr`, `rgc`) on two traces are test data
//! (`tests/data/ttflash_artifact/`, obtained as its `how` field and `docs/validation.md`
//! say), and flashtail's `ttflash` preset replays the very same requests, each configuration
//! beside the scheme named in the data, aged to the artifact's free pages per plane, behind
//! the artifact's host (at most 32 requests outstanding, latency from the trace arrival) and
//! with the `--set`s the data names (the artifact's 64 MiB write buffer).
//!
//! Targets (`docs/validation.md`): NoGC read p50 / p99 / p99.9 within 5 %; per configuration
//! read p99 / p99.9 / p99.99 within 25 %; the configurations in the artifact's order of read
//! p99; GC victims and valid pages moved per victim within 10 %. Where flashtail does not
//! meet a target yet, [`known_gap`] and [`known_order`] hold what is measured now, so a
//! change that widens a gap fails here and one that closes it only asks for the entry to go.
//! `cargo test --release -p flashtail --test ttflash_validation -- --nocapture` prints the
//! table of artifact and flashtail values and their ratios.

use flashtail::config::{overrides, presets};
use flashtail::host::{ClosedLoop, IssueTiming};
use flashtail::job::{RunSettings, Workload};
use flashtail::runner::run_opened;
use flashtail::trace::{Format, ReplayOptions, TraceOptions};
use flashtail::RunReport;
use serde_json::Value;
use std::path::PathBuf;

const DATA: &str = include_str!("data/ttflash_artifact/artifact-40f3386.json");

/// The artifact's configurations, in the order the table prints them.
const CONFIGS: [&str; 5] = ["nogc", "def", "pbl", "gtr", "rgc"];

fn data(trace: &str) -> Value {
    let all: Value = serde_json::from_str(DATA).unwrap();
    all["traces"][trace].clone()
}

/// The workload of `trace` as the artifact ran it (the same requests, written from
/// flashtail's replay of it).
fn workload(trace: &str, t: &Value) -> Workload {
    let replay = ReplayOptions {
        loops: t["replay"]["loops"].as_u64().unwrap() as u32,
        time_scale: t["replay"]["time_scale"].as_f64().unwrap(),
        ..Default::default()
    };
    match trace {
        "dtrs" => Workload::Trace { path: None, read: TraceOptions::default(), replay },
        "tpcc30" => {
            let path = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/ttflash_artifact/tpcc-small.mqsim.zst"));
            Workload::Trace { path: Some(path), read: TraceOptions { format: Some(Format::Mqsim), ..Default::default() }, replay }
        }
        _ => unreachable!(),
    }
}

/// The artifact's host (SSDsim's `queue_length`): at most 32 requests outstanding, the rest
/// wait in the host, and latency counts from the trace arrival.
const ARTIFACT_HOST: ClosedLoop = ClosedLoop { queue_depth: 32, queues: 1, timing: IssueTiming::Arrival };

/// flashtail's run beside one artifact configuration: the `ttflash` preset, aged with the
/// configuration's `flashtail_ratio` and not settled (the artifact collects from where its
/// aging leaves each plane), behind the artifact's host queue. The oracle is off: the integrity of these schemes is checked
/// by the tests that exercise them, and it would double the memory of a 256 GB device.
fn run(trace: &str, t: &Value, config: &str) -> RunReport {
    let c = &t["configs"][config];
    let ratio = c["flashtail_ratio"].as_f64().unwrap();
    let scheme = c["flashtail_scheme"].as_str().unwrap();
    let mut sets = vec![format!("precondition.ratio={ratio}"), "precondition.settle=false".to_string()];
    // Settings the data names for this configuration (the artifact's write buffer).
    sets.extend(c["flashtail_sets"].as_array().into_iter().flatten().filter_map(|v| v.as_str().map(String::from)));
    let dev = overrides::apply_device(&presets::load("ttflash").unwrap(), &sets).unwrap();
    let open = workload(trace, t).opener(&dev, dev.host_bytes()).unwrap();
    let settings = RunSettings { oracle: false, closed_loop: Some(ARTIFACT_HOST), ..Default::default() };
    run_opened(&settings.spec(&dev, scheme), &open, None).unwrap_or_else(|e| panic!("{trace} {config} ({scheme}): {e}"))
}

/// (metric, flashtail, artifact) for one configuration.
fn metrics(r: &RunReport, a: &Value) -> Vec<(&'static str, f64, f64)> {
    let us = |ns: u64| ns as f64 / 1e3;
    let per_gc = |moved: u64, victims: u64| if victims == 0 { 0.0 } else { moved as f64 / victims as f64 };
    let f = |k: &str| a[k].as_f64().unwrap_or(0.0);
    vec![
        ("read p50", us(r.reads.p50_ns), f("read_p50_us")),
        ("read p99", us(r.reads.p99_ns), f("read_p99_us")),
        ("read p99.9", us(r.reads.p99_9_ns), f("read_p99_9_us")),
        ("read p99.99", us(r.reads.p99_99_ns), f("read_p99_99_us")),
        ("read max", us(r.reads.max_ns), f("read_max_us")),
        ("write p50", us(r.writes.p50_ns), f("write_p50_us")),
        ("write p99", us(r.writes.p99_ns), f("write_p99_us")),
        ("GC victims", r.flash.gc_runs as f64, f("gc_victims")),
        ("moved per victim", per_gc(r.flash.gc_pages_migrated, r.flash.gc_runs), f("valid_pages_moved_per_gc")),
        ("erases", r.flash.erases as f64, f("erases")),
    ]
}

/// The ratio flashtail / artifact measured now (2 % outward) where flashtail misses the
/// target: the ratio may move towards 1 (and past it, up to the target), not further away.
/// `None`: the target holds. `docs/validation.md` ("Why they differ") explains each gap.
fn known_gap(trace: &str, config: &str, metric: &str) -> Option<f64> {
    Some(match (trace, config, metric) {
        // The TPC-C no-GC median is 8 % below the artifact's (not traced yet).
        ("tpcc30", "nogc", "read p50") => 0.90, // measured 0.919
        // Blocking GC on DTRS: flashtail's victims hold 14 % fewer valid pages (below), so
        // its channel holds are 14 % shorter and its host queue drains after fewer victims.
        // (With the pages moved through the controller, 1,045 us each, so that a victim lasts
        // as long as the artifact's, p99.9 / p99.99 were 0.84 / 0.97.) On TPC-C, where the
        // pages per victim agree, def agrees within 11 %.
        ("dtrs", "def", "read p99.9") => 0.39, // measured 0.406
        ("dtrs", "def", "read p99.99") => 0.42, // measured 0.432
        // Non-blocking GC on TPC-C: flashtail's slowest reads wait longer, in the host's queue
        // behind requests held by GC (not traced further; docs/validation.md).
        ("tpcc30", "pbl", "read p99.9") => 1.34, // measured 1.309
        ("tpcc30", "pbl", "read p99.99") => 1.45, // measured 1.423
        ("tpcc30", "gtr", "read p99") => 1.96, // measured 1.923
        ("tpcc30", "gtr", "read p99.9") => 2.25, // measured 2.205
        ("tpcc30", "gtr", "read p99.99") => 2.51, // measured 2.457
        // Rotating GC on TPC-C: flashtail's slowest reads are faster, and it collects more
        // victims (not traced yet).
        ("tpcc30", "rgc", "read p99.9") => 0.73, // measured 0.747
        ("tpcc30", "rgc", "read p99.99") => 0.68, // measured 0.698
        ("tpcc30", "rgc", "GC victims") => 1.22, // measured 1.190
        // The aged victims: the artifact's read footprint sits outside the aged blocks.
        ("dtrs", "def", "moved per victim") => 0.84, // measured 0.862
        ("dtrs", "pbl", "moved per victim") => 0.86, // measured 0.888
        _ => return None,
    })
}

/// The target for one metric: NoGC p50 / p99 / p99.9 within 5 %, read tails within 25 %,
/// GC work within 10 %; `None`: reported, not checked.
fn target(config: &str, metric: &str) -> Option<f64> {
    match metric {
        "read p50" | "read p99" | "read p99.9" if config == "nogc" => Some(0.05),
        "read p99" | "read p99.9" | "read p99.99" => Some(0.25),
        "GC victims" | "moved per victim" if config != "nogc" => Some(0.10),
        _ => None,
    }
}

/// Checks one metric against its target or its known gap; the message names the breach.
fn check(trace: &str, config: &str, metric: &str, ours: f64, theirs: f64) -> Option<String> {
    let tol = target(config, metric)?;
    let ratio = if theirs == 0.0 { if ours == 0.0 { 1.0 } else { f64::INFINITY } } else { ours / theirs };
    let (lo, hi) = match known_gap(trace, config, metric) {
        None => (1.0 - tol, 1.0 + tol),
        Some(g) if g >= 1.0 => (1.0 - tol, g.max(1.0 + tol)),
        Some(g) => (g.min(1.0 - tol), 1.0 + tol),
    };
    (!(lo..=hi).contains(&ratio)).then(|| {
        let why = if known_gap(trace, config, metric).is_some() { "known gap" } else { "target" };
        format!("{trace} {config} {metric}: flashtail {ours:.3}, artifact {theirs:.3}, ratio {ratio:.3} outside {lo:.3}..{hi:.3} ({why})")
    })
}

/// The configurations from fastest to slowest read p99.
fn order(p99: &[(&str, f64)]) -> Vec<String> {
    let mut v = p99.to_vec();
    v.sort_by(|a, b| a.1.total_cmp(&b.1));
    v.into_iter().map(|(c, _)| c.to_string()).collect()
}

/// flashtail's order of read p99 measured now where it differs from the artifact's (on
/// TPC-C its `ttflash-gtr` is 32 % slower than its `ttflash-pbl` at p99, where the artifact's
/// gtr is 17 % faster: the known gaps above).
fn known_order(trace: &str) -> Option<[&'static str; 5]> {
    match trace {
        "tpcc30" => Some(["nogc", "rgc", "pbl", "gtr", "def"]),
        _ => None,
    }
}

fn validate(trace: &str) {
    use std::fmt::Write;
    let t = data(trace);
    let mut breaches = Vec::new();
    let (mut ours_p99, mut theirs_p99) = (Vec::new(), Vec::new());
    // The table is printed in one piece: the two traces' tests run side by side.
    let mut table = format!("\nttFlash artifact vs flashtail, {trace} ({}):\n", t["trace"].as_str().unwrap());
    let _ = writeln!(table, "{:<6} {:<12} {:<17} {:>14} {:>14} {:>8}  check", "config", "scheme", "metric", "artifact", "flashtail", "ratio");
    for config in CONFIGS {
        let a = &t["configs"][config];
        let scheme = a["flashtail_scheme"].as_str().unwrap();
        let r = run(trace, &t, config);
        assert_eq!(r.integrity.requests_completed, r.integrity.requests_submitted, "{trace} {config}: every request completes");
        if config == "nogc" {
            assert_eq!(r.flash.erases, 0, "{trace}: the no-GC counterpart must not reach the GC threshold");
        }
        for (metric, ours, theirs) in metrics(&r, a) {
            let ratio = if theirs == 0.0 { f64::NAN } else { ours / theirs };
            let verdict = match (target(config, metric), check(trace, config, metric, ours, theirs)) {
                (None, _) => "",
                (Some(_), Some(b)) => {
                    breaches.push(b);
                    "FAIL"
                }
                (Some(tol), None) if known_gap(trace, config, metric).is_some() => {
                    if (ratio - 1.0).abs() <= tol {
                        "known gap closed: drop its entry"
                    } else {
                        "known gap"
                    }
                }
                (Some(_), None) => "ok",
            };
            let _ = writeln!(table, "{config:<6} {scheme:<12} {metric:<17} {theirs:>14.3} {ours:>14.3} {ratio:>8.3}  {verdict}");
            if metric == "read p99" {
                ours_p99.push((config, ours));
                theirs_p99.push((config, theirs));
            }
        }
        // Where flashtail's requests waited (in the device; the host's wait for a slot apart).
        let mut causes: Vec<(&String, &u64)> = r.waits.wait_ns_by_cause.iter().filter(|(_, &ns)| ns > 0).collect();
        causes.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let top: Vec<String> = causes.iter().take(4).map(|(c, ns)| format!("{c} {:.1} s", **ns as f64 / 1e9)).collect();
        let host = r.throughput.host_wait_ns as f64 / 1e9;
        let _ = writeln!(table, "{config:<6} {scheme:<12} waits: host {host:.1} s; {}", top.join(", "));
    }
    let (ours, theirs) = (order(&ours_p99), order(&theirs_p99));
    let _ = writeln!(table, "read p99 order, fastest first: artifact {theirs:?}, flashtail {ours:?}");
    println!("{table}");
    let known: Option<Vec<String>> = known_order(trace).map(|k| k.iter().map(|s| s.to_string()).collect());
    match &known {
        _ if ours == theirs => {
            if known.is_some() {
                println!("{trace}: the read p99 order now matches the artifact's: drop its known_order entry");
            }
        }
        Some(k) if *k == ours => {}
        _ => breaches.push(format!("{trace}: flashtail's read p99 order {ours:?}, artifact's {theirs:?}, known {known:?}")),
    }
    assert!(breaches.is_empty(), "{} breaches:\n{}", breaches.len(), breaches.join("\n"));
}

#[test]
fn dtrs_matches_the_artifact() {
    validate("dtrs");
}

#[test]
fn tpcc_matches_the_artifact() {
    validate("tpcc30");
}
