//! `flashtail bench`: the performance reference benchmark (device preset `bench-ref`,
//! workload preset `bench-ref`) for each scheme × integrity-oracle setting, plus optionally
//! the preconditioning of a large device.
//!
//! Each case runs in a fresh child process (this binary re-executed with the hidden `--child`
//! flag) so the peak RSS it reports belongs to that case alone; the child prints one JSON line
//! and the parent tabulates. Reports wall time (which includes waiting for a core on a busy
//! machine) and the child's CPU time. Does not check targets: it measures.

use anyhow::{bail, Context};
use flashtail::config::presets;
use flashtail::gc::build_scheme;
use flashtail::stats::process::{peak_rss_bytes, thread_cpu_seconds};
use flashtail::{DeviceConfig, SimOptions, Simulation};
use serde_json::{json, Value};
use std::time::Instant;

#[derive(clap::Args)]
pub struct Args {
    /// Requests of the reference workload per case.
    #[arg(long, default_value_t = 1_000_000)]
    pub requests: u64,
    /// Schemes to run, comma-separated.
    #[arg(long, default_value = "base,preemptive", value_delimiter = ',')]
    pub schemes: Vec<String>,
    /// Integrity oracle: on, off or both.
    #[arg(long, default_value = "both", value_parser = ["on", "off", "both"])]
    pub oracle: String,
    /// Also time preconditioning a device of this many TiB (bench-ref geometry with more
    /// blocks per plane, oracle off), e.g. 1.
    #[arg(long, value_name = "TIB")]
    pub precondition_tib: Option<f64>,
    /// Skip the workload runs (with --precondition-tib: only the preconditioning case).
    #[arg(long)]
    pub no_runs: bool,
    /// Write the results as a JSON array here.
    #[arg(long)]
    pub json: Option<std::path::PathBuf>,
    /// Internal: run one case in this process and print its result as JSON.
    #[arg(long, hide = true)]
    pub child: Option<String>,
}

const SEED: u64 = 1;

