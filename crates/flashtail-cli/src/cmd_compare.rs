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
    /// Comma-separated schemes (default: every scheme this build has that differs on the device,
    /// so wla-gc only on multi-level cells; see `flashtail schemes`).
    #[arg(long, value_delimiter = ',')]
    pub schemes: Vec<String>,
    #[command(flatten)]
    pub opts: RunOptions,
    /// Output directory.
    #[arg(long, default_value = "flashtail-out")]
    pub out: PathBuf,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    let dev = a.device.load()?;
    let schemes: Vec<String> = if a.schemes.is_empty() {
        let (run, skipped) = flashtail::gc::schemes::default_schemes(&dev.geometry);
        for (n, why) in skipped {
            eprintln!("note: {n} left out ({why}); name it in --schemes to run it anyway");
        }
        run.iter().map(|n| n.to_string()).collect()
    } else {
        a.schemes.clone()
    };
    check_schemes(&schemes)?;
    // Every scheme replays the same requests: addresses wrap into the smallest host capacity
    // among them (RAIN schemes give 1/N of the space to parity).
    let mut cap = u64::MAX;
    for s in &schemes {
        cap = cap.min(flashtail::runner::host_capacity_bytes(&dev, s)?);
    }
    let open = a.input.opener(&dev, cap)?;
    let specs: Vec<RunSpec> = schemes.iter().map(|s| a.opts.spec(&dev, s)).collect();
    eprintln!(
        "comparing {} schemes on device '{}' with {} ({} threads)",
        schemes.len(),
        dev.name,
        a.input.describe(),
        rayon::current_num_threads()
    );
    let progress: Vec<Arc<Progress>> = schemes.iter().map(|_| Arc::new(Progress::default())).collect();
    let wall = std::time::Instant::now();
    let results = with_bars(&schemes, &progress, || run_many(&specs, &open, &progress));
    let wall = wall.elapsed().as_secs_f64();
    let mut reports = Vec::new();
    for (s, r) in schemes.iter().zip(results) {
        reports.push(r.map_err(|e| anyhow::anyhow!("scheme {s}: {e}"))?);
    }
    println!("{}", format_table(&reports));
    println!("{}", flashtail::report::format_tail_table(&reports));
    let notes = {
        let mut n: Vec<(String, String)> = reports[0].workload_notes.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        n.push(("device_source".into(), dev.source.clone()));
        n.push(("seed".into(), a.opts.seed.to_string()));
        n.push(("wall_seconds_all_schemes".into(), format!("{wall:.2}")));
        n
    };
    let mut meta = CompareMeta {
        title: format!("flashtail: {} GC schemes on {}", schemes.len(), dev.name),
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
    println!("all {} schemes in {wall:.2} s wall time", schemes.len());
    Ok(())
}
