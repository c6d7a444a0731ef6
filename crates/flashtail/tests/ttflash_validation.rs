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

use flashtail::reproduce::ttflash::artifact::{self, Artifact, ArtifactTrace, CONFIGS};
use flashtail::runner::run_opened;
use flashtail::RunReport;

fn data(trace: &str) -> ArtifactTrace {
    Artifact::load().unwrap().trace(trace).unwrap().clone()
}

/// flashtail's run beside one artifact configuration: the `ttflash` preset, aged with the
/// configuration's `flashtail_ratio` and not settled (the artifact collects from where its
/// aging leaves each plane), behind the artifact's host queue. The oracle is off: the integrity of these schemes is checked
/// by the tests that exercise them, and it would double the memory of a 256 GB device.
fn run(trace: &str, t: &ArtifactTrace, config: &str) -> RunReport {
    let c = t.config(config).unwrap();
    let dev = artifact::device(c.flashtail_ratio, &c.flashtail_sets).unwrap();
    let open = artifact::workload(trace, t, None).unwrap().opener(&dev, dev.host_bytes()).unwrap();
    let settings = flashtail::job::RunSettings { oracle: false, closed_loop: Some(artifact::HOST), ..Default::default() };
    run_opened(&settings.spec(&dev, &c.flashtail_scheme), &open, None).unwrap_or_else(|e| panic!("{trace} {config} ({}): {e}", c.flashtail_scheme))
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

/// Checks one metric against its target or its known gap; the message names the breach.
fn check(trace: &str, config: &str, metric: &str, ours: f64, theirs: f64) -> Option<String> {
    let tol = artifact::target(config, metric)?;
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
    let mut table = format!("\nttFlash artifact vs flashtail, {trace} ({}):\n", t.trace);
    let _ = writeln!(table, "{:<6} {:<12} {:<17} {:>14} {:>14} {:>8}  check", "config", "scheme", "metric", "artifact", "flashtail", "ratio");
    for config in CONFIGS {
        let a = t.config(config).unwrap();
        let scheme = a.flashtail_scheme.as_str();
        let r = run(trace, &t, config);
        assert_eq!(r.integrity.requests_completed, r.integrity.requests_submitted, "{trace} {config}: every request completes");
        if config == "nogc" {
            assert_eq!(r.flash.erases, 0, "{trace}: the no-GC counterpart must not reach the GC threshold");
        }
        for artifact::Metric { name: metric, ours, theirs } in artifact::metrics(&r, a) {
            let ratio = if theirs == 0.0 { f64::NAN } else { ours / theirs };
            let verdict = match (artifact::target(config, metric), check(trace, config, metric, ours, theirs)) {
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
    let (ours, theirs) = (artifact::order(&ours_p99), artifact::order(&theirs_p99));
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
