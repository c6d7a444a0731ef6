//! Sweeps for Python: the whole sweep on this machine (`sweep_local`), or in three steps for
//! a distributed backend: `sweep_plan` (the points still to run), `sweep_run_point` (one
//! point, called inside a Ray task; returns its rows as JSON) and `sweep_finish` (records
//! the points that ran, reads the resumed ones, writes and returns the tables). Either way
//! the tables are the library's, byte for byte.

use crate::interrupt::interruptible;
use flashtail::job::Cancel;
use flashtail::sweep::{self, ExecOptions, Row, Sweep, SweepOutcome};
use pyo3::prelude::*;
use std::path::{Path, PathBuf};

/// A spec from Python: `kind` "file" (a TOML path), "toml" (TOML text) or "json".
fn parse(kind: &str, text: &str, base: &str) -> PyResult<Sweep> {
    let base = Path::new(base);
    match kind {
        "file" => Sweep::from_file(Path::new(text)),
        "toml" => Sweep::from_toml("sweep spec", text, base),
        _ => Sweep::from_json("sweep spec", text, base),
    }
    .map_err(crate::err)
}

/// The spec with `closed_loop=` / `timing=` (when given) in place of its `[run]`
/// `closed_loop` / `timing`, checked.
fn with_host(mut sw: Sweep, closed_loop: Option<String>, timing: Option<String>) -> PyResult<Sweep> {
    if closed_loop.is_none() && timing.is_none() {
        return Ok(sw);
    }
    let run = &mut sw.spec.run;
    let queues = closed_loop.or_else(|| run.closed_loop.clone());
    let timing = timing.or_else(|| run.timing.clone());
    crate::closed_loop(queues.as_deref(), timing.as_deref()).map_err(crate::err)?;
    (run.closed_loop, run.timing) = (queues, timing);
    Ok(sw)
}

/// (table.csv, ci.csv, failures as (point label, error)) of an outcome.
type Tables = (String, String, Vec<(String, String)>, f64);

fn tables(o: &SweepOutcome) -> PyResult<Tables> {
    let failures = o.failures.iter().map(|(p, e)| (sweep::point_label(p), e.clone())).collect();
    Ok((o.table.to_csv().map_err(crate::err)?, o.ci.to_csv().map_err(crate::err)?, failures, o.wall_seconds))
}

/// Runs every point here (threads: `jobs`, default one per core) and writes the tables into
/// `out`; `closed_loop` / `timing` replace the spec's `[run]` ones when given.
#[pyfunction]
#[pyo3(signature = (kind, text, base, out, jobs=None, resume=false, closed_loop=None, timing=None))]
#[allow(clippy::too_many_arguments)]
pub fn sweep_local(py: Python<'_>, kind: &str, text: &str, base: &str, out: &str, jobs: Option<usize>, resume: bool, closed_loop: Option<String>, timing: Option<String>) -> PyResult<Tables> {
    let sw = with_host(parse(kind, text, base)?, closed_loop, timing)?;
    if jobs == Some(0) {
        return Err(crate::err("jobs must be at least 1"));
    }
    let cancel = Cancel::new();
    let out = PathBuf::from(out);
    let o = interruptible(py, &cancel, || sweep::run_local(&sw, &out, &ExecOptions { jobs, resume }, &|_| {}, &cancel))?.map_err(crate::err)?;
    tables(&o)
}

/// The spec as JSON (what tasks receive, with `closed_loop` / `timing` in its `[run]` when
/// given), the number of points and the indices of the points to run (all, or those `out`
/// has no record of when `resume`).
#[pyfunction]
#[pyo3(signature = (kind, text, base, out, resume, closed_loop=None, timing=None))]
pub fn sweep_plan(kind: &str, text: &str, base: &str, out: &str, resume: bool, closed_loop: Option<String>, timing: Option<String>) -> PyResult<(String, usize, Vec<usize>)> {
    let sw = with_host(parse(kind, text, base)?, closed_loop, timing)?;
    let points = sweep::expand(&sw).map_err(crate::err)?;
    let out = Path::new(out);
    let pending = points.iter().filter(|p| !(resume && sweep::load_point(out, p).is_some())).map(|p| p.index).collect();
    Ok((sw.to_json(), points.len(), pending))
}

/// Runs point `index` of a spec (JSON from `sweep_plan`); its rows as JSON.
#[pyfunction]
pub fn sweep_run_point(py: Python<'_>, spec_json: &str, base: &str, index: usize) -> PyResult<String> {
    let sw = parse("json", spec_json, base)?;
    let points = sweep::expand(&sw).map_err(crate::err)?;
    let p = points.get(index).ok_or_else(|| crate::err(format!("the sweep has {} points, no point {index}", points.len())))?.clone();
    let cancel = Cancel::new();
    let rows = interruptible(py, &cancel, || sweep::run_point(&sw, &p, &cancel))?.map_err(crate::err)?;
    serde_json::to_string(&rows).map_err(|e| crate::err(e.to_string()))
}

/// Gathers the results of the points that ran (`(index, rows JSON or None, error or None)`),
/// records them for resuming, reads the other points' records, and writes the tables.
#[pyfunction]
pub fn sweep_finish(spec_json: &str, base: &str, out: &str, results: Vec<(usize, Option<String>, Option<String>)>, wall_seconds: f64) -> PyResult<Tables> {
    let sw = parse("json", spec_json, base)?;
    let points = sweep::expand(&sw).map_err(crate::err)?;
    let out = Path::new(out);
    std::fs::create_dir_all(out).map_err(|e| crate::err(format!("{}: {e}", out.display())))?;
    let mut got: Vec<Option<Result<Vec<Row>, String>>> = vec![None; points.len()];
    for (i, rows, error) in results {
        let r = match (rows, error) {
            (Some(json), _) => serde_json::from_str::<Vec<Row>>(&json).map_err(|e| format!("point {i}: unreadable rows: {e}")),
            (None, e) => Err(e.unwrap_or_else(|| "no result".into())),
        };
        if let (Ok(rows), Some(p)) = (&r, points.get(i)) {
            sweep::save_point(out, p, rows).map_err(crate::err)?;
        }
        if let Some(slot) = got.get_mut(i) {
            *slot = Some(r);
        }
    }
    let mut resumed = 0;
    let results = points
        .iter()
        .zip(got)
        .map(|(p, r)| {
            r.unwrap_or_else(|| {
                resumed += 1;
                sweep::load_point(out, p).ok_or_else(|| "neither run nor recorded".to_string())
            })
        })
        .collect();
    let mut o = sweep::finish(&sw, &points, results).map_err(crate::err)?;
    o.resumed = resumed;
    o.wall_seconds = wall_seconds;
    sweep::write_tables(out, &o).map_err(crate::err)?;
    tables(&o)
}
