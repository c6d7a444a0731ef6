//! `reproduce venice`: Nadig et al., *Venice: Improving Solid-State Drive Parallelism at Low
//! Cost via Conflict-Free Accesses*, ISCA 2023 (spec 06-venice-gc-bypass.md): Venice's mesh
//! against the shared channel bus, on the paper's metrics.
//!
//! - Devices: the paper's performance-optimised SSD is the `venice` preset (Z-NAND: tR 3 µs,
//!   tPROG 100 µs, tBERS 1 ms; 64 chips, an 8 × 8 mesh, 8 controller ports). The
//!   cost-optimised one is the same organisation with 3D TLC timing ([`TLC_TIMING`]: the
//!   paper evaluates Z-NAND and 3D TLC devices, but which parameters make its cost-optimised
//!   baseline is not in what flashtail has of it). Both start 80 % occupied (the workload's
//!   footprint first), set here. GC is `base` (blocking) on every path.
//! - Workloads: MSR Cambridge traces from `--trace-dir` by their usual names (`hm_0`,
//!   `src1_0`, and in the full run every other MSR volume found, [`MSR`]); without them,
//!   `hm_0` is the bundled 1,000-request sample looped on fresh addresses. A generated
//!   uniform 4-16 KiB mix (`bench-ref`, 30k IOPS) widens the average, as the paper averages
//!   over "a wide range of workloads" (`mesh_cell::inputs`).
//! - Host: closed loop (8 queues × depth 8, timing ignored, as MQSim's NVMe queues keep the
//!   device busy) for the first-try share and the speed-up; open loop at the trace's timing
//!   (the sample 20× faster) for p99.
//! - Metrics: the share of transfers whose first reservation found a conflict-free path
//!   (mesh) or a free channel (bus); speed-up = Venice's IOPS over the bus's on the same
//!   requests (for a fixed request set, the inverse of the execution-time ratio), averaged
//!   over the workloads; p99 of all I/O.
//!
//! Not reproduced here: the paper's other baselines (pSSD, NoSSD, ...), its energy model,
//! MQSim's own timing; the paper's traces at full length unless the user has them.

use super::claim::{mean, Claim, Expect};
use super::mesh_cell::{self, find, first_try, iops, Host, Input, Path, Run};
use super::runs::{ratio, Workload};
use super::{verdict_summary, Options, Outcome, Paper, ReproError};
use crate::config::{overrides::apply_device, presets, DeviceConfig};

pub const PAPER: Paper = Paper {
    name: "venice",
    title: "Venice (Nadig et al., ISCA 2023): first-try conflict-free paths, speed-up and p99 of Venice's mesh over the shared channel bus, on Z-NAND (performance-optimised) and 3D TLC (cost-optimised) devices",
    full_time: "20 s wall (12 runs of 200k requests: hm_0 sample and the generated mix, bus and Venice, Z-NAND closed and open loop, TLC closed loop), measured on the shared 2-core VM",
    quick_time: "10 s wall (the same 12 runs with 100k requests), measured on the shared 2-core VM",
    run,
};

/// 3D TLC timing of the cost-optimised device: tR 45 µs and tPROG 660 µs (Samsung's 48-layer
/// TLC as published beside its Z-NAND), tBERS 3.5 ms (assumed).
pub const TLC_TIMING: [&str; 3] = ["timing.read_ns=[45000]", "timing.program_ns=[660000]", "timing.erase_ns=3500000"];

/// MSR Cambridge volumes the full run uses when `--trace-dir` has them.
pub const MSR: [&str; 12] = ["hm_0", "src1_0", "rsrch_0", "hm_1", "prn_0", "proj_0", "usr_0", "web_0", "mds_0", "stg_0", "ts_0", "wdev_0"];

/// The performance-optimised device label and the cost-optimised one.
const ZNAND: &str = "z-nand";
const TLC: &str = "tlc";

/// The `venice` preset (Z-NAND), or with [`TLC_TIMING`]; 80 % occupied, set here.
pub fn device(tlc: bool) -> Result<DeviceConfig, ReproError> {
    let d = presets::load("venice").map_err(ReproError::Config)?;
    let mut sets: Vec<String> = vec!["precondition.model=workload".into(), "precondition.occupancy=0.8".into()];
    if tlc {
        sets.extend(TLC_TIMING.iter().map(|s| s.to_string()));
    }
    apply_device(&d, &sets).map_err(ReproError::Config)
}

