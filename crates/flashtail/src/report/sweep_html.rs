//! A sweep's `report.html`: the across-seed table (`sweep::ci`) as a page, in the same
//! self-contained form as a comparison's report (inline CSS and SVG, the sorting script).
//! Every cell shows the mean over the seeds and its confidence interval, `mean [low – high]`;
//! every figure draws the interval as an error bar around the mean (`svg::interval`).
//!
//! Figures: read and write p99 and p99.99 over the first swept parameter (the first `set`
//! key with more than one value), one set of them per device, workload and value of the
//! other swept parameters, at most [`MAX_FIGURE_SETS`] sets. Tables: reads, writes and the
//! flash work, one row per device, workload, parameter values and scheme.
//!
//! Does not re-derive anything: every number is a row of `ci.csv`.

use super::fmt::ms3;
use super::html::{escape_html, CSS};
use super::html_tables::SORT_JS;
use super::svg::{interval_svg, IntervalSeries};
use crate::sweep::{CiRow, CiTable};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// What the page says about a sweep besides its across-seed table.
pub struct SweepPage<'a> {
    pub title: String,
    /// Provenance facts shown under the title (key, value).
    pub facts: Vec<(String, String)>,
    pub ci: &'a CiTable,
    /// Points that failed: one line each.
    pub failures: Vec<String>,
}

/// Most figure sets (four figures each) on one page; the tables always hold everything.
pub const MAX_FIGURE_SETS: usize = 8;

/// (device, workload, parameter values, scheme): one table row.
type RowKey = (String, String, Vec<String>, String);

/// The across-seed rows by (row key, op, stat), and the row keys in the table's order.
struct Index<'a> {
    keys: Vec<RowKey>,
    cells: BTreeMap<(RowKey, &'a str, &'a str), &'a CiRow>,
}

fn index(ci: &CiTable) -> Index<'_> {
    let mut keys: Vec<RowKey> = Vec::new();
    let mut cells = BTreeMap::new();
    for r in &ci.rows {
        let k: RowKey = (r.device.clone(), r.workload.clone(), r.params.clone(), r.scheme.clone());
        if keys.last() != Some(&k) && !keys.contains(&k) {
            keys.push(k.clone());
        }
        cells.insert((k, r.op.as_str(), r.stat.as_str()), r);
    }
    Index { keys, cells }
}

/// Renders the page.
pub fn render_sweep_html(page: &SweepPage<'_>) -> String {
    let mut h = String::new();
    let title = escape_html(&page.title);
    let _ = writeln!(h, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>{title}</title>\n<style>{CSS}</style>\n</head>\n<body>\n<h1>{title}</h1>");
    h.push_str("<dl class=\"prov\">\n");
    for (k, v) in &page.facts {
        let _ = writeln!(h, "<dt>{}</dt><dd>{}</dd>", escape_html(k), escape_html(v));
    }
    h.push_str("</dl>\n");
    let level = page.ci.level * 100.0;
    let _ = writeln!(
        h,
        "<p class=\"headline\">Each value is the mean over the seeds with its {level}% percentile-bootstrap interval of the mean, \
         <code>mean [low – high]</code> in the tables and an error bar in the figures (<code>ci.csv</code>). With few seeds the \
         interval only spans the seeds' own values: read it as how far the seeds moved the statistic.</p>"
    );
    if !page.failures.is_empty() {
        let _ = writeln!(h, "<h2>Failed points ({})</h2>\n<ul>", page.failures.len());
        for f in &page.failures {
            let _ = writeln!(h, "<li>{}</li>", escape_html(f));
        }
        h.push_str("</ul>\n");
    }
    let ix = index(page.ci);
    figures(&mut h, page.ci, &ix);
    tables(&mut h, page.ci, &ix);
    let _ = writeln!(h, "<script>{SORT_JS}</script>\n</body>\n</html>");
    h
}

/// The statistics of the figures: op, stat, label.
const FIGURE_STATS: [(&str, &str, &str); 4] =
    [("read", "p99_ns", "read p99"), ("read", "p99_99_ns", "read p99.99"), ("write", "p99_ns", "write p99"), ("write", "p99_99_ns", "write p99.99")];

fn figures(h: &mut String, ci: &CiTable, ix: &Index<'_>) {
    // The x axis: the first parameter with more than one value.
    let distinct = |c: usize| {
        let mut v: Vec<&String> = Vec::new();
        for k in &ix.keys {
            if !v.contains(&&k.2[c]) {
                v.push(&k.2[c]);
            }
        }
        v
    };
    let axis = (0..ci.params.len()).find(|&c| distinct(c).len() > 1);
    let x_labels: Vec<String> = match axis {
        Some(c) => distinct(c).into_iter().cloned().collect(),
        None => vec![String::new()],
    };
    let x_name = axis.map_or("one setting (nothing swept)".to_string(), |c| ci.params[c].clone());
    // One figure set per device, workload and the other parameters' values.
    type SetKey = (String, String, Vec<String>);
    let mut sets: Vec<SetKey> = Vec::new();
    let set_of = |k: &RowKey| -> SetKey {
        let others: Vec<String> = k.2.iter().enumerate().filter(|(c, _)| Some(*c) != axis).map(|(_, v)| v.clone()).collect();
        (k.0.clone(), k.1.clone(), others)
    };
    for k in &ix.keys {
        let s = set_of(k);
        if !sets.contains(&s) {
            sets.push(s);
        }
    }
    h.push_str("<h2>Figures</h2>\n");
    if sets.len() > MAX_FIGURE_SETS {
        let _ = writeln!(h, "<p class=\"marks\">The first {MAX_FIGURE_SETS} of {} settings are drawn; the tables below hold all of them.</p>", sets.len());
    }
    let other_names: Vec<&String> = ci.params.iter().enumerate().filter(|(c, _)| Some(*c) != axis).map(|(_, n)| n).collect();
    for set in sets.iter().take(MAX_FIGURE_SETS) {
        let mut label = format!("{} · {}", set.0, set.1);
        for (n, v) in other_names.iter().zip(&set.2) {
            let _ = write!(label, " · {n}={v}");
        }
        let _ = writeln!(h, "<h3>{}</h3>\n<div class=\"figs\">", escape_html(&label));
        for (op, stat, what) in FIGURE_STATS {
            let mut series: Vec<IntervalSeries> = Vec::new();
            for k in ix.keys.iter().filter(|k| set_of(k) == *set) {
                let x = axis.map_or(0, |c| x_labels.iter().position(|v| *v == k.2[c]).unwrap_or(0));
                let Some(r) = ix.cells.get(&(k.clone(), op, stat)) else { continue };
                let i = match series.iter().position(|s| s.scheme == k.3) {
                    Some(i) => i,
                    None => {
                        series.push(IntervalSeries { scheme: k.3.clone(), points: Vec::new() });
                        series.len() - 1
                    }
                };
                series[i].points.push((x, r.mean, r.ci_low, r.ci_high));
            }
            let caption = format!("{what}: mean over seeds and its {}% interval", ci.level * 100.0);
            match interval_svg(what, &x_name, &x_labels, &series) {
                Ok(svg) => {
                    let _ = writeln!(h, "<figure class=\"full\">{svg}<figcaption>{}</figcaption></figure>", escape_html(&caption));
                }
                Err(e) => {
                    let _ = writeln!(h, "<p class=\"fig-error\">{}: {}</p>", escape_html(what), escape_html(&e));
                }
            }
        }
        h.push_str("</div>\n");
    }
}

/// How a table column shows its values.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// A latency in ns, shown in ms.
    Ms,
    /// A share in [0, 1], shown in percent.
    Share,
    /// A count or a ratio as it is.
    Plain,
}

