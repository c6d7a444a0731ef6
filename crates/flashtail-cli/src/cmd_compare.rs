//! `flashtail compare`: several GC schemes on the same device and workload, in parallel;
//! prints a table and writes summary.json, summary.csv, cdf.csv and report.html.

use crate::progress::with_bars;
use crate::sim_args::{DeviceArgs, InputArgs, RunOptions};
use flashtail::report::{format_table, write_outputs, CompareMeta};
use flashtail::runner::{check_schemes, run_many, RunSpec};
use flashtail::sim::Progress;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub device: DeviceArgs,
    #[command(flatten)]
    pub input: InputArgs,
    /// Comma-separated schemes, each named once (default: every scheme this build has that
    /// differs on the device and workload: wla-gc only on multi-level cells, splitgc, cagc and
    /// dagc only on fingerprinted writes with duplicates, as from an FIU trace or
    /// `--gen splitgc-*`; see `flashtail schemes`).
    #[arg(long, value_delimiter = ',')]
    pub schemes: Vec<String>,
    #[command(flatten)]
    pub opts: RunOptions,
    /// Output directory.
    #[arg(long, default_value = "flashtail-out")]
    pub out: PathBuf,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    crate::sim_args::check_no_empty_scheme(&a.schemes)?;
    let dev = a.device.load()?;
    let schemes: Vec<String> = if a.schemes.is_empty() {
        // Which schemes differ depends on the workload's content: look at it (any capacity
        // will do to see whether writes carry fingerprints).
        let probe = a.input.opener(&dev, dev.logical_bytes())?;
        let fingerprinted = a.input.fingerprinted(&probe)?;
        let (run, skipped) = flashtail::gc::schemes::default_schemes(&dev.geometry, fingerprinted);
        for (n, why) in skipped {
            eprintln!("note: {n} left out ({why}); name it in --schemes to run it anyway");
        }
        let mut run: Vec<String> = run.iter().map(|n| n.to_string()).collect();
        if !a.opts.power_cut_at.is_empty() {
            // Schemes a power cut cannot be enacted under on this device would fail the whole
            // comparison (the engine asks the same question).
            run.retain(|n| {
                let why = flashtail::runner::spec_scheme(&a.opts.spec(&dev, n)).ok().and_then(|s| flashtail::sim::power_loss::refusal(&s, &dev));
                if let Some(why) = why {
                    eprintln!("note: {n} left out (--power-cut-at: {})", why.message(n, "power cuts", "cut power on"));
                }
                why.is_none()
            });
        }
        run
    } else {
        // `--schemes "base, nogc"` means nogc, not an unknown scheme ' nogc'.
        a.schemes.iter().map(|s| s.trim().to_string()).collect()
    };
    if schemes.is_empty() {
        // Only the default set can end up empty, if --power-cut-at left every scheme out
        // (the notes above say why: the device has the DRAM write buffer without ttFlash's
        // flush).
        anyhow::bail!("no scheme left to compare: every scheme of the default set was left out (notes above); name the schemes with --schemes");
    }
    // Two runs of one scheme only repeat each other (same seed, same numbers) and make two
    // rows the reports cannot tell apart.
    for (i, s) in schemes.iter().enumerate() {
        if schemes[..i].contains(s) {
            anyhow::bail!("scheme '{s}' is named twice in --schemes (each scheme runs once; same seed, same results)");
        }
    }
    check_schemes(&schemes)?;
    // Every scheme replays the same requests: addresses wrap into the smallest host capacity
    // among them (RAIN schemes give 1/N of the space to parity).
    let mut cap = u64::MAX;
    for s in &schemes {
        cap = cap.min(flashtail::runner::host_capacity_bytes(&dev, s)?);
    }
    let open = a.input.opener(&dev, cap)?;
    // The output directory must exist before the runs: it failed only after all of them.
    std::fs::create_dir_all(&a.out).map_err(|error| flashtail::report::ReportError::CreateDir { path: a.out.clone(), error })?;
    let specs: Vec<RunSpec> = schemes.iter().map(|s| a.opts.spec(&dev, s)).collect();
    let n_schemes = plural(schemes.len(), "scheme", "schemes");
    eprintln!(
        "comparing {n_schemes} on device '{}' with {} ({} threads)",
        dev.name,
        a.input.describe(),
        rayon::current_num_threads()
    );
    let progress: Vec<Arc<Progress>> = schemes.iter().map(|_| Arc::new(Progress::default())).collect();
    let wall = std::time::Instant::now();
    let results = with_bars(&schemes, &progress, || run_many(&specs, &open, &progress));
    let wall = wall.elapsed().as_secs_f64();
    // Every scheme reads the same stream, so a bad or empty workload fails them all alike:
    // report it once, as the workload's fault, not as the first scheme's.
    if let Some(e) = results.iter().find_map(|r| r.as_ref().err().filter(|e| e.is_workload())) {
        anyhow::bail!("{e}");
    }
    let mut reports = Vec::new();
    for (s, r) in schemes.iter().zip(results) {
        reports.push(r.map_err(|e| anyhow::anyhow!("scheme {s}: {e}"))?);
    }
    flashtail::report::flag_postponed_gc(&mut reports);
    println!("{}", format_table(&reports));
    println!("{}", flashtail::report::format_tail_table(&reports));
    let notes = reports[0].workload_notes.iter().map(|(k, v)| (k.as_str(), v.as_str()));
    for w in crate::trace_args::trace_warnings(notes) {
        eprintln!("{w}");
    }
    let notes = {
        let mut n: Vec<(String, String)> = reports[0].workload_notes.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        n.push(("device_source".into(), dev.source.clone()));
        n.push(("seed".into(), a.opts.seed.to_string()));
        n.push(("wall_seconds_all_schemes".into(), format!("{wall:.2}")));
        n
    };
    let mut meta = CompareMeta {
        title: format!("flashtail: {} on {}", plural(schemes.len(), "GC scheme", "GC schemes"), dev.name),
        workload: format!("{} ({})", a.input.describe(), reports[0].workload),
        device: format!("{} — {}", dev.name, dev.description),
        notes,
        config: serde_json::json!({
            "device": &dev,
            "schemes": &schemes,
            "victim": &a.opts.victim,
            "seed": a.opts.seed,
            "oracle": !a.opts.no_oracle,
            "device_overrides": &a.device.set,
        }),
    };
    if a.opts.no_cost {
        for r in &mut reports {
            r.cost.strip_machine();
        }
        meta.notes.retain(|(k, _)| k != "wall_seconds_all_schemes");
    }
    let files = write_outputs(&a.out, &meta, &reports)?;
    for f in files {
        println!("wrote {}", f.display());
    }
    if schemes.len() == 1 {
        println!("1 scheme in {wall:.2} s wall time");
    } else {
        println!("all {n_schemes} in {wall:.2} s wall time");
    }
    Ok(())
}

/// `n` with the singular or plural noun: "1 scheme", "14 schemes".
fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
