//! `summary.csv` and `cdf.csv`: the numbers behind the page, for spreadsheets and scripts.
//!
//! `summary.csv` has one row per scheme × op (`read`, `write`, `all`, in that order).
//! Latency columns are integer ns (mean as a float); `*_ratio` columns divide by the same
//! op's statistic of the `nogc` run and are empty when there is no `nogc` run or its value
//! is zero. `waf`, `erases` and `gc_pages_migrated` are run-wide and repeat on each op row.
//! `share_waited_on_gc` is per op: the run's share for `all`, the share of reads for
//! `read`, and for `write` the waited requests that were not reads over the write count.
//! `mb_per_s` and `iops` are the op's throughput over the run's span (first issue to last
//! completion; `stats::throughput`): under open loop the offered load, under the closed-loop
//! host interface what the device sustains.
//! `thin` lists, `;`-separated, the percentiles of the row resting on fewer than ten
//! samples at or above their value (see `evidence`; e.g. `p99.9;p99.99;p99.999` for 508
//! reads), empty when none is.
//! Floats use Rust's shortest round-trip form, so files are byte-reproducible.

use super::baseline::{baseline_index, ratio};
use super::error::ReportError;
use crate::stats::{Cdf, LatencySummary, RunReport};

/// Reads one statistic (ns) out of a latency summary.
pub(crate) type StatFn = fn(&LatencySummary) -> f64;

/// Latency statistics exported to `summary.csv`, in column order.
const STATS: [(&str, StatFn); 8] = [
    ("mean", |s| s.mean_ns),
    ("p50", |s| s.p50_ns as f64),
    ("p90", |s| s.p90_ns as f64),
    ("p99", |s| s.p99_ns as f64),
    ("p99_9", |s| s.p99_9_ns as f64),
    ("p99_99", |s| s.p99_99_ns as f64),
    ("p99_999", |s| s.p99_999_ns as f64),
    ("max", |s| s.max_ns as f64),
];

/// The three request classes, with their CSV names.
pub const OPS: [&str; 3] = ["read", "write", "all"];

pub(crate) fn summary_of<'a>(r: &'a RunReport, op: &str) -> &'a LatencySummary {
    match op {
        "read" => &r.reads,
        "write" => &r.writes,
        _ => &r.all,
    }
}

pub(crate) fn cdf_of<'a>(r: &'a RunReport, op: &str) -> &'a Cdf {
    match op {
        "read" => &r.cdf_reads,
        "write" => &r.cdf_writes,
        _ => &r.cdf_all,
    }
}

/// Share of `op` requests that waited behind GC (see the module doc for `write`).
fn share_waited(r: &RunReport, op: &str) -> f64 {
    let w = &r.waits;
    match op {
        "read" => w.share_reads_waited_on_gc,
        "write" if r.writes.count > 0 => {
            w.requests_waited_on_gc.saturating_sub(w.reads_waited_on_gc) as f64
                / r.writes.count as f64
        }
        "write" => 0.0,
        _ => w.share_waited_on_gc,
    }
}

fn float(v: f64) -> String {
    format!("{v}")
}

/// Renders `summary.csv`.
pub fn summary_csv(reports: &[RunReport]) -> Result<String, ReportError> {
    let what = "summary.csv";
    let err = |error| ReportError::Csv {
        what: what.into(),
        error,
    };
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["scheme".to_string(), "op".into(), "count".into()];
    header.extend(STATS.iter().map(|(n, _)| format!("{n}_ns")));
    header.extend(STATS.iter().map(|(n, _)| format!("{n}_ratio")));
    header.extend(["waf", "erases", "gc_pages_migrated", "mb_per_s", "iops", "share_waited_on_gc", "thin"].map(String::from));
    w.write_record(&header).map_err(err)?;
    let base = baseline_index(reports).map(|i| &reports[i]);
    for r in reports {
        for op in OPS {
            let s = summary_of(r, op);
            let mut row = vec![r.scheme.clone(), op.to_string(), s.count.to_string()];
            // Integer statistics print as integers; only the mean is fractional.
            row.push(float(s.mean_ns));
            row.extend(
                STATS[1..]
                    .iter()
                    .map(|(_, get)| format!("{}", get(s) as u64)),
            );
            for (_, get) in STATS {
                let cell = base
                    .and_then(|b| ratio(get(s), get(summary_of(b, op))))
                    .map(float)
                    .unwrap_or_default();
                row.push(cell);
            }
            row.push(float(r.flash.waf));
            row.push(r.flash.erases.to_string());
            row.push(r.flash.gc_pages_migrated.to_string());
            let (mb, iops) = r.throughput.of(op);
            row.push(float(mb));
            row.push(float(iops));
            row.push(float(share_waited(r, op)));
            row.push(super::evidence::thin_percentiles(s).join(";"));
            w.write_record(&row).map_err(err)?;
        }
    }
    finish(w, what)
}

/// Every statistic of `op` in `r` as (name, value), in `summary.csv`'s column order: the
/// count, the latency statistics in ns (`mean_ns` ... `max_ns`), `mb_per_s`, `iops`, `share_waited_on_gc`, and
/// for `all` only the run-wide `waf`, `erases` and `gc_pages_migrated`. The rows of a
/// sweep's tidy table.
pub fn op_stats(r: &RunReport, op: &str) -> Vec<(String, f64)> {
    let s = summary_of(r, op);
    let mut v = vec![("count".to_string(), s.count as f64)];
    v.extend(STATS.iter().map(|(n, get)| (format!("{n}_ns"), get(s))));
    let (mb, iops) = r.throughput.of(op);
    v.push(("mb_per_s".into(), mb));
    v.push(("iops".into(), iops));
    v.push(("share_waited_on_gc".into(), share_waited(r, op)));
    if op == "all" {
        v.push(("waf".into(), r.flash.waf));
        v.push(("erases".into(), r.flash.erases as f64));
        v.push(("gc_pages_migrated".into(), r.flash.gc_pages_migrated as f64));
    }
    v
}

/// Renders `cdf.csv`: every CDF point of every scheme and op.
pub fn cdf_csv(reports: &[RunReport]) -> Result<String, ReportError> {
    let what = "cdf.csv";
    let err = |error| ReportError::Csv {
        what: what.into(),
        error,
    };
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["scheme", "op", "latency_ns", "cdf"])
        .map_err(err)?;
    for r in reports {
        for op in OPS {
            for &(lat, p) in &cdf_of(r, op).points {
                w.write_record([r.scheme.as_str(), op, &lat.to_string(), &float(p)])
                    .map_err(err)?;
            }
        }
    }
    finish(w, what)
}

fn finish(w: csv::Writer<Vec<u8>>, what: &str) -> Result<String, ReportError> {
    let bytes = w.into_inner().map_err(|e| ReportError::Csv {
        what: what.into(),
        error: csv::Error::from(e.into_error()),
    })?;
    // The writer only ever received `String`s, so the bytes are UTF-8.
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}