fn run(opts: &Options, log: &mut dyn FnMut(&str)) -> Result<Outcome, ReproError> {
    let znand = device(false)?;
    let tlc = device(true)?;
    let names: &[&str] = if opts.quick { &["src1_0"] } else { &MSR };
    let ins = mesh_cell::inputs(opts.trace_dir.as_deref(), names, &znand, opts.quick)?;
    let paths = [Path::Bus, Path::Venice];
    let mut runs: Vec<Run> = Vec::new();
    for i in &ins {
        for (dev, d, hosts) in [(ZNAND, &znand, &[Host::CLOSED, Host::Open][..]), (TLC, &tlc, &[Host::CLOSED][..])] {
            for &h in hosts {
                log(&format!("Venice reproduction: {dev}, {}, {} ({} paths)", i.name, h.label(), paths.len()));
                runs.extend(mesh_cell::run("Venice reproduction", dev, d, i, h, &paths, opts)?);
            }
        }
    }
    let setup = format!(
        "Setup: the venice device (8 x 8 mesh, 8 host ports; 64 chips x 2 planes, 16 GiB) with Z-NAND timing, and with 3D TLC timing (tR 45 us, tPROG 660 us, tBERS 3.5 ms) as the cost-optimised device; 80 % occupied; base (blocking) GC on every path. Closed loop: 8 queues x depth 8, timing ignored; open loop at the trace's timing. Seed {}; integrity oracle on.",
        opts.seed
    );
    let mut text = mesh_cell::preamble(PAPER.title, &setup, &ins, &runs);
    let claims = claims(&runs, &ins);
    text.push_str("\n== Paper vs flashtail (Venice over the bus; flashtail = mean over the workloads run) ==\n");
    text.push_str(&super::claim::claims_table(&claims));
    text.push('\n');
    text.push_str(&verdict_summary(&claims));
    Ok(Outcome { text, claims, files: Vec::new() })
}

/// Mean over the inputs of `f` on `dev` / `host` / `path`.
fn avg(runs: &[Run], ins: &[Input], dev: &str, host: Host, path: Path, f: impl Fn(&crate::stats::RunReport) -> f64) -> Option<f64> {
    mean(ins.iter().filter_map(|i| find(runs, dev, &i.name, host, path)).map(f))
}

/// Mean over the inputs of Venice's `f` over the bus's.
fn avg_ratio(runs: &[Run], ins: &[Input], dev: &str, host: Host, f: fn(&crate::stats::RunReport) -> f64) -> Option<f64> {
    mean(ins.iter().filter_map(|i| Some(ratio(f(find(runs, dev, &i.name, host, Path::Venice)?), f(find(runs, dev, &i.name, host, Path::Bus)?)))))
}

fn claims(runs: &[Run], ins: &[Input]) -> Vec<Claim> {
    let over = format!("closed loop 8x8, Z-NAND; mean over {}", ins.iter().map(|i| i.name.as_str()).collect::<Vec<_>>().join(", "));
    let open = |p: Path| avg(runs, ins, ZNAND, Host::Open, p, first_try).map_or("—".into(), |v| format!("{:.1} %", 100.0 * v));
    let p99 = |r: &crate::stats::RunReport| r.all.p99_ns as f64;
    let one = |w: &str| {
        let v = Some(ratio(p99(find(runs, ZNAND, w, Host::Open, Path::Venice)?), p99(find(runs, ZNAND, w, Host::Open, Path::Bus)?)));
        v.filter(|v| v.is_finite())
    };
    let sample = ins.iter().any(|i| i.name == "hm_0" && matches!(i.workload, Workload::Hm0Sample(_)));
    vec![
        Claim::new(
            "V1",
            "Venice: I/Os with a conflict-free path on the first try",
            "evaluation",
            Expect::Near { value: 0.9998, tol: 0.005 },
            avg(runs, ins, ZNAND, Host::CLOSED, Path::Venice, first_try),
            format!("{over}; open loop {}. The mesh has as many host ports as the bus has channels, and every transfer crosses one: under load the ports and the target chip's own link, not the mesh links, are what a scout finds taken", open(Path::Venice)),
        ),
        Claim::new(
            "V2",
            "baselines: first-try conflict-free share 76-81 %",
            "evaluation",
            Expect::Near { value: 0.785, tol: 0.035 },
            avg(runs, ins, ZNAND, Host::CLOSED, Path::Bus, first_try),
            format!("the channel bus; {over}; open loop {}", open(Path::Bus)),
        ),
        Claim::new(
            "V3",
            "speed-up over the performance-optimised baseline (average)",
            "abstract",
            Expect::Ratio { lo: 2.65, hi: 2.65 },
            avg_ratio(runs, ins, ZNAND, Host::CLOSED, iops),
            format!("IOPS ratio, {over}. Equal port count and link rate: the mesh adds paths within a channel, not bandwidth at the ports, and Z-NAND's 100 us program keeps planes, not paths, the bottleneck for writes"),
        ),
        Claim::new(
            "V4",
            "speed-up over the cost-optimised baseline (average)",
            "abstract",
            Expect::Ratio { lo: 1.67, hi: 1.67 },
            avg_ratio(runs, ins, TLC, Host::CLOSED, iops),
            "IOPS ratio on the 3D TLC device, closed loop 8x8; with tR 45 us and tPROG 660 us the array, not the transfer path, sets the pace",
        ),
        Claim::new(
            "V5",
            "p99 on hm_0: -22 %",
            "evaluation",
            Expect::Ratio { lo: 0.78, hi: 0.78 },
            one("hm_0"),
            if sample { "all-I/O p99, open loop, Z-NAND; the bundled 1,000-request hm_0 sample looped at 20x speed, not the full trace" } else { "all-I/O p99, open loop at the trace's timing, Z-NAND" },
        ),
        Claim::new("V6", "p99 on src1_0: -32 %", "evaluation", Expect::Ratio { lo: 0.68, hi: 0.68 }, one("src1_0"), "all-I/O p99, open loop, Z-NAND; needs src1_0 in --trace-dir (not bundled)"),
    ]
}
