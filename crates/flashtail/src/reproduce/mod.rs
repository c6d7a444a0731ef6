//! `flashtail reproduce PAPER`: a seed paper's experiment in the paper's own setup (device,
//! starting state, thresholds, comparators, metrics), the paper's numbers printed beside
//! flashtail's, and one verdict per claim (`claim.rs`: direction, then magnitude).
//!
//! One file per paper (`rlgc.rs`, `splitgc.rs`, `ttflash/`, `venice.rs`, `gcbypass.rs`, `wla.rs`), each a [`Paper`] in [`PAPERS`]; the shared
//! parts are the claim and its verdict rule (`claim.rs`) and running a cell of schemes on
//! one device and workload with the usual report files (`runs.rs`). A later paper plugs in
//! with one more file and one more entry in [`PAPERS`].
//!
//! The starting state of every run is set here explicitly (an empty device, or the steady
//! state, by name), never taken from a preset's default preconditioning. Where a paper's
//! traces are not bundled, documented stand-ins with the statistics of the paper's own
//! workload table are generated; `--trace-dir` substitutes the user's copies of the real
//! traces, found by their usual file names (`runs::find_trace`).
//!
//! Does not: fetch traces, fit anything to the paper's numbers, or hide a claim that does
//! not reproduce (the verdict says so, and the paper's module note says why).

pub mod claim;
pub mod gcbypass;
pub mod mesh_cell;
pub mod rlgc;
pub mod runs;
pub mod splitgc;
pub mod ttflash;
pub mod venice;
pub mod wla;

use crate::report::ReportError;
use claim::Claim;
use std::path::{Path, PathBuf};

/// Why a reproduction could not be run.
#[derive(Debug, thiserror::Error)]
pub enum ReproError {
    #[error("unknown paper '{0}' (known: {known})", known = PAPERS.iter().map(|p| p.name).collect::<Vec<_>>().join(", "))]
    UnknownPaper(String),
    #[error("{cell}: scheme {scheme}: {error}")]
    Run { cell: String, scheme: String, error: String },
    #[error("--trace-dir {}: {error}", dir.display())]
    TraceDir { dir: PathBuf, error: String },
    #[error("{0}")]
    Config(String),
    #[error(transparent)]
    Report(#[from] ReportError),
}

/// How to run a reproduction.
#[derive(Clone, Debug)]
pub struct Options {
    /// The reduced experiment (about a minute on 2 cores) instead of the full one.
    pub quick: bool,
    /// Where the user keeps real traces (found by their usual names).
    pub trace_dir: Option<PathBuf>,
    /// Output directory: one sub-directory of report files per cell, `claims.json`, and
    /// `reproduce.txt` (everything printed).
    pub out: PathBuf,
    pub seed: u64,
}

/// What a reproduction found.
pub struct Outcome {
    /// Everything to print: the paper's tables beside ours, then the claims with verdicts.
    pub text: String,
    pub claims: Vec<Claim>,
    /// Files written.
    pub files: Vec<PathBuf>,
}

/// A paper's experiment: runs with the options, logging a line per cell as it starts.
pub type RunFn = fn(&Options, &mut dyn FnMut(&str)) -> Result<Outcome, ReproError>;

/// A reproducible paper.
pub struct Paper {
    pub name: &'static str,
    /// Citation and one line on the experiment.
    pub title: &'static str,
    /// Measured wall time of the full and the quick run on 2 cores (stated, not enforced).
    pub full_time: &'static str,
    pub quick_time: &'static str,
    /// Runs the experiment; `log` gets a line per cell as it starts.
    pub run: RunFn,
}

/// Every paper `reproduce` knows.
pub const PAPERS: &[Paper] = &[rlgc::PAPER, splitgc::PAPER, ttflash::PAPER, venice::PAPER, gcbypass::PAPER, wla::PAPER];

/// The paper called `name`.
pub fn paper(name: &str) -> Result<&'static Paper, ReproError> {
    PAPERS.iter().find(|p| p.name == name).ok_or_else(|| ReproError::UnknownPaper(name.to_string()))
}

/// Runs `name`'s reproduction, writes `claims.json` and `reproduce.txt` into `opts.out`,
/// and returns the outcome.
pub fn reproduce(name: &str, opts: &Options, log: &mut dyn FnMut(&str)) -> Result<Outcome, ReproError> {
    let p = paper(name)?;
    create_dir(&opts.out)?;
    let mut out = (p.run)(opts, log)?;
    let claims_json = serde_json::to_string_pretty(&out.claims).map_err(|error| ReportError::Json { what: "claims.json".into(), error })? + "\n";
    for (file, body) in [("claims.json", claims_json), ("reproduce.txt", out.text.clone())] {
        let path = opts.out.join(file);
        std::fs::write(&path, body).map_err(|error| ReportError::Write { path: path.clone(), error })?;
        out.files.push(path);
    }
    Ok(out)
}

/// Creates `dir` (and its parents).
pub(crate) fn create_dir(dir: &Path) -> Result<(), ReproError> {
    std::fs::create_dir_all(dir).map_err(|error| ReproError::Report(ReportError::CreateDir { path: dir.to_path_buf(), error }))
}

/// The verdict lines and a count, as every paper ends its text.
pub(crate) fn verdict_summary(claims: &[Claim]) -> String {
    let mut s = String::new();
    for c in claims {
        s.push_str(&c.line());
        s.push('\n');
    }
    let n = |v: claim::Verdict| claims.iter().filter(|c| c.verdict == v).count();
    s.push_str(&format!(
        "{} claims: {} reproduced, {} direction only, {} not reproduced, {} not measured\n",
        claims.len(),
        n(claim::Verdict::Reproduced),
        n(claim::Verdict::DirectionOnly),
        n(claim::Verdict::NotReproduced),
        n(claim::Verdict::NotMeasured)
    ));
    s
}
