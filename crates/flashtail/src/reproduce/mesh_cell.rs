//! The interconnect cell that `reproduce venice` and `reproduce gc-bypass` share: one
//! workload on one device under the same (`base`, blocking) GC, replayed through one host
//! interface, on each transfer path the papers compare — the shared channel bus, Venice's
//! mesh, GC bypass — and GC bypass's ablations (write-back parking off,
//! `interconnect.gc_bypass_parking = false`; a bounded GC controller cache,
//! `interconnect.gc_cache_pages`). Also the papers' metrics read from a run (first-try
//! conflict-free share for the bus and the mesh alike, bandwidth, latencies) and the table
//! of every run.
//!
//! Does not choose workloads, devices or claims (the papers' files do), and judges nothing.

use super::runs::{run_specs, Cell, Workload};
use super::{Options, ReproError};
use crate::config::DeviceConfig;
use crate::host::{ClosedLoop, IssueTiming};
use crate::runner::RunSpec;
use crate::stats::RunReport;
use std::path::Path as FsPath;

/// A transfer path, with GC bypass's ablations.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Path {
    /// One shared bus per channel (the papers' Baseline).
    Bus,
    /// Venice's mesh with path reservation.
    Venice,
    /// GC bypass: the mesh with the GC controller's ports, priorities, preemption and
    /// write-back parking.
    GcBypass,
    /// GC bypass with parking off: a waiting write-back holds its plane.
    NoParking,
    /// GC bypass with a GC controller cache of this many pages.
    Cache(u32),
}

impl Path {
    /// The name in tables.
    pub fn label(self) -> String {
        match self {
            Path::Bus => "bus".into(),
            Path::Venice => "venice".into(),
            Path::GcBypass => "gc-bypass".into(),
            Path::NoParking => "gc-bypass, no parking".into(),
            Path::Cache(n) => format!("gc-bypass, cache {n} pages"),
        }
    }

    fn interconnect(self) -> &'static str {
        match self {
            Path::Bus => "bus",
            Path::Venice => "venice",
            _ => "gc-bypass",
        }
    }

    fn overrides(self) -> Vec<String> {
        match self {
            Path::NoParking => vec!["interconnect.gc_bypass_parking=false".into()],
            Path::Cache(n) => vec![format!("interconnect.gc_cache_pages={n}")],
            _ => Vec::new(),
        }
    }
}

/// How requests enter the device.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Host {
    /// At their trace (or generated) arrival times: latency is end to end.
    Open,
    /// NVMe-style queues, trace timing ignored: the device's bandwidth under saturation.
    Closed(ClosedLoop),
}

impl Host {
    /// The papers' MQSim runs keep NVMe queues; 8 queues of depth 8 (64 outstanding
    /// requests), issuing as soon as a slot frees.
    pub const CLOSED: Host = Host::Closed(ClosedLoop { queue_depth: 8, queues: 8, timing: IssueTiming::Ignore });

    pub fn label(self) -> String {
        match self {
            Host::Open => "open loop".into(),
            Host::Closed(c) => format!("closed {}x{}", c.queue_depth, c.queues),
        }
    }

    fn short(self) -> String {
        match self {
            Host::Open => "open".into(),
            Host::Closed(c) => format!("closed{}x{}", c.queue_depth, c.queues),
        }
    }
}

/// A workload of a reproduction: its name (the MSR trace's), what it is, and where it came
/// from (for the "Workloads" lines).
pub struct Input {
    pub name: String,
    pub workload: Workload,
    pub source: String,
}

/// One run of a cell.
pub struct Run {
    pub device: String,
    pub input: String,
    pub host: Host,
    pub path: Path,
    pub report: RunReport,
}

