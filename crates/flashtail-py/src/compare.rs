//! `run` / `compare` and `trace_stats` for Python: a request as JSON (device, overrides,
//! workload, schemes, run settings), answered with the files `flashtail compare` writes
//! (`summary.json`, `summary.csv`, `cdf.csv`, as text) and the notes it prints.

use crate::interrupt::interruptible;
use flashtail::job::{self, Cancel, DeviceSource, RunSettings};
use flashtail::report::{cdf_csv, summary_csv, summary_json};
use flashtail::sweep::WorkloadSpec;
use pyo3::prelude::*;
use serde::Deserialize;
use std::path::Path;

/// What Python asks for (`python/flashtail/__init__.py` builds it).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Request {
    /// A preset name or TOML path.
    device: Option<String>,
    /// A whole device as a dict (the keys of a preset's TOML).
    device_dict: Option<serde_json::Value>,
    #[serde(default)]
    set: Vec<String>,
    #[serde(default)]
    workload: WorkloadSpec,
    /// Empty: the default set, as `compare` picks it.
    #[serde(default)]
    schemes: Vec<String>,
    victim: Option<String>,
    interconnect: Option<String>,
    seed: u64,
    oracle: bool,
    latency: String,
    #[serde(default)]
    power_loss_every: u64,
    #[serde(default)]
    power_cut_at: Vec<u64>,
    #[serde(default)]
    no_cost: bool,
    /// The closed-loop host interface, `QD` or `QDxQUEUES` (`--closed-loop`); `None`: open loop.
    closed_loop: Option<String>,
    /// With `closed_loop`: `trace` (the default) or `ignore` (`--timing`).
    timing: Option<String>,
}

fn device_source(r: &Request) -> Result<DeviceSource, String> {
    match (&r.device, &r.device_dict) {
        (_, Some(v)) => {
            let text = toml::to_string(v).map_err(|e| format!("device dict: {e}"))?;
            Ok(DeviceSource::Toml { origin: "device dict".into(), text })
        }
        (Some(n), None) => Ok(DeviceSource::Named(n.clone())),
        (None, None) => Ok(DeviceSource::Named("dtrs-demo".into())),
    }
}

/// Runs a comparison; returns (summary.json, summary.csv, cdf.csv, notes).
#[pyfunction]
pub fn compare(py: Python<'_>, request: &str) -> PyResult<(String, String, String, Vec<String>)> {
    let r: Request = serde_json::from_str(request).map_err(|e| crate::err(format!("request: {e}")))?;
    let dev = job::load_device(&device_source(&r).map_err(crate::err)?, &r.set).map_err(crate::err)?;
    let workload = r.workload.workload(Path::new("."), None).map_err(crate::err)?;
    let latency = r.latency.parse().map_err(crate::err)?;
    let closed_loop = crate::closed_loop(r.closed_loop.as_deref(), r.timing.as_deref()).map_err(crate::err)?;
    let run = RunSettings { victim: r.victim.clone(), interconnect: r.interconnect.clone(), seed: r.seed, oracle: r.oracle, power_loss_every: r.power_loss_every, power_cut_at: r.power_cut_at.clone(), latency, closed_loop, ..RunSettings::default() };
    let mut notes = Vec::new();
    let plan = job::plan(&dev, &workload, &r.schemes, &run, job::INPUT_MEMORY_DEFAULT, &mut |n| notes.push(n)).map_err(crate::err)?;
    let cancel = Cancel::new();
    let outcome = interruptible(py, &cancel, || job::compare(&plan, &[], &cancel))?.map_err(crate::err)?;
    let mut meta = job::compare_meta(&dev, &workload.describe(), &outcome, &run, &r.set);
    let mut reports = outcome.reports;
    if r.no_cost {
        job::strip_cost(&mut meta, &mut reports);
    }
    let text = |x: Result<String, flashtail::report::ReportError>| x.map_err(|e| crate::err(e.to_string()));
    Ok((text(summary_json(&meta, &reports))?, text(summary_csv(&reports))?, text(cdf_csv(&reports))?, notes))
}

/// `flashtail trace stats --json` of a trace (the bundled DTRS slice when `path` is None).
#[pyfunction]
#[pyo3(signature = (path, workload))]
pub fn trace_stats(py: Python<'_>, path: Option<String>, workload: &str) -> PyResult<String> {
    let ws: WorkloadSpec = serde_json::from_str(workload).map_err(|e| crate::err(format!("trace options: {e}")))?;
    let opts = ws.trace_options().map_err(crate::err)?;
    let cancel = Cancel::new();
    let out = interruptible(py, &cancel, move || -> Result<String, String> {
        let mut src: Box<dyn flashtail::RequestSource + Send> = match &path {
            Some(p) => flashtail::trace::open(Path::new(p), &opts).map_err(|e| job::error_chain(&e))?,
            None => flashtail::trace::embedded::dtrs(&opts),
        };
        let st = flashtail::trace::stats::collect(&mut *src).map_err(|e| e.to_string())?;
        let mut summary = src.summary();
        if let Some(why) = src.empty_reason() {
            summary.push(("empty_reason".to_string(), why));
        }
        let source: serde_json::Map<String, serde_json::Value> = summary.into_iter().map(|(k, v)| (k, serde_json::Value::String(v))).collect();
        serde_json::to_string(&serde_json::json!({ "stats": st, "source": source })).map_err(|e| e.to_string())
    })?;
    out.map_err(crate::err)
}

/// The bundled device presets: (name, the device as JSON).
#[pyfunction]
pub fn presets() -> PyResult<Vec<(String, String)>> {
    flashtail::config::presets::names()
        .into_iter()
        .map(|n| {
            let d = flashtail::config::presets::load(n).map_err(crate::err)?;
            Ok((n.to_string(), serde_json::to_string(&d).map_err(|e| crate::err(e.to_string()))?))
        })
        .collect()
}

/// The GC schemes: (name, description).
#[pyfunction]
pub fn schemes() -> Vec<(String, String)> {
    flashtail::gc::scheme_names().into_iter().map(|(n, d)| (n.to_string(), d.to_string())).collect()
}
