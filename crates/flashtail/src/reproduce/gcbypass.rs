//! `reproduce gc-bypass`: Nie et al., *GC bypass: decoupling GC from the flash translation
//! layer to eliminate GC-induced long-tail latency inside SSD*, 2026 (seed 000; spec
//! 06-venice-gc-bypass.md): Baseline (the shared channel bus), Venice and GC bypass under the
//! same GC, on the paper's metrics, with the write-back parking ablation.
//!
//! - Device: the `venice` preset (Z-NAND, 8 × 8 mesh, 8 host ports, 8 GC controller ports),
//!   80 % occupied (the workload's footprint first), set here; GC is `base` (blocking) on
//!   every path. The paper does not publish its device; it builds on Venice's.
//! - Workloads: `rsrch_0` (the paper's RSRCH) and `hm_1` (HM_1) from `--trace-dir` by their
//!   usual names, `hm_0` (the trace, or the bundled 1,000-request sample looped on fresh
//!   addresses) and a generated uniform 4-16 KiB mix at 30k IOPS (`mesh_cell::inputs`). The
//!   paper gives no statistics of its traces, so without them the RSRCH claims are measured
//!   on hm_0 and say so.
//! - Host: open loop at the trace's timing (the sample 20× faster) for latency — end to end,
//!   as the paper reports it, since no request waits in the host — and closed loop (8 queues
//!   × depth 8, timing ignored) for bandwidth.
//! - Metrics: all-I/O p99.99 and mean against Baseline and Venice, bandwidth (MB/s) in closed
//!   loop; reads and writes apart in the table. "Up to" claims take the best workload.
//! - Ablation rows: GC bypass with parking off (`interconnect.gc_bypass_parking = false`: a
//!   write-back waiting for a path holds its plane) and with a GC controller cache of
//!   [`CACHE_PAGES`] pages (`interconnect.gc_cache_pages`).
//!
//! Not reproduced here: the paper's GC controller's own scheduling of write-backs (not
//! published), its other workloads, MQSim's timing.

use super::claim::{Claim, Expect};
use super::mesh_cell::{self, find, Host, Input, Path, Run};
use super::runs::{ratio, Workload};
use super::{verdict_summary, Options, Outcome, Paper, ReproError};
use crate::stats::RunReport;

pub const PAPER: Paper = Paper {
    name: "gc-bypass",
    title: "GC bypass (Nie et al., 2026): all-I/O p99.99, mean latency and bandwidth of GC bypass vs Baseline (channel bus) and Venice, with the write-back parking ablation",
    full_time: "55 s wall (20 runs of 200k requests: hm_0 sample and the generated mix, 5 paths, open and closed loop), measured on the shared 2-core VM",
    quick_time: "30 s wall (the same 20 runs with 100k requests), measured on the shared 2-core VM",
    run,
};

/// The GC controller cache of the ablation row, in pages (64 KiB; the paper gives no size).
pub const CACHE_PAGES: u32 = 16;

const DEV: &str = "z-nand";
const PATHS: [Path; 5] = [Path::Bus, Path::Venice, Path::GcBypass, Path::NoParking, Path::Cache(CACHE_PAGES)];

fn run(opts: &Options, log: &mut dyn FnMut(&str)) -> Result<Outcome, ReproError> {
    let dev = super::venice::device(false)?;
    let ins = mesh_cell::inputs(opts.trace_dir.as_deref(), &["rsrch_0", "hm_1"], &dev, opts.quick)?;
    let mut runs: Vec<Run> = Vec::new();
    for i in &ins {
        for h in [Host::Open, Host::CLOSED] {
            log(&format!("GC bypass reproduction: {}, {} ({} paths)", i.name, h.label(), PATHS.len()));
            runs.extend(mesh_cell::run("GC bypass reproduction", DEV, &dev, i, h, &PATHS, opts)?);
        }
    }
    let setup = format!(
        "Setup: the venice device (Z-NAND, 8 x 8 mesh, 8 host ports, 8 GC controller ports; 64 chips x 2 planes, 16 GiB), 80 % occupied; base (blocking) GC on every path. Baseline = the channel bus. Open loop at the trace's timing for latency; closed loop 8 queues x depth 8, timing ignored, for bandwidth. Seed {}; integrity oracle on.",
        opts.seed
    );
    let mut text = mesh_cell::preamble(PAPER.title, &setup, &ins, &runs);
    text.push_str("\n== Parking ablation: each GC bypass variant over Venice (same workload and host) ==\n");
    text.push_str(&ablation(&runs, &ins));
    let claims = claims(&runs, &ins);
    text.push_str("\n== Paper vs flashtail (GC bypass over each comparator) ==\n");
    text.push_str(&super::claim::claims_table(&claims));
    text.push('\n');
    text.push_str(&verdict_summary(&claims));
    Ok(Outcome { text, claims, files: Vec::new() })
}

fn p9999(r: &RunReport) -> f64 {
    r.all.p99_99_ns as f64
}
fn mean_lat(r: &RunReport) -> f64 {
    r.all.mean_ns
}
fn mbps(r: &RunReport) -> f64 {
    r.throughput.all_mb_per_s
}

/// `path`'s metric over `other`'s on one workload and host (NaN when a run is missing).
fn vs(runs: &[Run], input: &str, host: Host, path: Path, other: Path, f: fn(&RunReport) -> f64) -> f64 {
    match (find(runs, DEV, input, host, path), find(runs, DEV, input, host, other)) {
        (Some(a), Some(b)) => ratio(f(a), f(b)),
        _ => f64::NAN,
    }
}

