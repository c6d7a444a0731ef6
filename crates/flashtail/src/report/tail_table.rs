//! What the slowest requests waited for (`RunReport::tail`), as text and HTML: the
//! "why the tail was slow" block of `flashtail run`, and the per-scheme table of the
//! dominant share of latency at ≥ p99.9 that `flashtail compare` and `report.html` add.
//! Shares are of latency (waits summed over a request's pages, scaled down when they
//! overlap: see the module doc of `stats::tail`).

use super::fmt::{pct, sig3};
use super::html::escape_html;
use crate::stats::{RunReport, TailBand};
use std::fmt::Write;

/// The band the comparison table shows.
const TABLE_BAND: &str = "p99.9";

/// A duration for a sentence: 3 significant digits in ns, µs, ms or s (`799 ms`, `1.02 s`).
fn dur(ns: f64) -> String {
    let (v, unit) = if ns >= 1e9 {
        (ns / 1e9, "s")
    } else if ns >= 1e6 {
        (ns / 1e6, "ms")
    } else if ns >= 1e3 {
        (ns / 1e3, "µs")
    } else {
        (ns, "ns")
    };
    format!("{} {unit}", sig3(v))
}

/// A share with one decimal and a space before the sign, as in a sentence (`96.1 %`).
fn pct_spaced(share: f64) -> String {
    pct(share).replace('%', " %")
}

/// One line of the `run` block: the band, then its shares, largest first, those under
/// 0.05 % left out, `service` last.
fn band_line(class: &str, b: &TailBand) -> String {
    let mut shares: Vec<(&str, f64)> = b.shares_in_order().into_iter().filter(|&(k, v)| k != "service" && v >= 0.0005).collect();
    // Stable: equal shares keep report order.
    shares.sort_by(|a, b| b.1.total_cmp(&a.1));
    let mut parts: Vec<String> = shares.iter().map(|(k, v)| format!("{k} {}", pct_spaced(*v))).collect();
    parts.push(format!("service {}", pct_spaced(b.share_of_latency.get("service").copied().unwrap_or(0.0))));
    let cover = match b.covered_from_latency_ns {
        Some(from) => format!(", figures over the slowest {} (≥ {})", b.covered, dur(from as f64)),
        None => String::new(),
    };
    format!(
        "  {class} ≥ {} ({} requests, ≥ {}, mean {}{cover}): {}\n",
        b.band,
        b.requests,
        dur(b.from_latency_ns as f64),
        dur(b.mean_latency_ns),
        parts.join(", ")
    )
}

/// The "why the tail was slow" block of `flashtail run` (empty for a report without it).
pub fn tail_summary(r: &RunReport) -> String {
    let t = &r.tail;
    if t.reads.bands.is_empty() && t.writes.bands.is_empty() {
        return String::new();
    }
    let mut s = String::from("why the tail was slow (share of latency by wait cause; service = no wait):\n");
    for (class, c) in [("reads", &t.reads), ("writes", &t.writes)] {
        for b in &c.bands {
            s.push_str(&band_line(class, b));
        }
    }
    s
}

/// Cells of one class at ≥ p99.9: requests, dominant share's name, its share.
fn cells(b: Option<&TailBand>) -> [String; 3] {
    match b.and_then(|b| b.dominant().map(|(k, v)| (b, k, v))) {
        Some((b, k, v)) => {
            let n = if b.covered_from_latency_ns.is_some() { format!("{}*", b.requests) } else { b.requests.to_string() };
            [n, k.to_string(), pct(v)]
        }
        None => ["0".into(), "-".into(), "-".into()],
    }
}

const HEADERS: [&str; 7] = ["scheme", "reads ≥p99.9", "dominant", "share", "writes ≥p99.9", "dominant", "share"];

fn rows(reports: &[RunReport]) -> Vec<Vec<String>> {
    reports
        .iter()
        .map(|r| {
            let mut row = vec![r.scheme.clone()];
            row.extend(cells(r.tail.reads.band(TABLE_BAND)));
            row.extend(cells(r.tail.writes.band(TABLE_BAND)));
            row
        })
        .collect()
}

