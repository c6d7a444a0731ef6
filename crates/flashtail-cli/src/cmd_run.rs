//! `flashtail run`: one scheme on one device and workload; prints a summary, writes JSON,
//! the report directory (the same files as `compare`) and standalone figures on request.

use crate::out_args::{check_file, prepare_dir, report_meta, FigureArgs};
use crate::progress::with_bars;
use crate::sim_args::{DeviceArgs, InputArgs, RunOptions};
use anyhow::Context;
use flashtail::runner::run_opened;
use flashtail::sim::Progress;
use flashtail::RunReport;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub device: DeviceArgs,
    #[command(flatten)]
    pub input: InputArgs,
    /// GC scheme (see `flashtail schemes`).
    #[arg(long, default_value = "base")]
    pub scheme: String,
    #[command(flatten)]
    pub opts: RunOptions,
    /// Write the full run report as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write the report of this one run into this directory (created if missing):
    /// summary.json, summary.csv, cdf.csv and report.html, as `compare --out` does.
    #[arg(long, value_name = "DIR")]
    pub report: Option<PathBuf>,
    #[command(flatten)]
    pub figures: FigureArgs,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let dev = a.device.load()?;
    flashtail::runner::check_schemes(std::slice::from_ref(&a.scheme))?;
    let cap = flashtail::runner::host_capacity_bytes(&dev, &a.scheme)?;
    let open = flashtail::job::record_input(a.input.opener(&dev, cap)?, a.opts.input_memory, std::slice::from_ref(&a.scheme));
    // One pass over the input for the plausibility checks and the footprint preconditioning
    // writes first; its request count is the progress bars' total.
    let footprint = a.input.plausibility_and_footprint(&open, &dev)?;
    for w in crate::sim_args::buffer_warnings(&dev, std::slice::from_ref(&a.scheme), cap) {
        eprintln!("{w}");
    }
    let mut spec = a.opts.spec(&dev, &a.scheme)?;
    let known_total = footprint.as_ref().map(|f| f.requests);
    spec.footprint = footprint;
    // Every output path is checked before the run, which may take hours.
    if let Some(p) = &a.json {
        check_file(p, "--json")?;
    }
    if let Some(d) = &a.report {
        prepare_dir(d, "--report")?;
    }
    a.figures.prepare()?;
    let progress = Arc::new(Progress::default());
    let p = progress.clone();
    let count = |stop: &_| known_total.or_else(|| crate::sim_args::count_requests(&open, stop));
    let report = with_bars(std::slice::from_ref(&a.scheme), &[progress], count, || -> anyhow::Result<RunReport> {
        Ok(run_opened(&spec, &open, Some(p))?)
    })?;
    print!("{}", summary_text(&report));
    let notes = report.workload_notes.iter().map(|(k, v)| (k.as_str(), v.as_str()));
    for w in crate::trace_args::trace_warnings(notes) {
        eprintln!("{w}");
    }
    for w in flashtail::report::run_warnings(&report) {
        eprintln!("{w}");
    }
    let mut report = report;
    if a.opts.no_cost {
        report.cost.strip_machine();
    }
    if let Some(dir) = &a.report {
        let title = format!("flashtail: {} on {}", a.scheme, dev.name);
        let schemes = std::slice::from_ref(&a.scheme);
        let reports = std::slice::from_ref(&report);
        let meta = report_meta(title, &a.input, &a.device, &dev, &a.opts, schemes, reports);
        for f in flashtail::report::write_outputs(dir, &meta, reports)? {
            println!("wrote {}", f.display());
        }
    }
    a.figures.write(std::slice::from_ref(&report))?;
    if let Some(path) = a.json {
        let text = serde_json::to_string_pretty(&report)?;
        std::fs::write(&path, text + "\n").with_context(|| format!("writing {}", path.display()))?;
        println!("JSON report: {}", path.display());
    }
    Ok(())
}

/// A human summary of one run: the latency table plus the flash, wait and integrity facts.
pub fn summary_text(r: &RunReport) -> String {
    use std::fmt::Write;
    let mut s = String::new();
    let _ = writeln!(s, "flashtail {} — scheme {} on device {}", r.flashtail_version, r.scheme, r.device);
    let _ = writeln!(s, "workload: {}", r.workload);
    for (k, v) in &r.workload_notes {
        let _ = writeln!(s, "  {k}: {v}");
    }
    s.push_str(&flashtail::report::format_table(std::slice::from_ref(r)));
    let f = &r.flash;
    let _ = writeln!(
        s,
        "flash: host pages {} | GC pages {} (migrated {}, copyback {}) | parity pages {} | erases {} | victims selected {} | WAF {}",
        f.host_pages_programmed,
        f.gc_pages_programmed,
        f.gc_pages_migrated,
        f.copybacks,
        f.parity_pages_programmed,
        f.erases,
        f.gc_runs,
        flashtail::report::waf_str(f)
    );
    for (k, v) in &f.extra {
        let _ = writeln!(s, "  {k}: {v}");
    }
    let w = &r.waits;
    let _ = writeln!(
        s,
        "waited on GC: {} requests ({:.4}%), reads {} ({:.4}%)",
        w.requests_waited_on_gc,
        100.0 * w.share_waited_on_gc,
        w.reads_waited_on_gc,
        100.0 * w.share_reads_waited_on_gc
    );
    let total: u64 = w.wait_ns_by_cause.values().sum();
    let causes: Vec<String> = w
        .wait_ns_by_cause
        .iter()
        // Only content-aware schemes do background work: leave its zero out of other runs.
        .filter(|&(k, v)| k != "background" || *v > 0)
        .map(|(k, v)| format!("{k} {:.1}%", if total == 0 { 0.0 } else { 100.0 * *v as f64 / total as f64 }))
        .collect();
    let _ = writeln!(s, "wait by cause (share of {:.3} s total wait): {}", total as f64 / 1e9, causes.join(", "));
    s.push_str(&flashtail::report::tail_summary(r));
    let i = &r.integrity;
    let _ = writeln!(
        s,
        "integrity: oracle {} | {} reads checked | {} violations | {}/{} requests completed",
        if i.oracle_enabled { "on" } else { "off" },
        i.reads_checked,
        i.violations,
        i.requests_completed,
        i.requests_submitted
    );
    if let Some(&n) = r.flash.extra.get("die_failures") {
        let x = |k: &str| r.flash.extra.get(k).copied().unwrap_or(0);
        let _ = writeln!(
            s,
            "die failures: {n} | pages lost {} | reads failed {} | reads rebuilt {} | pages re-protected {} (left {})",
            x("die_failure_lost_pages"),
            x("failed_reads"),
            x("die_failure_rebuilt_reads"),
            x("die_failure_reprotected_pages"),
            x("die_failure_unprotected_pages")
        );
    }
    let c = &r.cost;
    let _ = writeln!(
        s,
        "cost: {:.3} s wall simulating (+ {:.3} s preconditioning before it), {:.0} simulated requests/s, {} events, peak RSS {:.1} MiB",
        c.wall_seconds,
        c.precondition_seconds,
        c.simulated_requests_per_second,
        c.events,
        c.peak_rss_bytes as f64 / (1 << 20) as f64
    );
    s
}
