//! `flashtail reproduce PAPER`: a seed paper's experiment in the paper's setup, the paper's
//! numbers beside flashtail's and a verdict per claim (the library's `reproduce` module
//! does the work; this only parses arguments and prints).

use flashtail::reproduce::{paper, reproduce, Options, PAPERS};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The paper: rlgc (Kang et al., ACM TECS 2017), splitgc (Nie et al., Electronics 2025),
    /// ttflash (Yan et al., FAST 2017), venice (Nadig et al., ISCA 2023), gc-bypass
    /// (Nie et al., 2026) or wla (de Campos et al., IEEE Latin America Trans.).
    /// `--list` shows each with its expected run time.
    #[arg(required_unless_present = "list")]
    pub paper: Option<String>,
    /// The reduced experiment (fewer workloads and schemes; about a minute on 2 cores).
    #[arg(long)]
    pub quick: bool,
    /// A directory holding your own copies of the papers' real traces, found by their usual
    /// file names (home1.blkparse, webmail+online..., webusers-030409-033109.1.blkparse,
    /// RBESQL / RadiusBackEndSQLServer..., MSNSFS / MSNStorageFileServer..., MSR Cambridge
    /// hm_0.csv, src1_0.csv, rsrch_0.csv, hm_1.csv..., tpcc-small, Financial1 / financial1-50k: a name that starts with the
    /// workload's, then '.', '-' or '_'). Workloads without a file use the bundled samples
    /// or generated stand-ins.
    #[arg(long)]
    pub trace_dir: Option<PathBuf>,
    /// Output directory: report files per cell, claims.json and reproduce.txt.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Seed for preconditioning and the randomised policies.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// List the papers and the measured time of their full and quick runs.
    #[arg(long)]
    pub list: bool,
}

pub fn run(a: Args) -> anyhow::Result<()> {
    if a.list {
        for p in PAPERS {
            println!("{:<9} {}\n          full: {}; --quick: {}", p.name, p.title, p.full_time, p.quick_time);
        }
        return Ok(());
    }
    let name = a.paper.unwrap_or_default();
    let p = paper(&name)?;
    if let Some(d) = &a.trace_dir {
        anyhow::ensure!(d.is_dir(), "--trace-dir {}: not a directory", d.display());
    }
    let out = a.out.unwrap_or_else(|| PathBuf::from(format!("flashtail-out/reproduce-{name}")));
    eprintln!("reproducing {name}: {} ({} expected)", p.title, if a.quick { p.quick_time } else { p.full_time });
    let wall = std::time::Instant::now();
    let opts = Options { quick: a.quick, trace_dir: a.trace_dir, out, seed: a.seed };
    let outcome = reproduce(&name, &opts, &mut |line| eprintln!("  {line}"))?;
    print!("{}", outcome.text);
    for f in &outcome.files {
        println!("wrote {}", f.display());
    }
    println!("reproduce {name}{} in {:.1} s wall time", if a.quick { " --quick" } else { "" }, wall.elapsed().as_secs_f64());
    Ok(())
}