/// The GC bypass variants over Venice: all-I/O p99.99 and mean, read p99.99 (open loop),
/// MB/s (closed loop).
fn ablation(runs: &[Run], ins: &[Input]) -> String {
    let headers = ["workload", "path", "all p99.99 ×", "all mean ×", "read p99.99 ×", "write p99.99 ×", "MB/s × (closed)", "parked (peak)", "refused by a full cache"];
    let x = |v: f64| if v.is_finite() { format!("{v:.2}") } else { "—".into() };
    let mut rows = Vec::new();
    for i in ins {
        for p in [Path::GcBypass, Path::NoParking, Path::Cache(CACHE_PAGES)] {
            let e = |k: &str| find(runs, DEV, &i.name, Host::Open, p).and_then(|r| r.flash.extra.get(k).copied()).unwrap_or(0);
            rows.push(vec![
                i.name.clone(),
                p.label(),
                x(vs(runs, &i.name, Host::Open, p, Path::Venice, p9999)),
                x(vs(runs, &i.name, Host::Open, p, Path::Venice, mean_lat)),
                x(vs(runs, &i.name, Host::Open, p, Path::Venice, |r| r.reads.p99_99_ns as f64)),
                x(vs(runs, &i.name, Host::Open, p, Path::Venice, |r| r.writes.p99_99_ns as f64)),
                x(vs(runs, &i.name, Host::CLOSED, p, Path::Venice, mbps)),
                format!("{} ({})", e("mesh_parked_write_backs"), e("mesh_max_parked_write_backs")),
                e("mesh_cache_full_write_backs").to_string(),
            ]);
        }
    }
    crate::report::render_rows(&headers, rows)
}

/// The best (lowest for latency, highest for bandwidth) of GC bypass's ratios over the
/// workloads, and the workload it came from.
fn best(runs: &[Run], ins: &[Input], host: Host, other: Path, f: fn(&RunReport) -> f64, lower: bool) -> (Option<f64>, String) {
    let mut b: Option<(f64, &str)> = None;
    for i in ins {
        let v = vs(runs, &i.name, host, Path::GcBypass, other, f);
        if v.is_finite() && b.is_none_or(|(bv, _)| if lower { v < bv } else { v > bv }) {
            b = Some((v, &i.name));
        }
    }
    (b.map(|(v, _)| v), b.map_or(String::new(), |(_, w)| w.to_string()))
}

fn claims(runs: &[Run], ins: &[Input]) -> Vec<Claim> {
    let rsrch = if ins.iter().any(|i| i.name == "rsrch_0") { "rsrch_0" } else { "hm_0" };
    let sample = ins.iter().any(|i| i.name == "hm_0" && matches!(i.workload, Workload::Hm0Sample(_)));
    let on = if rsrch == "rsrch_0" {
        "rsrch_0, open loop".to_string()
    } else {
        format!("RSRCH not in --trace-dir: measured on {}, open loop", if sample { "the bundled hm_0 sample at 20x speed" } else { "hm_0" })
    };
    let tail_note = |other: Path| {
        let np = vs(runs, rsrch, Host::Open, Path::NoParking, other, p9999);
        let why = if vs(runs, rsrch, Host::Open, Path::GcBypass, other, p9999) > 1.0 {
            ". Low-priority write-back is preempted and each victim frees later, so writes wait longer for free space, and the slowest 0.01 % are writes"
        } else {
            ""
        };
        format!("{on}; without parking {}{why}", if np.is_finite() { format!("{np:.2}x") } else { "—".into() })
    };
    let one = |other: Path| {
        let v = vs(runs, rsrch, Host::Open, Path::GcBypass, other, p9999);
        v.is_finite().then_some(v)
    };
    let mut out = vec![
        Claim::new("G1", "RSRCH all-I/O p99.99 vs Baseline: -62.7 %", "Experiments, latency CDFs", Expect::Ratio { lo: 0.373, hi: 0.373 }, one(Path::Bus), tail_note(Path::Bus)),
        Claim::new("G2", "RSRCH all-I/O p99.99 vs Venice: -25.2 %", "Experiments, latency CDFs", Expect::Ratio { lo: 0.748, hi: 0.748 }, one(Path::Venice), tail_note(Path::Venice)),
    ];
    for (id, what, other, v) in [("G3", "mean end-to-end latency vs Baseline: up to -62 %", Path::Bus, 0.38), ("G4", "mean end-to-end latency vs Venice: up to -26 %", Path::Venice, 0.74)] {
        let (b, w) = best(runs, ins, Host::Open, other, mean_lat, true);
        let np = vs(runs, &w, Host::Open, Path::NoParking, other, mean_lat);
        let why = if b.is_some_and(|b| b < 1.0) && np >= 1.0 { ": the gain is parking's, which lets a GC'ing plane serve reads while its write-back waits" } else { "" };
        out.push(Claim::new(id, what, "Experiments, normalised delay", Expect::Ratio { lo: v, hi: v }, b, format!("best workload ({w}), open loop; without parking {np:.2}x{why}")));
    }
    for (id, what, other, v) in [("G5", "bandwidth vs Baseline: up to 3.1x", Path::Bus, 3.1), ("G6", "bandwidth vs Venice: up to 1.3x", Path::Venice, 1.3)] {
        let (b, w) = best(runs, ins, Host::CLOSED, other, mbps, false);
        let np = vs(runs, &w, Host::CLOSED, Path::NoParking, other, mbps);
        out.push(Claim::new(id, what, "Experiments, normalised bandwidth", Expect::Ratio { lo: v, hi: v }, b, format!("best workload ({w}), closed loop 8x8 MB/s; without parking {np:.2}x")));
    }
    out
}
