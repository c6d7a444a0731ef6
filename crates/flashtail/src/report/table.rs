//! The plain-text comparison table for the terminal: a read table, a write table, a
//! flash/GC table and a throughput table (`throughput_table.rs`), each at most ~110 columns wide so it reads in a 120-column terminal.
//! Latencies are in ms with 3 significant digits; when a `nogc` run is present each
//! latency also carries its slowdown against it, e.g. `12.3 (8.1×)`. A percentile resting
//! on fewer than ten samples carries `†` (explained under the table).

use super::baseline::{baseline_index, ratio};
use super::csv_out::StatFn;
use super::fmt::{ms3, pct_count, ratio_str, waf_str};
use super::postponed::{NO_GC_MARK, NO_GC_NOTE};
use crate::stats::{LatencySummary, RunReport};

/// Latency columns of the read and write tables: header and accessor.
const LAT_COLS: [(&str, StatFn); 5] = [
    ("mean", |s| s.mean_ns),
    ("p99", |s| s.p99_ns as f64),
    ("p99.9", |s| s.p99_9_ns as f64),
    ("p99.99", |s| s.p99_99_ns as f64),
    ("max", |s| s.max_ns as f64),
];

/// Formats the comparison of `reports` as aligned plain-text tables.
pub fn format_table(reports: &[RunReport]) -> String {
    if reports.is_empty() {
        return "no runs to compare\n".into();
    }
    let base = baseline_index(reports);
    let ratio_note = match base {
        Some(_) => "ms; (×) = ratio to nogc",
        None => "ms; no nogc run, so no ratios",
    };
    let mut out = String::new();
    let mut any_thin = false;
    for (title, pick) in [
        (
            "Reads",
            (|r: &RunReport| &r.reads) as fn(&RunReport) -> &LatencySummary,
        ),
        ("Writes", |r: &RunReport| &r.writes),
    ] {
        out.push_str(&format!("{title} ({ratio_note})\n"));
        let mut headers = vec!["scheme", "count"];
        headers.extend(LAT_COLS.iter().map(|(h, _)| *h));
        let rows = reports
            .iter()
            .map(|r| {
                let s = pick(r);
                let mut row = vec![r.scheme.clone(), s.count.to_string()];
                for (name, get) in LAT_COLS {
                    let v = get(s);
                    let thin = super::evidence::is_thin(s, name);
                    any_thin |= thin;
                    let cell = match base {
                        Some(b) => {
                            format!(
                                "{} ({})",
                                ms3(v),
                                ratio_str(ratio(v, get(pick(&reports[b]))))
                            )
                        }
                        None => ms3(v),
                    };
                    row.push(if thin { cell + super::evidence::THIN_MARK } else { cell });
                }
                row
            })
            .collect();
        out.push_str(&render(&headers, rows));
        out.push('\n');
    }
    if any_thin {
        out.push_str(&super::evidence::thin_legend());
        out.push_str("\n\n");
    }
    out.push_str("Flash and GC\n");
    let headers = [
        "scheme",
        "WAF",
        "erases",
        "victims selected",
        "pages migrated",
        "copybacks",
        "waited on GC",
        "reads waited on GC",
    ];
    let rows = reports
        .iter()
        .map(|r| {
            vec![
                if r.no_gc_in_window { format!("{} {NO_GC_MARK}", r.scheme) } else { r.scheme.clone() },
                waf_str(&r.flash),
                r.flash.erases.to_string(),
                r.flash.gc_runs.to_string(),
                r.flash.gc_pages_migrated.to_string(),
                r.flash.copybacks.to_string(),
                pct_count(r.waits.share_waited_on_gc, r.waits.requests_waited_on_gc),
                pct_count(r.waits.share_reads_waited_on_gc, r.waits.reads_waited_on_gc),
            ]
        })
        .collect();
    out.push_str(&render(&headers, rows));
    if reports.iter().any(|r| r.no_gc_in_window) {
        out.push_str(&format!("{NO_GC_MARK} {NO_GC_NOTE}\n"));
    }
    out.push('\n');
    out.push_str(&super::throughput_table::format(reports));
    out
}

/// Aligns `rows` under `headers`: first column left-aligned (names), the rest
/// right-aligned (numbers), two spaces between columns, no trailing spaces.
pub fn render(headers: &[&str], rows: Vec<Vec<String>>) -> String {
    let mut widths: Vec<usize> = headers.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let mut s = String::new();
        for (i, (cell, w)) in cells.zip(&widths).enumerate() {
            if i == 0 {
                s.push_str(&format!("{cell:<w$}"));
            } else {
                s.push_str(&format!("  {cell:>w$}"));
            }
        }
        s.truncate(s.trim_end().len());
        s.push('\n');
        s
    };
    let mut out = line(&mut headers.iter().copied());
    for row in &rows {
        out.push_str(&line(&mut row.iter().map(String::as_str)));
    }
    out
}
