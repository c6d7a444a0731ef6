//! Running one cell of a reproduction: a set of schemes on one device and one workload (a
//! generated stand-in, the user's copy of the real trace, or the bundled DTRS slice), in parallel, with the usual
//! report files written for it. Also where a real trace is looked up by its usual name.
//!
//! Does not choose devices, workloads or schemes (the paper's module does) and judges
//! nothing (`claim.rs`).

use super::ReproError;
use crate::config::DeviceConfig;
use crate::host::RequestSource;
use crate::report::{flag_postponed_gc, write_outputs, CompareMeta};
use crate::runner::{run_many, RunSpec};
use crate::stats::RunReport;
use crate::workload::{GenConfig, Generator};
use std::path::{Path, PathBuf};

/// Where a cell's requests come from.
#[derive(Clone, Debug)]
pub enum Workload {
    /// A generator configuration (span and count already set).
    Gen(GenConfig),
    /// A real trace, replayed once, wrapped into the device's logical space.
    Trace(PathBuf),
    /// The bundled MSR `hm_0` sample (`trace::embedded::hm0`), replayed with these options
    /// (loops on fresh addresses, speed), wrapped into the device's logical space.
    Hm0Sample(crate::trace::ReplayOptions),
    /// The bundled DTRS slice (Microsoft production), replayed as recorded.
    Dtrs,
}

impl Workload {
    /// How the workload is described in reports.
    pub fn describe(&self) -> String {
        match self {
            Workload::Gen(c) => format!("generated stand-in, {} requests, seed {}", c.count.unwrap_or(0), c.seed),
            Workload::Trace(p) => format!("trace {}", p.display()),
            Workload::Hm0Sample(r) => format!("bundled MSR hm_0 sample (1,000 requests) x {} loops at {}x speed", r.loops, r.time_scale),
            Workload::Dtrs => "bundled DTRS slice (Microsoft production, 127,043 requests)".into(),
        }
    }
}

/// One cell: a device, a workload, schemes; its files go to `dir`.
pub struct Cell<'a> {
    pub title: String,
    pub device: &'a DeviceConfig,
    pub workload: &'a Workload,
    pub schemes: &'a [String],
    pub seed: u64,
    /// Run the integrity oracle (every read checked; memory and time grow with the device).
    pub oracle: bool,
    pub dir: PathBuf,
    /// Provenance facts for the report.
    pub notes: Vec<(String, String)>,
}

/// Runs the cell's schemes in parallel, flags a scheme that did no GC while others did,
/// writes `summary.json`, `summary.csv`, `cdf.csv` and `report.html` into the cell's
/// directory (machine-dependent costs zeroed, so the files depend only on the inputs) and
/// returns the reports in the order of `schemes`.
pub fn run_cell(cell: &Cell) -> Result<Vec<RunReport>, ReproError> {
    let specs: Vec<RunSpec> = cell
        .schemes
        .iter()
        .map(|s| crate::job::RunSettings { seed: cell.seed, oracle: cell.oracle, ..Default::default() }.spec(cell.device, s))
        .collect();
    run_specs(cell, specs)
}

/// As [`run_cell`], with the runs given: one per entry of `cell.schemes` (their labels in
/// reports and errors), each with its own device, interconnect and host interface. The
/// workload folds into `cell.device`'s host capacity for every run.
pub fn run_specs(cell: &Cell, specs: Vec<RunSpec>) -> Result<Vec<RunReport>, ReproError> {
    let page = cell.device.geometry.page_size as u64;
    let cap = cell.device.host_bytes();
    let w = cell.workload.clone();
    let open = move || -> Result<Box<dyn RequestSource + Send>, String> {
        let read = crate::trace::TraceOptions::default();
        let as_recorded = crate::trace::ReplayOptions::default();
        // Every trace (a file or a bundled one) is replayed the same way; only its source
        // and replay options differ.
        let (src, replay) = match &w {
            Workload::Gen(c) => return Generator::new(c.clone()).map(|g| Box::new(g) as Box<dyn RequestSource + Send>).map_err(|e| e.to_string()),
            Workload::Trace(p) => (crate::trace::open(p, &read).map_err(|e| format!("{}: {e}", p.display()))?, &as_recorded),
            Workload::Hm0Sample(r) => (crate::trace::embedded::hm0(&read), r),
            Workload::Dtrs => (crate::trace::embedded::dtrs(&read), &as_recorded),
        };
        Ok(crate::trace::replay(src, replay, cap, page))
    };
    let mut reports = Vec::with_capacity(specs.len());
    for (s, r) in cell.schemes.iter().zip(run_many(&specs, open, &[])) {
        reports.push(r.map_err(|e| ReproError::Run { cell: cell.title.clone(), scheme: s.clone(), error: e.to_string() })?);
    }
    for (r, label) in reports.iter_mut().zip(cell.schemes.iter()) {
        r.cost.strip_machine();
        // The run's label names it in the cell's files (runs of one scheme on several
        // paths are otherwise alike); `config.scheme` keeps the scheme itself.
        r.scheme.clone_from(label);
    }
    flag_postponed_gc(&mut reports);
    let mut notes = cell.notes.clone();
    notes.push(("seed".into(), cell.seed.to_string()));
    let meta = CompareMeta {
        title: cell.title.clone(),
        workload: cell.workload.describe(),
        device: format!("{} — {}", cell.device.name, cell.device.description),
        notes,
        config: serde_json::json!({ "device": cell.device, "schemes": cell.schemes, "seed": cell.seed, "oracle": cell.oracle }),
    };
    write_outputs(&cell.dir, &meta, &reports)?;
    Ok(reports)
}

