//! `report.html`: one self-contained page — inline CSS, inline SVG, one small inline script
//! that sorts tables by column, no network resources — so it can be mailed, archived or
//! opened offline years later (without the script the tables are merely unsorted). Every
//! piece of text that comes from inputs (scheme names, notes, configuration) is
//! HTML-escaped.
//!
//! Layout: results first. The first screen holds the title, workload, device, a one-line
//! headline (reads and writes), the results tables (`html_tables.rs`) and then the figures; provenance detail (replay notes,
//! per-run cost, samples behind percentiles, configuration) sits below or in collapsed
//! `<details>` blocks, because dozens of ingestion counters above the results pushed every
//! number off the first screen.

use super::baseline::{baseline_index, ratio};
use super::evidence::{is_thin, THIN_MARK};
use super::fmt::{ms3, ratio_str, sig3};
use super::html_tables::{summary_tables_html, SORT_JS};
use super::notes::sort_notes;
use super::CompareMeta;
use crate::stats::RunReport;
use std::fmt::Write as _;

/// Escapes the five characters that can change the meaning of HTML text or attributes.
pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

pub(crate) const CSS: &str = "
body{font-family:sans-serif;margin:24px auto;max-width:1340px;color:#222;line-height:1.4}
h1{margin-bottom:4px} h2{margin-top:32px;border-bottom:1px solid #ccc}
dl.prov{display:grid;grid-template-columns:max-content auto;gap:2px 16px}
dl.prov dt{font-weight:bold} dl.prov dd{margin:0}
details.notes{margin:8px 0} details.notes summary{cursor:pointer;color:#444}
p.headline{font-size:15px;margin:6px 0}
table{border-collapse:collapse;font-size:13px} td,th{border:1px solid #ccc;padding:3px 8px}
td.n{text-align:right;font-variant-numeric:tabular-nums} th{background:#f3f3f3}
pre{background:#f7f7f7;padding:10px;overflow-x:auto;font-size:13px}
.figs{display:flex;flex-wrap:wrap;gap:10px}
figure{margin:0;border:1px solid #ddd} figcaption{font-size:13px;padding:4px 8px;max-width:620px;color:#444}
figure.full figcaption{max-width:1270px}
.fig-error{color:#a00;padding:8px} td.bad{background:#fdd;color:#a00;font-weight:bold}
table.sortable th{cursor:pointer} table.sortable th[data-dir=asc]::after{content:' ▲'}
table.sortable th[data-dir=desc]::after{content:' ▼'} tbody tr:nth-child(even){background:#fafafa}
span.thin{color:#a50;font-weight:bold} span.below{color:#05a} .marks{font-size:13px;color:#444;margin:4px 0}
h3{margin:18px 0 6px;font-size:16px}
";

/// Renders the whole page.
pub fn render_html(meta: &CompareMeta, reports: &[RunReport]) -> String {
    let title = if meta.title.is_empty() {
        "flashtail comparison"
    } else {
        meta.title.as_str()
    };
    let mut h = String::new();
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    let _ = writeln!(
        h,
        "<title>{}</title>\n<style>{CSS}</style>\n</head>\n<body>",
        escape_html(title)
    );
    let _ = writeln!(h, "<h1>{}</h1>", escape_html(title));
    header(&mut h, meta, reports);
    notes(&mut h, meta, reports);
    h.push_str("<h2>Latency and GC summary</h2>\n");
    summary_tables_html(&mut h, reports);
    super::tail_table::tail_table_html(&mut h, reports);
    figures(&mut h, reports);
    runs(&mut h, reports);
    evidence(&mut h, reports);
    configuration(&mut h, meta, reports);
    let _ = writeln!(h, "<script>{SORT_JS}</script>");
    h.push_str("</body>\n</html>\n");
    h
}

/// What was compared, and the result in one line: always visible.
fn header(h: &mut String, meta: &CompareMeta, reports: &[RunReport]) {
    let given = |v: &str| {
        if v.is_empty() {
            "(not given)".to_string()
        } else {
            v.to_string()
        }
    };
    h.push_str("<dl class=\"prov\">\n");
    for (k, v) in [("workload", &meta.workload), ("device", &meta.device)] {
        let _ = writeln!(h, "<dt>{k}</dt><dd>{}</dd>", escape_html(&given(v)));
    }
    h.push_str("</dl>\n");
    let _ = writeln!(
        h,
        "<p class=\"headline\">{}</p>",
        escape_html(&headline(reports))
    );
}

/// One sentence: how many runs, the range of read and of write p99.99 (each against nogc
/// when present, thin values marked), and any integrity violation, which would make every
/// other number suspect.
pub(crate) fn headline(reports: &[RunReport]) -> String {
    let mut s = format!(
        "{} run{}",
        reports.len(),
        if reports.len() == 1 { "" } else { "s" }
    );
    if reports.is_empty() {
        return s + ".";
    }
    let mut any_thin = false;
    for (noun, pick) in [
        ("Read", (|r: &RunReport| &r.reads) as fn(&RunReport) -> &crate::stats::LatencySummary),
        ("Write", |r: &RunReport| &r.writes),
    ] {
        let with: Vec<&RunReport> = reports.iter().filter(|r| pick(r).count > 0).collect();
        let best = with.iter().min_by_key(|r| pick(r).p99_99_ns);
        let worst = with.iter().max_by_key(|r| pick(r).p99_99_ns);
        let (Some(b), Some(w)) = (best, worst) else {
            s += &format!(". No {}s completed", noun.to_lowercase());
            continue;
        };
        let mut val = |r: &RunReport| {
            let thin = is_thin(pick(r), "p99.99");
            any_thin |= thin;
            format!("{} ms{}", ms3(pick(r).p99_99_ns as f64), if thin { THIN_MARK } else { "" })
        };
        if b.scheme == w.scheme {
            s += &format!(". {noun} p99.99 {} ({})", val(b), b.scheme);
        } else {
            s += &format!(
                ". {noun} p99.99 from {} ({}) to {} ({})",
                val(b),
                b.scheme,
                val(w),
                w.scheme
            );
        }
        if let Some(base) = baseline_index(reports) {
            let r = ratio(pick(w).p99_99_ns as f64, pick(&reports[base]).p99_99_ns as f64);
            s += &format!(", worst = {} nogc", ratio_str(r));
        }
    }
    if any_thin {
        s += &format!(" ({THIN_MARK} fewer than {} samples)", super::evidence::THIN_SAMPLES);
    }
    let violations: u64 = reports.iter().map(|r| r.integrity.violations).sum();
    if violations > 0 {
        s += &format!(". INTEGRITY VIOLATIONS: {violations} stale reads (simulator bug)");
    }
    s + "."
}

/// Workload and replay notes, collapsed: facts every run shares, then a per-run table of
/// facts that differ between runs, each value taken from its own report.
fn notes(h: &mut String, meta: &CompareMeta, reports: &[RunReport]) {
    let sorted = sort_notes(&meta.notes, reports);
    if sorted.common.is_empty() && sorted.per_run.is_empty() {
        return;
    }
    let differ = if sorted.per_run.is_empty() {
        String::new()
    } else {
        let keys: Vec<&str> = sorted.per_run.iter().map(|(k, _)| k.as_str()).collect();
        format!("; differ between runs: {}", keys.join(", "))
    };
    let _ = writeln!(
        h,
        "<details class=\"notes\"><summary>Workload and replay notes ({} shared by every run{})</summary>",
        sorted.common.len(),
        escape_html(&differ)
    );
    if !sorted.common.is_empty() {
        h.push_str("<dl class=\"prov\">\n");
        for (k, v) in &sorted.common {
            let _ = writeln!(h, "<dt>{}</dt><dd>{}</dd>", escape_html(k), escape_html(v));
        }
        h.push_str("</dl>\n");
    }
    if !sorted.per_run.is_empty() {
        h.push_str("<p>Differing between runs:</p>\n<table>\n<tr><th>note</th>");
        for r in reports {
            let _ = write!(h, "<th>{}</th>", escape_html(&r.scheme));
        }
        h.push_str("</tr>\n");
        for (k, values) in &sorted.per_run {
            let _ = write!(h, "<tr><td>{}</td>", escape_html(k));
            for v in values {
                let cell = v.as_deref().unwrap_or("—");
                let _ = write!(h, "<td class=\"n\">{}</td>", escape_html(cell));
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</table>\n");
    }
    h.push_str("</details>\n");
}

/// Per-run provenance and cost: version, seed, integrity counters, host cost.
fn runs(h: &mut String, reports: &[RunReport]) {
    if reports.is_empty() {
        h.push_str("<p>No runs to compare.</p>\n");
        return;
    }
    h.push_str(
        "<h2>Runs</h2>\n<table>\n<tr><th>scheme</th><th>flashtail</th><th>seed</th>\
        <th>simulated time (s)</th><th>requests completed</th><th>reads checked</th>\
        <th>integrity violations</th><th>wall (s)</th><th>precondition (s)</th>\
        <th title=\"the whole process's peak resident memory: runs of one comparison share one process\">\
        process peak RSS (MiB, all runs)</th><th>events</th><th>simulated req/s</th></tr>\n",
    );
    for r in reports {
        let cells = [
            r.flashtail_version.clone(),
            r.seed.to_string(),
            sig3(r.sim_time_ns as f64 / 1e9),
            r.integrity.requests_completed.to_string(),
            r.integrity.reads_checked.to_string(),
            r.integrity.violations.to_string(),
            sig3(r.cost.wall_seconds),
            sig3(r.cost.precondition_seconds),
            sig3(r.cost.peak_rss_bytes as f64 / (1024.0 * 1024.0)),
            r.cost.events.to_string(),
            sig3(r.cost.simulated_requests_per_second),
        ];
        let _ = write!(h, "<tr><td>{}</td>", escape_html(&r.scheme));
        for (i, c) in cells.iter().enumerate() {
            // A stale read is a simulator bug; make it impossible to overlook.
            let bad = i == 5 && r.integrity.violations > 0;
            let class = if bad { "n bad" } else { "n" };
            let _ = write!(h, "<td class=\"{class}\">{}</td>", escape_html(c));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
    // Each run's workload source, in case runs read different inputs.
    let sources: Vec<&str> = reports.iter().map(|r| r.workload.as_str()).collect();
    if sources.iter().any(|w| *w != sources[0]) {
        h.push_str("<details><summary>Workload of each run</summary>\n<dl class=\"prov\">\n");
        for r in reports {
            let _ = writeln!(
                h,
                "<dt>{}</dt><dd>{}</dd>",
                escape_html(&r.scheme),
                escape_html(&r.workload)
            );
        }
        h.push_str("</dl>\n</details>\n");
    }
}

/// How many samples stand behind each percentile, and whether percentiles are exact:
/// p99.99 of 100k requests rests on 10 samples, and a reader must be able to see that.
fn evidence(h: &mut String, reports: &[RunReport]) {
    if reports.is_empty() {
        return;
    }
    h.push_str(
        "<details><summary>Samples behind each percentile</summary>\n<table>\n\
        <tr><th>scheme</th><th>op</th><th>count</th><th>percentiles</th>\
        <th>samples at or above</th></tr>\n",
    );
    for r in reports {
        for (op, s) in [("read", &r.reads), ("write", &r.writes), ("all", &r.all)] {
            let kind = if s.exact {
                "exact".to_string()
            } else {
                format!(
                    "histogram, ≤ {} relative error",
                    super::fmt::pct(s.relative_error)
                )
            };
            let samples: Vec<String> = s
                .samples_at_or_above
                .iter()
                .map(|(k, n)| {
                    let mark = if is_thin(s, k) { THIN_MARK } else { "" };
                    format!("{k}: {n}{mark}")
                })
                .collect();
            let _ = writeln!(
                h,
                "<tr><td>{}</td><td>{op}</td><td class=\"n\">{}</td><td>{}</td><td>{}</td></tr>",
                escape_html(&r.scheme),
                s.count,
                escape_html(&kind),
                escape_html(&samples.join(", "))
            );
        }
    }
    h.push_str("</table>\n</details>\n");
}

fn figures(h: &mut String, reports: &[RunReport]) {
    h.push_str("<h2>Figures</h2>\n<div class=\"figs\">\n");
    for fig in super::figures::figure_set(reports) {
        let class = if fig.full { " class=\"full\"" } else { "" };
        let _ = write!(h, "<figure{class}>");
        match fig.svg {
            Ok(svg) => h.push_str(&svg),
            Err(e) => {
                let _ = write!(
                    h,
                    "<p class=\"fig-error\">Figure could not be drawn: {}</p>",
                    escape_html(&e)
                );
            }
        }
        let _ = writeln!(
            h,
            "<figcaption>{}</figcaption></figure>",
            escape_html(fig.caption)
        );
    }
    h.push_str("</div>\n");
}

fn configuration(h: &mut String, meta: &CompareMeta, reports: &[RunReport]) {
    h.push_str("<h2>Configuration</h2>\n");
    let pretty = |v: &serde_json::Value| {
        serde_json::to_string_pretty(v)
            .unwrap_or_else(|e| format!("(not representable as JSON: {e})"))
    };
    let _ = writeln!(
        h,
        "<details><summary>Full configuration of the comparison (JSON)</summary>\n<pre>{}</pre>\n</details>",
        escape_html(&pretty(&meta.config))
    );
    for r in reports.iter().filter(|r| !r.config.is_null()) {
        let _ = writeln!(
            h,
            "<details><summary>Configuration of run {} (JSON)</summary>\n<pre>{}</pre>\n</details>",
            escape_html(&r.scheme),
            escape_html(&pretty(&r.config))
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_quotes() {
        assert_eq!(
            escape_html(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }
}