/// Runs `paths` on `device` (labelled `dev`) with `input` through `host`, in parallel, base
/// GC on each, integrity oracle on, with the options' seed; the report files go to
/// `OUT/DEV-INPUT-HOST/`.
pub fn run(paper: &str, dev: &str, device: &DeviceConfig, input: &Input, host: Host, paths: &[Path], opts: &Options) -> Result<Vec<Run>, ReproError> {
    let seed = opts.seed;
    let closed_loop = match host {
        Host::Open => None,
        Host::Closed(c) => Some(c),
    };
    let mut specs: Vec<RunSpec> = Vec::with_capacity(paths.len());
    for p in paths {
        let d = crate::config::overrides::apply_device(device, &p.overrides()).map_err(ReproError::Config)?;
        let settings = crate::job::RunSettings { seed, oracle: true, interconnect: Some(p.interconnect().into()), closed_loop, ..Default::default() };
        specs.push(settings.spec(&d, "base"));
    }
    let labels: Vec<String> = paths.iter().map(|p| p.label()).collect();
    let title = format!("{paper}: {dev}, {}, {}", input.name, host.label());
    let cell = Cell {
        title,
        device,
        workload: &input.workload,
        schemes: &labels,
        seed,
        oracle: true,
        dir: opts.out.join(format!("{dev}-{}-{}", input.name, host.short())),
        notes: vec![("host interface".into(), host.label()), ("gc".into(), "base (blocking) on every path".into()), ("paths".into(), labels.join(", "))],
    };
    let reports = run_specs(&cell, specs)?;
    Ok(paths.iter().zip(reports).map(|(&path, report)| Run { device: dev.to_string(), input: input.name.clone(), host, path, report }).collect())
}

/// The start of a paper's text: its title, the setup, where each workload came from, and
/// every run's row.
pub fn preamble(title: &str, setup: &str, ins: &[Input], runs: &[Run]) -> String {
    let mut text = format!("{title}\n{setup}\nWorkloads:\n");
    for i in ins {
        text.push_str(&format!("  {}\n", i.source));
    }
    text.push_str("\n== Every run (all I/O unless marked) ==\n");
    text.push_str(&table(runs));
    text
}

/// The run of `path` on `dev` / `input` / `host`, if it was made.
pub fn find<'a>(runs: &'a [Run], dev: &str, input: &str, host: Host, path: Path) -> Option<&'a RunReport> {
    runs.iter().find(|r| r.device == dev && r.input == input && r.host == host && r.path == path).map(|r| &r.report)
}

/// Share of transfers whose first request found a conflict-free path (mesh: the first
/// scout reserved one) or a free channel (bus); NaN when there were none.
pub fn first_try(r: &RunReport) -> f64 {
    let e = |k: &str| r.flash.extra.get(k).copied().unwrap_or(0) as f64;
    let (hit, all) = if r.flash.extra.contains_key("mesh_transfers") { (e("mesh_first_try_paths"), e("mesh_transfers")) } else { (e("bus_first_try_transfers"), e("bus_transfers")) };
    super::runs::ratio(hit, all)
}

/// Requests per second over the run's span (the speed-up's measure).
pub fn iops(r: &RunReport) -> f64 {
    r.throughput.all_iops
}

/// Every run as one table row: latencies in µs (means) and ms (tails), bandwidth, the
/// first-try share, GC bypass's preemptions and parked write-backs, the oracle's verdict.
pub fn table(runs: &[Run]) -> String {
    let headers = [
        "device", "workload", "host", "path", "all mean µs", "all p99 ms", "all p99.99 ms", "read mean µs", "read p99.99 ms", "write mean µs", "write p99.99 ms", "MB/s", "IOPS", "first try", "preempted", "parked (peak)", "violations",
    ];
    let us = |ns: f64| format!("{:.1}", ns / 1e3);
    let ms = |ns: u64| format!("{:.2}", ns as f64 / 1e6);
    let rows = runs
        .iter()
        .map(|x| {
            let r = &x.report;
            let e = |k: &str| r.flash.extra.get(k).copied().unwrap_or(0);
            vec![
                x.device.clone(),
                x.input.clone(),
                x.host.label(),
                x.path.label(),
                us(r.all.mean_ns),
                ms(r.all.p99_ns),
                ms(r.all.p99_99_ns),
                us(r.reads.mean_ns),
                ms(r.reads.p99_99_ns),
                us(r.writes.mean_ns),
                ms(r.writes.p99_99_ns),
                format!("{:.1}", r.throughput.all_mb_per_s),
                format!("{:.0}", iops(r)),
                format!("{:.1} %", 100.0 * first_try(r)),
                e("mesh_preemptions").to_string(),
                format!("{} ({})", e("mesh_parked_write_backs"), e("mesh_max_parked_write_backs")),
                r.integrity.violations.to_string(),
            ]
        })
        .collect();
    crate::report::render_rows(&headers, rows)
}

