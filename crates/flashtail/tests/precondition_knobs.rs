//! The starting state's knobs mean what users think (`precondition.model = "workload"`):
//! at a fixed occupancy and workload, more spare flash (over-provisioning) never makes GC
//! work harder; at a fixed over-provisioning, more data (occupancy) never makes it lighter.
//! On the bundled DTRS slice, replayed without folding: the device (the demo device's
//! artifact timing, GC at 10 % free) holds the trace's whole address range (137 GiB) at
//! every over-provisioning swept, so every point replays the very same requests.
//!
//! Also: the footprint is written first (no read finds a never-written page), and a
//! scheme's numbers do not depend on which other schemes it is compared with.

use flashtail::config::{presets, DeviceConfig};
use flashtail::host::RequestSource;
use flashtail::runner::{run_many, run_opened, RunSpec};
use flashtail::trace::{self, ReplayOptions, TraceOptions};
use flashtail::RunReport;

fn device(op: f64, occupancy: f64) -> DeviceConfig {
    let mut d = presets::load("dtrs-demo").unwrap();
    d.geometry.blocks_per_plane = 4096;
    d.ftl.over_provisioning = op;
    d.ftl.gc_soft_threshold = 0.10;
    d.ftl.gc_hard_threshold = 0.05;
    let sets = [format!("precondition.occupancy={occupancy}")];
    let d = flashtail::config::overrides::apply_device(&d, &sets).unwrap();
    d.validate().unwrap();
    d
}

fn opener(dev: &DeviceConfig) -> impl Fn() -> Result<Box<dyn RequestSource + Send>, String> + Sync {
    let (cap, page) = (dev.host_bytes(), u64::from(dev.geometry.page_size));
    move || Ok(trace::replay(trace::embedded::dtrs(&TraceOptions::default()), &ReplayOptions::default(), cap, page))
}

fn spec(dev: &DeviceConfig, scheme: &str) -> RunSpec {
    flashtail::job::RunSettings { oracle: false, ..Default::default() }.spec(dev, scheme)
}

fn base(op: f64, occupancy: f64) -> RunReport {
    let dev = device(op, occupancy);
    let r = run_opened(&spec(&dev, "base"), &opener(&dev), None).unwrap();
    assert_eq!(r.workload_notes["replay_wrapped"], "0", "OP {op}: the trace must fit the device unfolded");
    r
}

/// (WAF, GC pages, erases) of each point.
fn work(r: &RunReport) -> (f64, u64, u64) {
    (r.flash.waf, r.flash.gc_pages_programmed, r.flash.erases)
}

fn assert_monotone(name: &str, xs: &[f64], runs: &[RunReport], rising: bool) {
    let w: Vec<(f64, u64, u64)> = runs.iter().map(work).collect();
    for (k, pair) in w.windows(2).enumerate() {
        let (a, b) = (pair[0], pair[1]);
        let ok = if rising { b.0 >= a.0 && b.1 >= a.1 && b.2 >= a.2 } else { b.0 <= a.0 && b.1 <= a.1 && b.2 <= a.2 };
        assert!(ok, "{name} {} -> {}: (WAF, GC pages, erases) {a:?} -> {b:?}; all points: {w:?}", xs[k], xs[k + 1]);
    }
    // And the knob does something over the range swept.
    let (first, last) = (w[0], w[w.len() - 1]);
    assert!(if rising { last.1 > first.1 } else { last.1 < first.1 }, "{name}: no effect over {xs:?}: {w:?}");
}

#[test]
fn more_over_provisioning_never_raises_gc_work() {
    let ops = [0.07, 0.14, 0.21, 0.28];
    let runs: Vec<RunReport> = ops.iter().map(|&op| base(op, 0.7)).collect();
    for r in &runs {
        let occ = r.config["precondition"]["occupancy"].as_f64().unwrap();
        assert!((occ - 0.7).abs() < 0.002, "occupancy {occ}");
    }
    assert_monotone("over-provisioning", &ops, &runs, false);
}

#[test]
fn more_occupancy_never_lowers_gc_work() {
    let occs = [0.5, 0.6, 0.7, 0.8, 0.9];
    let runs: Vec<RunReport> = occs.iter().map(|&o| base(0.10, o)).collect();
    assert_monotone("occupancy", &occs, &runs, true);
}

/// The footprint is written first: with footprint = "touched" no read finds a page without
/// data; with "none" the same occupancy leaves most of the slice's reads on empty pages,
/// and those are answered from the mapping table (no flash read).
#[test]
fn the_footprint_is_written_first() {
    let dev = device(0.10, 0.6);
    let r = run_opened(&spec(&dev, "nogc"), &opener(&dev), None).unwrap();
    let x = |r: &RunReport, k: &str| r.flash.extra[k];
    assert_eq!(x(&r, "unwritten_reads"), 0);
    assert!(x(&r, "host_page_reads") > 1_500_000);
    let fp = r.config["precondition"]["footprint_pages"].as_u64().unwrap();
    assert!(fp > 1_000_000 && fp < x(&r, "host_page_reads"), "footprint {fp}");
    assert!(flashtail::report::run_warnings(&r).is_empty(), "{:?}", flashtail::report::run_warnings(&r));

    let none = flashtail::config::overrides::apply_device(&dev, &["precondition.footprint=\"none\"".into()]).unwrap();
    let r2 = run_opened(&spec(&none, "nogc"), &opener(&none), None).unwrap();
    let share = x(&r2, "unwritten_reads") as f64 / x(&r2, "host_page_reads") as f64;
    assert!((0.3..0.5).contains(&share), "unwritten share {share}");
    let w = flashtail::report::run_warnings(&r2);
    assert!(w.iter().any(|w| w.contains("hold no data") && w.contains("mapping table")), "{w:?}");
    // Answered without a flash read: reads get faster, not slower.
    assert!(r2.reads.mean_ns < r.reads.mean_ns, "{} vs {}", r2.reads.mean_ns, r.reads.mean_ns);
}

/// One host capacity per device: `base` gives the same report alone and beside RAIN schemes.
#[test]
fn a_scheme_reports_the_same_alone_and_in_any_comparison() {
    let mut dev = presets::load("dtrs-demo").unwrap();
    dev.geometry.blocks_per_plane = 256;
    let open = opener(&dev);
    let json = |r: &RunReport| {
        let mut r = r.clone();
        r.cost.strip_machine();
        serde_json::to_string(&r).unwrap()
    };
    let alone = json(&run_opened(&spec(&dev, "base"), &open, None).unwrap());
    for set in [vec!["nogc", "base"], vec!["base", "ttflash-rgc", "ttflash"]] {
        let specs: Vec<RunSpec> = set.iter().map(|s| spec(&dev, s)).collect();
        let runs = run_many(&specs, &open, &[]);
        let i = set.iter().position(|s| *s == "base").unwrap();
        let beside = json(runs[i].as_ref().unwrap());
        assert!(alone == beside, "base alone and in {set:?} differ");
    }
}
