//! Where `run` and `compare` write, and the checks made before any simulation starts: a
//! run that takes an hour must not fail at its end because `--json /missing/dir/x.json`
//! cannot be written. Also the report metadata both commands give `report.html`.

use crate::sim_args::{DeviceArgs, InputArgs, RunOptions};
use anyhow::Context;
use flashtail::report::CompareMeta;
use flashtail::{DeviceConfig, RunReport};
use std::path::{Path, PathBuf};

/// `--figures DIR` (and `--no-png`), shared by `run` and `compare`.
#[derive(clap::Args, Clone, Debug)]
pub struct FigureArgs {
    /// Also write every figure of the report as a standalone NAME.svg and NAME.png
    /// (2× pixel size) into this directory (created if missing), for papers and slides.
    #[arg(long, value_name = "DIR")]
    pub figures: Option<PathBuf>,
    /// With --figures: write SVG only, no PNG.
    #[arg(long, requires = "figures")]
    pub no_png: bool,
}

impl FigureArgs {
    /// Creates the directory now, so a bad path fails before the runs.
    pub fn prepare(&self) -> anyhow::Result<()> {
        match &self.figures {
            Some(d) => prepare_dir(d, "--figures"),
            None => Ok(()),
        }
    }

    /// Writes the figures of `reports`, printing what was written and what was not.
    pub fn write(&self, reports: &[RunReport]) -> anyhow::Result<()> {
        let Some(dir) = &self.figures else { return Ok(()) };
        let done = flashtail::report::write_figures(dir, reports, !self.no_png)?;
        for (name, why) in &done.skipped {
            eprintln!("note: figure {name} not written: {why}");
        }
        println!("wrote {} figure files to {}", done.files.len(), dir.display());
        Ok(())
    }
}

/// Creates output directory `dir` (given as `flag`) if missing and checks that a file
/// can be created in it.
pub fn prepare_dir(dir: &Path, flag: &str) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("{flag} {}: cannot create the directory", dir.display()))?;
    let probe = dir.join(".flashtail-write-check");
    std::fs::write(&probe, b"").with_context(|| format!("{flag} {}: cannot write into the directory", dir.display()))?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Checks that output file `path` (given as `flag`) can be written: its directory exists
/// and takes a new file, and the path is not a directory. Leaves no file behind.
pub fn check_file(path: &Path, flag: &str) -> anyhow::Result<()> {
    if path.is_dir() {
        anyhow::bail!("{flag} {}: is a directory, not a file", path.display());
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        anyhow::bail!("{flag} {}: directory {} does not exist", path.display(), parent.display());
    }
    let existed = path.exists();
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .with_context(|| format!("{flag} {}: cannot be written", path.display()))?;
    if !existed {
        let _ = std::fs::remove_file(path);
    }
    Ok(())
}

/// The page's metadata for runs of `schemes` on `dev` with `input`: title, workload (once,
/// not the path twice), device and the provenance notes.
pub fn report_meta(
    title: String,
    input: &InputArgs,
    device: &DeviceArgs,
    dev: &DeviceConfig,
    opts: &RunOptions,
    schemes: &[String],
    reports: &[RunReport],
) -> CompareMeta {
    let described = input.describe();
    let from_run = reports.first().map(|r| r.workload.clone()).unwrap_or_default();
    let workload = if from_run.is_empty() || from_run == described || described.contains(&from_run) {
        described
    } else if from_run.contains(&described) {
        from_run
    } else {
        format!("{described} ({from_run})")
    };
    let mut notes: Vec<(String, String)> = reports.first().map(|r| r.workload_notes.clone().into_iter().collect()).unwrap_or_default();
    notes.push(("device_source".into(), dev.source.clone()));
    notes.push(("seed".into(), opts.seed.to_string()));
    CompareMeta {
        title,
        workload,
        device: format!("{} — {}", dev.name, dev.description),
        notes,
        config: serde_json::json!({
            "device": dev,
            "schemes": schemes,
            "victim": &opts.victim,
            "seed": opts.seed,
            "oracle": !opts.no_oracle,
            "device_overrides": &device.set,
        }),
    }
}
