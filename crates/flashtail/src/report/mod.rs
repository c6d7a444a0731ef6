//! Comparison reports: turns a set of [`RunReport`]s (one per GC scheme, same workload and
//! device) into what a user reads — a terminal table, `summary.json`, `summary.csv`,
//! `cdf.csv` and one self-contained `report.html` with inline SVG figures.
//!
//! A sweep's `report.html` (`sweep_html.rs`) presents its across-seed table the same way,
//! every value with its confidence interval.
//!
//! This module only presents numbers the simulator already computed; it never re-derives
//! latency statistics from raw samples (it has none) and never runs a simulation.
//! Ratios are taken against the run whose scheme is named `nogc` (the ideal baseline: GC at no
//! time cost), matched case-insensitively.

mod baseline;
mod csv_out;
mod error;
mod evidence;
mod figures;
mod fmt;
mod html;
mod html_tables;
mod notes;
mod postponed;
mod svg;
mod sweep_html;
mod table;
mod tail_table;
mod throughput_table;
mod warnings;

pub use baseline::{baseline_index, ratio, BASELINE_SCHEME};
pub use csv_out::{cdf_csv, op_stats, summary_csv, OPS};
pub use error::ReportError;
pub use evidence::{
    below_reference_reason, is_thin, mark_thin, thin_legend, thin_percentiles, THIN_MARK, THIN_SAMPLES,
};
pub use figures::{figure_set, svg_to_png, write_figures, Figure, FiguresWritten, PNG_SCALE};
pub use fmt::{pct_count, waf_str};
pub use html::{escape_html, render_html};
pub use sweep_html::{interval_text, render_sweep_html, SweepPage, Unit as IntervalUnit, MAX_FIGURE_SETS};
pub use postponed::{flag_postponed_gc, NO_GC_MARK, NO_GC_NOTE};
pub use table::{format_table, render as render_rows};
pub use tail_table::{format_tail_table, tail_summary};
pub use warnings::{comparison_warnings, run_warnings};

use crate::stats::RunReport;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What the comparison is about; shown at the top of `report.html` and stored in
/// `summary.json` so a figure can always be traced back to its inputs.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct CompareMeta {
    pub title: String,
    pub workload: String,
    pub device: String,
    /// Free-form provenance facts (key, value), e.g. ("trace", "msr/src1_2 slice 3").
    pub notes: Vec<(String, String)>,
    /// The comparison's full configuration (shown verbatim, pretty-printed).
    pub config: serde_json::Value,
}

/// The document written to `summary.json`.
#[derive(Serialize)]
struct Summary<'a> {
    meta: &'a CompareMeta,
    reports: &'a [RunReport],
}

/// Renders `summary.json` (meta + every report, pretty-printed).
pub fn summary_json(meta: &CompareMeta, reports: &[RunReport]) -> Result<String, ReportError> {
    let mut s = serde_json::to_string_pretty(&Summary { meta, reports }).map_err(|error| {
        ReportError::Json {
            what: "summary.json".into(),
            error,
        }
    })?;
    s.push('\n');
    Ok(s)
}

/// Writes `summary.json`, `summary.csv`, `cdf.csv` and `report.html` into `dir` (created
/// if missing) and returns their paths in that order. Output bytes depend only on the
/// inputs, so re-running a comparison reproduces the files exactly.
pub fn write_outputs(
    dir: &Path,
    meta: &CompareMeta,
    reports: &[RunReport],
) -> Result<Vec<PathBuf>, ReportError> {
    std::fs::create_dir_all(dir).map_err(|error| ReportError::CreateDir {
        path: dir.to_path_buf(),
        error,
    })?;
    // Render everything before writing anything, so a failure leaves no half-written set.
    let files = [
        ("summary.json", summary_json(meta, reports)?),
        ("summary.csv", summary_csv(reports)?),
        ("cdf.csv", cdf_csv(reports)?),
        ("report.html", render_html(meta, reports)),
    ];
    let mut written = Vec::with_capacity(files.len());
    for (name, content) in files {
        let path = dir.join(name);
        std::fs::write(&path, content).map_err(|error| ReportError::Write {
            path: path.clone(),
            error,
        })?;
        written.push(path);
    }
    Ok(written)
}