/// The user's copy of a real trace in `dir`: the first file, in name order, whose name
/// starts (case-insensitively) with one of `names` followed by `.`, `-` or `_`, or is
/// exactly one of them. `None` without a directory or a match.
pub fn find_trace(dir: Option<&Path>, names: &[&str]) -> Result<Option<PathBuf>, ReproError> {
    let Some(dir) = dir else { return Ok(None) };
    let rd = std::fs::read_dir(dir).map_err(|e| ReproError::TraceDir { dir: dir.to_path_buf(), error: e.to_string() })?;
    let mut files: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()).collect();
    files.sort();
    Ok(files.into_iter().find(|p| {
        let f = p.file_name().map(|f| f.to_string_lossy().to_lowercase()).unwrap_or_default();
        names.iter().any(|n| {
            let n = n.to_lowercase();
            f == n || f.strip_prefix(&n).is_some_and(|rest| rest.starts_with(['.', '-', '_']))
        })
    }))
}

/// Scheme details of a partial-GC policy's task runner (`runner` inside the RL agents' and
/// idle predictors' details, the details themselves for Lazy-RTGC).
pub fn runner_details(r: &RunReport) -> &serde_json::Value {
    r.scheme_details.get("runner").unwrap_or(&r.scheme_details)
}

/// Share of the run's plane-time spent in intensive mode (0 for a scheme without one),
/// from the task runner's closed intervals plus those still open at the end.
pub fn intensive_share(r: &RunReport, planes: u32) -> f64 {
    let d = runner_details(r);
    let closed = d.pointer("/tasks/intensive_plane_ns").and_then(|v| v.as_u64()).unwrap_or(0);
    let end = r.sim_time_ns;
    let open: u64 = d
        .get("intensive_open_since_ns")
        .and_then(|v| v.as_array())
        .map(|a| a.iter().filter_map(|t| t.as_u64()).map(|t| end.saturating_sub(t)).sum())
        .unwrap_or(0);
    if end == 0 || planes == 0 {
        return 0.0;
    }
    ((closed + open) as f64 / (end as f64 * planes as f64)).min(1.0)
}

/// Free blocks of the emptiest plane over the second half of the run: (mean, min). The
/// first half of an empty-start run is the device filling up.
pub fn free_blocks_late(r: &RunReport) -> (f64, u64) {
    let end = r.free_blocks.last().map_or(0, |s| s.time_ns);
    let late: Vec<u64> = r.free_blocks.iter().filter(|s| s.time_ns >= end / 2).map(|s| s.min_plane_free_blocks).collect();
    if late.is_empty() {
        return (0.0, 0);
    }
    (late.iter().sum::<u64>() as f64 / late.len() as f64, late.iter().copied().min().unwrap_or(0))
}

/// `a / b`, or NaN when `b` is 0 (no comparator value: the claim is not measured).
pub fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 {
        a / b
    } else {
        f64::NAN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_is_found_by_its_usual_name_only() {
        let dir = std::env::temp_dir().join(format!("flashtail-find-trace-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for f in ["home10.blkparse", "Home1-110108.blkparse", "webmail+online.blkparse", "notes.txt"] {
            std::fs::write(dir.join(f), "").unwrap();
        }
        let find = |n: &[&str]| find_trace(Some(&dir), n).unwrap().map(|p| p.file_name().unwrap().to_string_lossy().into_owned());
        assert_eq!(find(&["home1"]).as_deref(), Some("Home1-110108.blkparse"));
        assert_eq!(find(&["webmail"]), None, "webmail+online is another trace");
        assert_eq!(find(&["webmail+online"]).as_deref(), Some("webmail+online.blkparse"));
        assert_eq!(find(&["home2"]), None);
        assert_eq!(find_trace(None, &["home1"]).unwrap(), None);
        let e = find_trace(Some(&dir.join("missing")), &["home1"]).unwrap_err().to_string();
        assert!(e.contains("missing"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
