//! The throughput table (terminal and `report.html`): per run, how requests entered the
//! device, the span from the first issue to the last completion, and MB/s and IOPS. One
//! source of rows for both front ends; the numbers are `stats::throughput`'s.

use super::fmt::sig3;
use crate::stats::RunReport;

/// Column headers of the throughput table.
pub const HEADERS: [&str; 7] = ["scheme", "host interface", "span (ms)", "read MB/s", "write MB/s", "all MB/s", "IOPS"];

/// One row per run, cells as printed, with the sortable value of each numeric cell.
pub fn rows(reports: &[RunReport]) -> Vec<Vec<(String, Option<f64>)>> {
    reports
        .iter()
        .map(|r| {
            let t = &r.throughput;
            let num = |v: f64| (sig3(v), Some(v));
            vec![
                (r.scheme.clone(), None),
                (if t.host_interface.is_empty() { "open loop".to_string() } else { t.host_interface.clone() }, None),
                num(t.span_ns as f64 / 1e6),
                num(t.read_mb_per_s),
                num(t.write_mb_per_s),
                num(t.all_mb_per_s),
                num(t.all_iops),
            ]
        })
        .collect()
}

/// The table for the terminal.
pub fn format(reports: &[RunReport]) -> String {
    let rows = rows(reports).into_iter().map(|r| r.into_iter().map(|(s, _)| s).collect()).collect();
    format!("Throughput (first issue to last completion)\n{}", super::table::render(&HEADERS, rows))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Throughput;

    #[test]
    fn rows_carry_the_rates_and_the_host_interface() {
        let mut r = RunReport { scheme: "base".into(), ..Default::default() };
        r.throughput = Throughput::new("closed loop, QD 4 × 1 queue, trace timing".into(), 2_000_000, [8_192_000, 0], [2000, 0], 0);
        let t = format(&[r]);
        assert!(t.contains("closed loop, QD 4 × 1 queue"), "{t}");
        let row = t.lines().find(|l| l.starts_with("base")).expect("a row");
        let cells: Vec<&str> = row.split("  ").map(str::trim).filter(|c| !c.is_empty()).collect();
        assert_eq!(cells, ["base", "closed loop, QD 4 × 1 queue, trace timing", "2.00", "4100", "0", "4100", "1000000"], "{t}");
    }
}
