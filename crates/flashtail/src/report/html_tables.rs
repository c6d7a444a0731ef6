//! The results tables of `report.html` as real HTML tables: reads, writes, and flash/GC
//! work, one row per run. Each latency cell holds the value in ms (3 significant digits)
//! and carries the exact number in `data-v`, so a click on a column header sorts by value
//! (the page's small inline script) and a copy into a spreadsheet keeps one number per
//! cell. Ratios to `nogc` have columns of their own.
//!
//! Marks, each explained under the tables: `†` for a percentile resting on fewer than ten
//! samples (see `evidence`), and `↓` for a ratio below 1× against `nogc` — the GC-free
//! run is a lower bound only for GC's cost, so a faster scheme changes what a request
//! does; the note names the mechanism where the scheme has a known one.

use super::baseline::{baseline_index, ratio};
use super::csv_out::summary_of;
use super::evidence::{below_reference_reason, is_thin, thin_legend, THIN_MARK};
use super::fmt::{ms3, pct_count, waf_str};
use super::html::escape_html;
use crate::stats::{LatencySummary, RunReport};
use std::fmt::Write as _;

type StatFn = fn(&LatencySummary) -> f64;

/// Latency columns in ms: header, accessor, percentile name for the thin mark.
const MS_COLS: [(&str, StatFn, &str); 7] = [
    ("mean", |s| s.mean_ns, ""),
    ("p50", |s| s.p50_ns as f64, "p50"),
    ("p99", |s| s.p99_ns as f64, "p99"),
    ("p99.9", |s| s.p99_9_ns as f64, "p99.9"),
    ("p99.99", |s| s.p99_99_ns as f64, "p99.99"),
    ("p99.999", |s| s.p99_999_ns as f64, "p99.999"),
    ("max", |s| s.max_ns as f64, ""),
];

/// Columns that also get a ratio to `nogc` (indices into `MS_COLS`).
const RATIO_COLS: [usize; 4] = [2, 3, 4, 6];

/// The inline script that sorts any `table.sortable` by the clicked column: numerically
/// by `data-v` where both cells have it, else by text; a second click reverses.
pub(crate) const SORT_JS: &str = "document.querySelectorAll('table.sortable th').forEach(function(th){\
th.title='click to sort';th.addEventListener('click',function(){var t=th.closest('table'),b=t.tBodies[0],\
i=Array.prototype.indexOf.call(th.parentNode.children,th),asc=th.dataset.dir!=='asc';\
th.parentNode.querySelectorAll('th').forEach(function(x){delete x.dataset.dir});th.dataset.dir=asc?'asc':'desc';\
var rows=Array.prototype.slice.call(b.rows);rows.sort(function(x,y){var p=x.cells[i],q=y.cells[i],\
u=p.dataset.v,v=q.dataset.v,c=(u!==undefined&&v!==undefined)?parseFloat(u)-parseFloat(v):\
p.textContent.localeCompare(q.textContent);return asc?c:-c});rows.forEach(function(r){b.appendChild(r)})})});";

/// One below-reference finding: scheme, request class, statistic and the reason if known.
struct Below {
    scheme: String,
    op: &'static str,
    stat: &'static str,
    reason: Option<&'static str>,
}