/// The MSR Cambridge workloads the papers name, looked up in `--trace-dir` by their usual
/// file names (`hm_0.csv`, `rsrch_0.csv.gz`, ...).
pub fn find_msr(dir: Option<&FsPath>, name: &str) -> Result<Option<Input>, ReproError> {
    Ok(super::runs::find_trace(dir, &[name])?.map(|p| Input { name: name.to_string(), source: format!("{name}: {} (real trace, replayed once at its own timing)", p.display()), workload: Workload::Trace(p) }))
}

/// `hm_0` from `--trace-dir`, or the bundled 1,000-request sample looped `loops` times on
/// fresh addresses at `speed`× its timing (the sample alone, 8 requests/s, leaves the device
/// idle).
pub fn hm0(dir: Option<&FsPath>, loops: u32, speed: f64) -> Result<Input, ReproError> {
    if let Some(i) = find_msr(dir, "hm_0")? {
        return Ok(i);
    }
    let replay = crate::trace::ReplayOptions { loops, time_scale: speed, ..Default::default() };
    Ok(Input {
        name: "hm_0".into(),
        source: format!("hm_0: the bundled sample ({}), {loops} loops on fresh addresses at {speed}x speed", crate::trace::embedded::HM0_DESCRIPTION),
        workload: Workload::Hm0Sample(replay),
    })
}

/// Rate of the generated mix: enough that GC and the transfer paths are contended in open
/// loop (the MSR samples are light).
pub const GENERATED_IOPS: f64 = 30_000.0;

/// The generated mix beside the traces: `bench-ref`'s uniform 4-16 KiB requests, 30 %
/// reads, Poisson arrivals at [`GENERATED_IOPS`], `requests` of them, over `dev`'s logical
/// space.
pub fn generated(dev: &DeviceConfig, requests: u64) -> Result<Input, ReproError> {
    let mut g = crate::workload::preset("bench-ref").ok_or_else(|| ReproError::Config("no workload preset bench-ref".into()))?;
    g.arrival = crate::workload::Arrival::Poisson { iops: GENERATED_IOPS };
    Ok(Input {
        name: "bench-ref".into(),
        source: format!("bench-ref: generated uniform 4-16 KiB requests, 30 % reads, Poisson {}k IOPS, {requests} requests (not an MSR trace)", GENERATED_IOPS / 1e3),
        workload: Workload::Gen(g.with_span_within(dev.host_bytes()).with_count(requests)),
    })
}

/// The workloads of both papers' runs: `names` (MSR volumes) from `--trace-dir` where
/// found, hm_0 (the trace, or the bundled sample looped) and the generated mix; the quick
/// run replays half as many requests of the sample and the mix.
pub fn inputs(dir: Option<&FsPath>, names: &[&str], dev: &DeviceConfig, quick: bool) -> Result<Vec<Input>, ReproError> {
    let (loops, requests) = if quick { (100, 100_000) } else { (200, 200_000) };
    let mut v = Vec::new();
    for n in names.iter().filter(|n| **n != "hm_0") {
        v.extend(find_msr(dir, n)?);
    }
    v.push(hm0(dir, loops, 20.0)?);
    v.push(generated(dev, requests)?);
    Ok(v)
}