pub fn run(a: Args) -> anyhow::Result<()> {
    if let Some(case) = &a.child {
        let result = run_case(case, a.requests)?;
        println!("{result}");
        return Ok(());
    }
    for s in &a.schemes {
        build_scheme(s, None, SEED).map_err(anyhow::Error::msg)?;
    }
    let mut cases = Vec::new();
    if !a.no_runs {
        let oracles: &[&str] = match a.oracle.as_str() {
            "on" => &["on"],
            "off" => &["off"],
            _ => &["on", "off"],
        };
        for s in &a.schemes {
            for o in oracles {
                cases.push(format!("run:{s}:{o}"));
            }
        }
    }
    if let Some(tib) = a.precondition_tib {
        if tib.is_nan() || tib <= 0.0 {
            bail!("--precondition-tib must be > 0 (got {tib})");
        }
        cases.push(format!("precondition:{tib}"));
    }
    let exe = std::env::current_exe().context("locating the flashtail binary to re-run per case")?;
    println!("flashtail bench: device bench-ref, workload bench-ref ({} requests), one process per case", a.requests);
    println!(
        "{:<26} {:>9} {:>8} {:>8} {:>8} {:>12} {:>12} {:>11} {:>12} {:>9}",
        "case", "requests", "total s", "precond", "cpu s", "req/s (run)", "req/s (cpu)", "events", "events/s", "peak MiB"
    );
    let mut all = Vec::new();
    for case in &cases {
        let out = std::process::Command::new(&exe)
            .args(["bench", "--child", case, "--requests", &a.requests.to_string()])
            .output()
            .with_context(|| format!("starting the child process for case {case}"))?;
        if !out.status.success() {
            bail!("case {case} failed: {}", String::from_utf8_lossy(&out.stderr).trim());
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let line = text.lines().last().unwrap_or_default();
        let v: Value = serde_json::from_str(line).with_context(|| format!("case {case}: unreadable child output {line:?}"))?;
        println!("{}", row(&v));
        all.push(v);
    }
    if let Some(path) = &a.json {
        std::fs::write(path, serde_json::to_string_pretty(&all)? + "\n").with_context(|| format!("writing {}", path.display()))?;
        println!("JSON results: {}", path.display());
    }
    Ok(())
}

fn row(v: &Value) -> String {
    let f = |k: &str| v[k].as_f64().unwrap_or(0.0);
    let requests = f("requests");
    let run_s = f("run_seconds");
    let per = |n: f64, s: f64| if s > 0.0 && n > 0.0 { format!("{:.0}", n / s) } else { "-".into() };
    format!(
        "{:<26} {:>9} {:>8.3} {:>8.3} {:>8.2} {:>12} {:>12} {:>11} {:>12} {:>9.1}",
        v["case"].as_str().unwrap_or("?"),
        requests,
        f("total_seconds"),
        f("precondition_seconds"),
        f("cpu_seconds"),
        per(requests, run_s),
        per(requests, f("cpu_seconds")),
        f("events"),
        per(f("events"), run_s),
        f("peak_rss_bytes") / (1u64 << 20) as f64,
    )
}

/// Run one case in this process: `run:<scheme>:<on|off>` or `precondition:<TiB>`.
fn run_case(case: &str, requests: u64) -> anyhow::Result<Value> {
    let parts: Vec<&str> = case.split(':').collect();
    match parts.as_slice() {
        ["run", scheme, oracle @ ("on" | "off")] => run_workload(scheme, *oracle == "on", requests),
        ["precondition", tib] => {
            let tib: f64 = tib.parse().with_context(|| format!("case {case}: bad size"))?;
            precondition_only(tib)
        }
        _ => bail!("unknown bench case '{case}'"),
    }
}

fn run_workload(scheme: &str, oracle: bool, requests: u64) -> anyhow::Result<Value> {
    let dev = presets::load("bench-ref").map_err(anyhow::Error::msg)?;
    let cfg = flashtail::workload::preset("bench-ref")
        .context("workload preset bench-ref is missing")?
        .with_span(dev.logical_bytes())
        .with_count(requests);
    let mut src = flashtail::workload::Generator::new(cfg).map_err(|e| anyhow::anyhow!("{e}"))?;
    let t0 = Instant::now();
    let scheme_def = build_scheme(scheme, None, SEED).map_err(anyhow::Error::msg)?;
    let sim = Simulation::new(dev, scheme_def, SimOptions { seed: SEED, oracle, check_every: 0, progress: None, latency: Default::default() })?;
    let report = sim.run(&mut src)?;
    let total = t0.elapsed().as_secs_f64();
    Ok(json!({
        "case": format!("{scheme}, oracle {}", if oracle { "on" } else { "off" }),
        "requests": report.integrity.requests_completed,
        "total_seconds": total,
        "precondition_seconds": report.cost.precondition_seconds,
        "run_seconds": report.cost.wall_seconds,
        "cpu_seconds": thread_cpu_seconds(),
        "events": report.cost.events,
        "peak_rss_bytes": peak_rss_bytes(),
        "waf": report.flash.waf,
    }))
}

/// The bench-ref geometry grown (more blocks per plane) to `tib` TiB of raw flash.
pub fn large_device(tib: f64) -> anyhow::Result<DeviceConfig> {
    let mut dev = presets::load("bench-ref").map_err(anyhow::Error::msg)?;
    let g = &dev.geometry;
    let per_block = g.pages_per_block as f64 * g.page_size as f64;
    let blocks = (tib * (1u64 << 40) as f64 / (g.planes() as f64 * per_block)).round();
    if blocks < 1.0 || blocks * per_block * g.planes() as f64 / g.page_size as f64 > u32::MAX as f64 {
        bail!("a {tib} TiB device does not fit 32-bit page numbers with {} B pages", g.page_size);
    }
    dev.geometry.blocks_per_plane = blocks as u32;
    dev.name = format!("bench-ref-{tib}tib");
    dev.validate().map_err(|e| anyhow::anyhow!("{tib} TiB device: {e}"))?;
    Ok(dev)
}

fn precondition_only(tib: f64) -> anyhow::Result<Value> {
    let dev = large_device(tib)?;
    let pages = dev.geometry.total_pages_u64();
    let t0 = Instant::now();
    let scheme = build_scheme("base", None, SEED).map_err(anyhow::Error::msg)?;
    let sim = Simulation::new(dev, scheme, SimOptions { seed: SEED, oracle: false, check_every: 0, progress: None, latency: Default::default() })?;
    let total = t0.elapsed().as_secs_f64();
    let mapped = sim.ftl().l2p.iter().filter(|&&p| p != flashtail::ftl::NONE).count();
    Ok(json!({
        "case": format!("precondition {tib} TiB"),
        "requests": 0,
        "total_seconds": total,
        "precondition_seconds": total,
        "run_seconds": 0.0,
        "cpu_seconds": thread_cpu_seconds(),
        "events": 0,
        "peak_rss_bytes": peak_rss_bytes(),
        "physical_pages": pages,
        "mapped_pages": mapped,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn large_device_has_the_requested_raw_size() {
        let dev = large_device(1.0).unwrap();
        assert_eq!(dev.geometry.blocks_per_plane, 32_768);
        assert_eq!(dev.geometry.total_pages_u64(), 1 << 28);
        assert_eq!(dev.geometry.raw_bytes(), 1 << 40);
        // 64 TiB of 4 KiB pages does not fit 32-bit page numbers.
        assert!(large_device(64.0).is_err());
    }

    #[test]
    fn unknown_case_is_an_error() {
        assert!(run_case("run:base:maybe", 10).is_err());
        assert!(run_case("precondition:x", 10).is_err());
    }
}
