//! `flashtail compare`: several GC schemes on the same device and workload, in parallel;
//! prints a table and writes summary.json, summary.csv, cdf.csv and report.html.

use crate::out_args::{prepare_dir, FigureArgs};
use crate::progress::with_bars;
use crate::sim_args::{DeviceArgs, InputArgs, RunOptions};
use flashtail::job::plural;
use flashtail::job::Cancel;
use flashtail::report::{format_table, write_outputs};
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
    /// `--gen splitgc-*`; the RAIN schemes only where the device has room for their parity;
    /// see `flashtail schemes`).
    #[arg(long, value_delimiter = ',')]
    pub schemes: Vec<String>,
    #[command(flatten)]
    pub opts: RunOptions,
    /// Output directory.
    #[arg(long, default_value = "flashtail-out")]
    pub out: PathBuf,
    #[command(flatten)]
    pub figures: FigureArgs,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    crate::sim_args::check_no_empty_scheme(&a.schemes)?;
    let dev = a.device.load()?;
    a.input.check_gen_options()?;
    // The schemes (the default set follows the device and the workload's content), the
    // workload opened once, folded into the device's host capacity (the same for every
    // scheme). Notes on left-out schemes are printed as they come, before any error of the
    // plan (which may refer to them).
    let plan = flashtail::job::plan(&dev, &a.input.workload(), &a.schemes, &a.opts.settings()?, a.opts.input_memory, &mut |n| eprintln!("{n}")).map_err(anyhow::Error::msg)?;
    let schemes = plan.schemes.clone();
    a.input.plausibility(&plan.open, &dev)?;
    for w in crate::sim_args::buffer_warnings(&dev, &schemes, dev.host_bytes()) {
        eprintln!("{w}");
    }
    // The output directories must exist before the runs: they failed only after all of them.
    prepare_dir(&a.out, "--out")?;
    a.figures.prepare()?;
    let n_schemes = plural(schemes.len(), "scheme", "schemes");
    eprintln!(
        "comparing {n_schemes} on device '{}' with {} ({} threads)",
        dev.name,
        a.input.describe(),
        rayon::current_num_threads()
    );
    let progress: Vec<Arc<Progress>> = schemes.iter().map(|_| Arc::new(Progress::default())).collect();
    // Every scheme reads the same stream, so a bad or empty workload fails them all alike:
    // the library reports it once, as the workload's fault, not as the first scheme's.
    let count = |stop: &_| crate::sim_args::count_requests(&plan.open, stop);
    let outcome = with_bars(&schemes, &progress, count, || flashtail::job::compare(&plan, &progress, &Cancel::new())).map_err(anyhow::Error::msg)?;
    let wall = outcome.wall_seconds;
    println!("{}", format_table(&outcome.reports));
    println!("{}", flashtail::report::format_tail_table(&outcome.reports));
    let notes = outcome.reports[0].workload_notes.iter().map(|(k, v)| (k.as_str(), v.as_str()));
    for w in crate::trace_args::trace_warnings(notes) {
        eprintln!("{w}");
    }
    for w in flashtail::report::comparison_warnings(&outcome.reports) {
        eprintln!("{w}");
    }
    let mut meta = flashtail::job::compare_meta(&dev, &a.input.describe(), &outcome, &a.opts.settings()?, &a.device.set);
    let mut reports = outcome.reports;
    if a.opts.no_cost {
        flashtail::job::strip_cost(&mut meta, &mut reports);
    }
    let files = write_outputs(&a.out, &meta, &reports)?;
    for f in files {
        println!("wrote {}", f.display());
    }
    a.figures.write(&reports)?;
    if schemes.len() == 1 {
        println!("1 scheme in {wall:.2} s wall time");
    } else {
        println!("all {n_schemes} in {wall:.2} s wall time");
    }
    Ok(())
}
