//! `flashtail sweep SPEC.toml`: the cross product of a sweep spec's devices, overrides,
//! workloads and seeds, each point one comparison of the spec's schemes; writes the tidy
//! table and the across-seed table (CSV and Parquet) into `--out`. A thin layer over
//! `flashtail::sweep`: this file parses options and draws the progress (a bar with an ETA on
//! a terminal, one plain line per point otherwise).

use flashtail::job::Cancel;
use flashtail::sweep::{point_label, run_local, ExecOptions, Sweep, SweepProgress};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The sweep spec (TOML; docs/sweeps.md describes its keys).
    pub spec: PathBuf,
    /// Output directory: table.csv, table.parquet, ci.csv, ci.parquet, points/ (one file per
    /// finished point, for --resume) and failures.txt when points failed.
    #[arg(long, default_value = "flashtail-sweep")]
    pub out: PathBuf,
    /// Where points run: local (this machine's cores). Ray runs from the Python package:
    /// `python -m flashtail sweep SPEC --backend ray` (docs/python.md).
    #[arg(long, default_value = "local", value_parser = ["local", "ray"])]
    pub backend: String,
    /// Threads for the points and their schemes (default: one per core).
    #[arg(long, value_parser = crate::sim_args::parse_usize)]
    pub jobs: Option<usize>,
    /// Take the points a previous run of the same spec recorded in --out instead of running
    /// them again.
    #[arg(long)]
    pub resume: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    if a.backend == "ray" {
        anyhow::bail!(
            "--backend ray runs from the Python package (Ray is a Python library): pip install ./crates/flashtail-py, then `python -m flashtail sweep {} --backend ray` (docs/python.md)",
            a.spec.display()
        );
    }
    if a.jobs == Some(0) {
        anyhow::bail!("--jobs must be at least 1");
    }
    let sweep = Sweep::from_file(&a.spec).map_err(anyhow::Error::msg)?;
    let points = flashtail::sweep::expand(&sweep).map_err(anyhow::Error::msg)?;
    eprintln!("sweep: {} points × {} schemes ({})", points.len(), sweep.spec.schemes.len(), sweep.spec.schemes.join(", "));
    let bar = std::io::stderr().is_terminal().then(|| {
        let b = ProgressBar::new(points.len() as u64);
        b.set_style(ProgressStyle::with_template("{bar:30} {pos}/{len} points  {elapsed} elapsed, ETA {eta}  {msg}").unwrap_or_else(|_| ProgressStyle::default_bar()));
        b
    });
    let show = |p: &SweepProgress| match &bar {
        Some(b) => {
            b.set_position(p.done as u64);
            b.set_message(format!("{} resumed, {} failed", p.resumed, p.failed));
        }
        None => eprintln!("{}", p.line()),
    };
    let opts = ExecOptions { jobs: a.jobs, resume: a.resume };
    let outcome = run_local(&sweep, &a.out, &opts, &show, &Cancel::new()).map_err(anyhow::Error::msg)?;
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    for (p, e) in &outcome.failures {
        eprintln!("error: {}: {e}", point_label(p));
    }
    for name in ["table.csv", "table.parquet", "ci.csv", "ci.parquet", "report.html"] {
        println!("wrote {}", a.out.join(name).display());
    }
    println!(
        "{} points ({} resumed, {} failed), {} rows, in {:.2} s wall time",
        outcome.points,
        outcome.resumed,
        outcome.failures.len(),
        outcome.table.rows.len(),
        outcome.wall_seconds
    );
    if !outcome.failures.is_empty() {
        anyhow::bail!("{} of {} points failed (listed above and in {})", outcome.failures.len(), outcome.points, a.out.join("failures.txt").display());
    }
    Ok(())
}