/// Writes the reads, writes and flash/GC tables and the legends of their marks.
pub(crate) fn summary_tables_html(h: &mut String, reports: &[RunReport]) {
    let base = baseline_index(reports);
    let mut below = Vec::new();
    let mut any_thin = false;
    for (title, op) in [("Reads", "read"), ("Writes", "write")] {
        let _ = writeln!(h, "<h3>{title} (latency in ms)</h3>\n<table class=\"sortable\">\n<thead><tr><th>scheme</th><th>count</th>");
        for (name, _, _) in MS_COLS {
            let _ = write!(h, "<th>{name}</th>");
        }
        if base.is_some() {
            for &c in &RATIO_COLS {
                let _ = write!(h, "<th>{} ×nogc</th>", MS_COLS[c].0);
            }
        }
        h.push_str("</tr></thead>\n<tbody>\n");
        for r in reports {
            let s = summary_of(r, op);
            let _ = write!(h, "<tr><td>{}</td><td class=\"n\" data-v=\"{}\">{}</td>", escape_html(&r.scheme), s.count, s.count);
            for (_, get, pct) in MS_COLS {
                let v = get(s);
                let thin = !pct.is_empty() && is_thin(s, pct);
                any_thin |= thin;
                let mark = if thin { format!("<span class=\"thin\">{THIN_MARK}</span>") } else { String::new() };
                let _ = write!(h, "<td class=\"n\" data-v=\"{}\">{}{mark}</td>", v / 1e6, ms3(v));
            }
            if let Some(b) = base {
                for &c in &RATIO_COLS {
                    let (stat, get, _) = MS_COLS[c];
                    let rt = ratio(get(s), get(summary_of(&reports[b], op)));
                    let Some(rt) = rt else {
                        h.push_str("<td class=\"n\">n/a</td>");
                        continue;
                    };
                    let mut cell = format!("{}×", super::fmt::sig3(rt));
                    if rt < 1.0 {
                        let reason = below_reference_reason(&r.scheme, op);
                        let tip = reason.unwrap_or("no known mechanism: check this run");
                        cell = format!("<span class=\"below\" title=\"{}\">{cell} ↓</span>", escape_html(tip));
                        below.push(Below { scheme: r.scheme.clone(), op, stat, reason });
                    }
                    let _ = write!(h, "<td class=\"n\" data-v=\"{rt}\">{cell}</td>");
                }
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</tbody>\n</table>\n");
    }
    marks_legend(h, any_thin, &below);
    flash_table(h, reports);
}

/// The explanations under the latency tables.
fn marks_legend(h: &mut String, any_thin: bool, below: &[Below]) {
    if any_thin {
        let _ = writeln!(h, "<p class=\"marks\">{}.</p>", escape_html(&thin_legend()));
    }
    if below.is_empty() {
        return;
    }
    h.push_str("<p class=\"marks\">↓ faster than <code>nogc</code>, which removes GC's cost but not the device's other limits; a scheme that changes what a request does can beat it:</p>\n<ul class=\"marks\">\n");
    // One line per scheme and class, listing its statistics.
    let mut i = 0;
    while i < below.len() {
        let (scheme, op) = (&below[i].scheme, below[i].op);
        let mut stats = Vec::new();
        let reason = below[i].reason;
        while i < below.len() && below[i].scheme == *scheme && below[i].op == op {
            stats.push(below[i].stat);
            i += 1;
        }
        let why = reason.unwrap_or("no known mechanism for this scheme: check the run (a thin percentile, or a different request mix)");
        let _ = writeln!(h, "<li><b>{}</b> {op}s ({}): {}</li>", escape_html(scheme), stats.join(", "), escape_html(why));
    }
    h.push_str("</ul>\n");
}

/// Flash and GC work per run.
fn flash_table(h: &mut String, reports: &[RunReport]) {
    h.push_str(
        "<h3>Flash and GC</h3>\n<table class=\"sortable\">\n<thead><tr><th>scheme</th><th>WAF</th><th>erases</th>\
         <th>victims selected</th><th>pages migrated</th><th>copybacks</th><th>requests waited on GC</th>\
         <th>reads waited on GC</th></tr></thead>\n<tbody>\n",
    );
    for r in reports {
        let f = &r.flash;
        let w = &r.waits;
        let _ = write!(h, "<tr><td>{}</td><td class=\"n\" data-v=\"{}\">{}</td>", escape_html(&r.scheme), f.waf, escape_html(&waf_str(f)));
        for v in [f.erases, f.gc_runs, f.gc_pages_migrated, f.copybacks] {
            let _ = write!(h, "<td class=\"n\" data-v=\"{v}\">{v}</td>");
        }
        for (share, count) in [(w.share_waited_on_gc, w.requests_waited_on_gc), (w.share_reads_waited_on_gc, w.reads_waited_on_gc)] {
            let _ = write!(h, "<td class=\"n\" data-v=\"{share}\">{}</td>", escape_html(&pct_count(share, count)));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody>\n</table>\n");
    throughput_table(h, reports);
}

/// Bandwidth and IOPS per run (`throughput_table.rs`).
fn throughput_table(h: &mut String, reports: &[RunReport]) {
    h.push_str("<h3>Throughput (first issue to last completion)</h3>\n<table class=\"sortable\">\n<thead><tr>");
    for c in super::throughput_table::HEADERS {
        let _ = write!(h, "<th>{}</th>", escape_html(c));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for row in super::throughput_table::rows(reports) {
        h.push_str("<tr>");
        for (cell, v) in row {
            let _ = match v {
                Some(v) => write!(h, "<td class=\"n\" data-v=\"{v}\">{}</td>", escape_html(&cell)),
                None => write!(h, "<td>{}</td>", escape_html(&cell)),
            };
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody>\n</table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(scheme: &str, read_p99_ns: u64, above_p99: u64) -> RunReport {
        let mut r = RunReport { scheme: scheme.into(), ..Default::default() };
        r.reads.count = 508;
        r.reads.p99_ns = read_p99_ns;
        r.reads.samples_at_or_above.insert("p99".into(), above_p99);
        r.reads.samples_at_or_above.insert("p50".into(), 254);
        r
    }

    #[test]
    fn tables_carry_values_marks_and_reasons() {
        let reports = [run("nogc", 2_000_000, 6), run("ttflash", 1_000_000, 6), run("base", 8_000_000, 12)];
        let mut h = String::new();
        summary_tables_html(&mut h, &reports);
        // Reads, writes, flash and GC, throughput.
        assert_eq!(h.matches("<table class=\"sortable\">").count(), 4);
        assert!(h.contains("<h3>Throughput (first issue to last completion)</h3>"));
        // p99 of base: 8 ms, its ratio 4×, sortable by the exact value.
        assert!(h.contains("<td class=\"n\" data-v=\"8\">8.00</td>"), "{h}");
        assert!(h.contains("<td class=\"n\" data-v=\"4\">4.00×</td>"));
        // nogc's and ttflash's p99 rest on 6 samples: marked, and the legend says so.
        assert_eq!(h.matches("<span class=\"thin\">†</span>").count(), 2);
        assert!(h.contains("fewer than 10 samples"));
        // ttflash's reads at 0.5× nogc: marked with the parity-rebuild reason.
        assert!(h.contains("0.500× ↓"));
        assert!(h.contains("<li><b>ttflash</b> reads (p99): parity rebuild"), "{h}");
    }

    #[test]
    fn no_marks_without_thin_or_faster_runs() {
        let reports = [run("nogc", 2_000_000, 50), run("base", 8_000_000, 50)];
        let mut h = String::new();
        summary_tables_html(&mut h, &reports);
        assert!(!h.contains('†') && !h.contains('↓'));
    }
}