/// Table columns: header, stat, unit.
const LATENCY_COLS: [(&str, &str, Unit); 7] = [
    ("mean", "mean_ns", Unit::Ms),
    ("p50", "p50_ns", Unit::Ms),
    ("p99", "p99_ns", Unit::Ms),
    ("p99.9", "p99_9_ns", Unit::Ms),
    ("p99.99", "p99_99_ns", Unit::Ms),
    ("max", "max_ns", Unit::Ms),
    ("waited on GC", "share_waited_on_gc", Unit::Share),
];
const WORK_COLS: [(&str, &str, Unit); 4] =
    [("WAF", "waf", Unit::Plain), ("erases", "erases", Unit::Plain), ("GC pages moved", "gc_pages_migrated", Unit::Plain), ("waited on GC", "share_waited_on_gc", Unit::Share)];

fn tables(h: &mut String, ci: &CiTable, ix: &Index<'_>) {
    for (title, op, cols) in [("Reads (ms)", "read", &LATENCY_COLS[..]), ("Writes (ms)", "write", &LATENCY_COLS[..]), ("Flash work", "all", &WORK_COLS[..])] {
        let _ = writeln!(h, "<h2>{title}</h2>\n<table class=\"sortable\">\n<thead><tr><th>device</th><th>workload</th>");
        for p in &ci.params {
            let _ = write!(h, "<th>{}</th>", escape_html(p));
        }
        h.push_str("<th>scheme</th><th>seeds</th>");
        for (name, _, _) in cols {
            let _ = write!(h, "<th>{name}</th>");
        }
        h.push_str("</tr></thead>\n<tbody>\n");
        for k in &ix.keys {
            let seeds = ix.cells.get(&(k.clone(), op, "count")).or_else(|| ix.cells.get(&(k.clone(), op, cols[0].1))).map_or(0, |r| r.seeds);
            let _ = write!(h, "<tr><td>{}</td><td>{}</td>", escape_html(&k.0), escape_html(&k.1));
            for v in &k.2 {
                let _ = write!(h, "<td>{}</td>", escape_html(v));
            }
            let _ = write!(h, "<td>{}</td><td class=\"n\">{seeds}</td>", escape_html(&k.3));
            for &(_, stat, unit) in cols {
                match ix.cells.get(&(k.clone(), op, stat)) {
                    Some(r) => {
                        let _ = write!(h, "<td class=\"n\" data-v=\"{}\">{}</td>", r.mean, escape_html(&interval_text(r, unit)));
                    }
                    None => h.push_str("<td></td>"),
                }
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</tbody></table>\n");
    }
}

/// `mean [low – high]` in the column's unit: ms with three significant digits, a
/// percentage, or the number.
pub fn interval_text(r: &CiRow, unit: Unit) -> String {
    let f = |v: f64| match unit {
        Unit::Ms => ms3(v),
        Unit::Share => super::fmt::pct(v),
        Unit::Plain => num(v),
    };
    if r.seeds < 2 {
        return f(r.mean);
    }
    format!("{} [{} – {}]", f(r.mean), f(r.ci_low), f(r.ci_high))
}

/// A count as a whole number, anything else with three significant digits.
fn num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        super::fmt::sig3(v)
    }
}