/// A footnote when a band had more requests than were kept.
fn partial_note(reports: &[RunReport]) -> Option<String> {
    let partial = reports.iter().any(|r| {
        [&r.tail.reads, &r.tail.writes].iter().any(|c| c.band(TABLE_BAND).is_some_and(|b| b.covered_from_latency_ns.is_some()))
    });
    let kept = reports.first().map_or(0, |r| r.tail.kept_per_class);
    partial.then(|| format!("* more requests than the {kept} slowest kept: shares over those {kept}"))
}

/// The comparison's tail table: per scheme, what dominated the latency of the reads and
/// the writes at or above their p99.9 (a wait cause, or `service`).
pub fn format_tail_table(reports: &[RunReport]) -> String {
    let mut out = String::from("Tail causes (≥ p99.9: the largest share of latency; service = no wait)\n");
    out.push_str(&super::table::render(&HEADERS, rows(reports)));
    if let Some(n) = partial_note(reports) {
        out.push_str(&n);
        out.push('\n');
    }
    out
}

/// The same table in HTML, for `report.html`.
pub(super) fn tail_table_html(h: &mut String, reports: &[RunReport]) {
    h.push_str("<h2>Why the tail was slow</h2>\n<p>Requests at or above p99.9 of their class, and the largest share of \
                their latency: a wait cause, or <code>service</code> (time no wait accounts for). Waits are summed over \
                a request's pages and scaled down where they overlap; every band and cause is in \
                <code>summary.json</code> (<code>tail</code>).</p>\n<table class=\"sortable\">\n<thead><tr>");
    for hd in HEADERS {
        let _ = write!(h, "<th>{}</th>", escape_html(hd));
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for row in rows(reports) {
        h.push_str("<tr>");
        for (i, cell) in row.iter().enumerate() {
            let class = if i == 0 || i == 2 || i == 5 { "" } else { " class=\"n\"" };
            let _ = write!(h, "<td{class}>{}</td>", escape_html(cell));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</tbody>\n</table>\n");
    if let Some(n) = partial_note(reports) {
        let _ = writeln!(h, "<p>{}</p>", escape_html(&n));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{TailClass, TailReport};

    fn band(name: &str, requests: u64, shares: &[(&str, f64)]) -> TailBand {
        TailBand {
            band: name.into(),
            from_latency_ns: 799_000_000,
            requests,
            covered: requests,
            mean_latency_ns: 1_021_000_000.0,
            share_of_latency: shares.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
            ..Default::default()
        }
    }

    fn report(scheme: &str, reads: Vec<TailBand>) -> RunReport {
        RunReport {
            scheme: scheme.into(),
            tail: TailReport { kept_per_class: 4096, reads: TailClass { bands: reads, slowest: vec![] }, writes: TailClass::default() },
            ..Default::default()
        }
    }

    #[test]
    fn run_block_orders_shares_and_ends_with_service() {
        let b = band("p99.9", 113, &[("gc_copy", 0.961), ("gc_erase", 0.02), ("channel", 0.004), ("user_op", 0.0001), ("service", 0.0149)]);
        let s = tail_summary(&report("base", vec![b]));
        assert_eq!(
            s,
            "why the tail was slow (share of latency by wait cause; service = no wait):\n  \
             reads ≥ p99.9 (113 requests, ≥ 799 ms, mean 1.02 s): gc_copy 96.1 %, gc_erase 2.0 %, channel 0.4 %, service 1.5 %\n"
        );
        assert_eq!(tail_summary(&RunReport::default()), "");
    }

    #[test]
    fn table_names_the_dominant_share_per_scheme() {
        let base = report("base", vec![band("p99.9", 113, &[("gc_copy", 0.9), ("service", 0.1)])]);
        let mut partial = band("p99.9", 5000, &[("user_op", 0.3), ("service", 0.7)]);
        partial.covered = 4096;
        partial.covered_from_latency_ns = Some(1);
        let nogc = report("nogc", vec![partial]);
        let t = format_tail_table(&[base, nogc]);
        assert_eq!(
            t,
            "Tail causes (≥ p99.9: the largest share of latency; service = no wait)\n\
             scheme  reads ≥p99.9  dominant  share  writes ≥p99.9  dominant  share\n\
             base             113   gc_copy  90.0%              0         -      -\n\
             nogc           5000*   service  70.0%              0         -      -\n\
             * more requests than the 4096 slowest kept: shares over those 4096\n"
        );
    }
}
