//! `report.html`: one self-contained page — inline CSS, inline SVG, no scripts, no network
//! resources — so it can be mailed, archived or opened offline years later. Every piece of
//! text that comes from inputs (scheme names, notes, configuration) is HTML-escaped.

use super::fmt::sig3;
use super::svg;
use super::table::format_table;
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

const CSS: &str = "
body{font-family:sans-serif;margin:24px auto;max-width:1340px;color:#222;line-height:1.4}
h1{margin-bottom:4px} h2{margin-top:32px;border-bottom:1px solid #ccc}
dl.prov{display:grid;grid-template-columns:max-content auto;gap:2px 16px}
dl.prov dt{font-weight:bold} dl.prov dd{margin:0}
table{border-collapse:collapse;font-size:13px} td,th{border:1px solid #ccc;padding:3px 8px}
td.n{text-align:right;font-variant-numeric:tabular-nums} th{background:#f3f3f3}
pre{background:#f7f7f7;padding:10px;overflow-x:auto;font-size:13px}
.figs{display:flex;flex-wrap:wrap;gap:10px}
figure{margin:0;border:1px solid #ddd} figcaption{font-size:13px;padding:4px 8px;max-width:620px;color:#444}
figure.full figcaption{max-width:1270px}
.fig-error{color:#a00;padding:8px} td.bad{background:#fdd;color:#a00;font-weight:bold}
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
    provenance(&mut h, meta, reports);
    h.push_str("<h2>Latency and GC summary</h2>\n<pre>");
    h.push_str(&escape_html(&format_table(reports)));
    h.push_str("</pre>\n");
    evidence(&mut h, reports);
    figures(&mut h, reports);
    configuration(&mut h, meta, reports);
    h.push_str("</body>\n</html>\n");
    h
}

fn provenance(h: &mut String, meta: &CompareMeta, reports: &[RunReport]) {
    h.push_str("<dl class=\"prov\">\n");
    let mut row = |k: &str, v: &str| {
        let _ = writeln!(h, "<dt>{}</dt><dd>{}</dd>", escape_html(k), escape_html(v));
    };
    let given = |v: &str| {
        if v.is_empty() {
            "(not given)".to_string()
        } else {
            v.to_string()
        }
    };
    row("workload", &given(&meta.workload));
    row("device", &given(&meta.device));
    for (k, v) in &meta.notes {
        row(k, v);
    }
    h.push_str("</dl>\n");
    if reports.is_empty() {
        h.push_str("<p>No runs to compare.</p>\n");
        return;
    }
    h.push_str(
        "<h2>Runs</h2>\n<table>\n<tr><th>scheme</th><th>flashtail</th><th>seed</th>\
        <th>simulated time (s)</th><th>requests completed</th><th>reads checked</th>\
        <th>integrity violations</th><th>wall (s)</th><th>precondition (s)</th>\
        <th>peak RSS (MiB)</th><th>events</th><th>simulated req/s</th></tr>\n",
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
    // Ingestion facts can differ per run (e.g. wrapped requests); show each run's.
    let noted: Vec<&RunReport> = reports
        .iter()
        .filter(|r| !r.workload_notes.is_empty())
        .collect();
    if !noted.is_empty() {
        h.push_str("<details><summary>Workload notes per run</summary>\n<dl class=\"prov\">\n");
        for r in noted {
            let _ = writeln!(
                h,
                "<dt>{}</dt><dd>{}</dd>",
                escape_html(&r.scheme),
                escape_html(&r.workload)
            );
            for (k, v) in &r.workload_notes {
                let _ = writeln!(
                    h,
                    "<dt>&nbsp;&nbsp;{}</dt><dd>{}</dd>",
                    escape_html(k),
                    escape_html(v)
                );
            }
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
                .map(|(k, n)| format!("{k}: {n}"))
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
    let figs = [
        (
            false,
            svg::cdf_svg(reports, "read", "reads"),
            "Latency CDF of reads; further left is faster.",
        ),
        (
            false,
            svg::cdf_svg(reports, "write", "writes"),
            "Latency CDF of writes.",
        ),
        (
            false,
            svg::tail_svg(reports, "read", "reads"),
            "Tail of reads: the fraction of reads slower than each latency. GC-induced tails \
             show as lines that stay high further to the right than nogc.",
        ),
        (
            false,
            svg::tail_svg(reports, "write", "writes"),
            "Tail of writes, as above.",
        ),
        (
            true,
            svg::percentiles_svg(reports),
            "Tail percentiles divided by the reference run's (1× = as fast). Bars above 1× are \
             slowdowns.",
        ),
        (
            true,
            svg::waits_svg(reports),
            "Each run's total wait time split by cause; above each bar, the share of requests \
             that waited behind a GC operation at least once.",
        ),
        (
            true,
            svg::free_blocks_svg(reports),
            "Free blocks summed over all planes, over simulated time.",
        ),
    ];
    for (full, fig, caption) in figs {
        let class = if full { " class=\"full\"" } else { "" };
        let _ = write!(h, "<figure{class}>");
        match fig {
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
            escape_html(caption)
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
