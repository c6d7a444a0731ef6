//! Figure 2: the tail view, 1 − CDF on a log probability axis against latency (log ms),
//! one line per scheme: where GC-induced tails separate from the baseline. The y axis
//! runs down to the decade holding 1/n, n the largest request count of the class among
//! the runs (never below 10⁻⁹): a run of n requests cannot resolve a rarer event, and an
//! axis running further would promise what the data cannot show. Each line ends at its
//! own 1/n, at the scheme's maximum latency. The band where fewer than ten requests are
//! slower (below 10/n) is shaded and marked † like thin percentiles in the tables.

use super::cdf::{latency_range, CdfLines};
use super::{frame, line_styles, log_frac, log_ticks, render, scheme_entries_with_data, Swatch, FONT, HALF, LIGHT_GRID};
use crate::report::csv_out::{cdf_of, summary_of};
use crate::report::evidence::{THIN_MARK, THIN_SAMPLES};
use crate::report::fmt::{axis_num, pow10_label};
use crate::stats::RunReport;
use plotters::prelude::*;

pub(crate) fn tail_svg(reports: &[RunReport], op: &str, noun: &str) -> Result<String, String> {
    let styles = line_styles(reports);
    render(HALF, |root| {
        let (lo, hi) = latency_range(reports, op);
        let floor = prob_floor(reports, op);
        let y_ticks: Vec<f64> = (floor.log10().round() as i32..=0)
            .map(|e| 10f64.powi(e))
            .collect();
        // Only schemes that have data here get a legend entry; colours stay per scheme.
        let entries = scheme_entries_with_data(reports, |r| !cdf_of(r, op).points.is_empty());
        let plot = frame(
            root,
            &format!("Tail latency, {noun}: 1 − CDF"),
            &entries,
            Swatch::Line,
        )?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(64)
            .build_cartesian_2d(
                (lo..hi).log_scale().with_key_points(log_ticks(lo, hi)),
                (floor..1f64).log_scale().with_key_points(y_ticks),
            )?;
        chart
            .configure_mesh()
            .light_line_style(LIGHT_GRID)
            .x_desc("latency (ms, log scale)")
            .y_desc(format!("fraction of {noun} slower (log)"))
            .x_label_formatter(&|v| axis_num(*v))
            .y_label_formatter(&|v| pow10_label(v.log10().round() as i32))
            .label_style((FONT, 13))
            .draw()?;
        // The thin band: fewer than ten requests slower than these fractions.
        let n_max = max_count(reports, op);
        if n_max > 0 {
            let thin_top = (THIN_SAMPLES as f64 / n_max as f64).min(1.0);
            let shade = RGBColor(236, 236, 236);
            chart.draw_series([Rectangle::new([(lo, floor), (hi, thin_top)], shade.filled())])?;
            chart.draw_series([Text::new(
                format!("{THIN_MARK} fewer than {THIN_SAMPLES} {noun} slower"),
                (lo * (hi / lo).powf(0.02), thin_top),
                TextStyle::from((FONT, 12).into_font()).color(&RGBColor(90, 90, 90)).pos(
                    plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Left,
                        plotters::style::text_anchor::VPos::Top,
                    ),
                ),
            )])?;
        }
        let lines = CdfLines { reports, styles: &styles, op, noun, log: (true, true) };
        lines.draw(
            &mut chart,
            &plot,
            // The last point (1 − CDF = 0) ends the line at the run's own 1/n.
            |ms, p, n| (ms.max(lo), (1.0 - p).max(1.0 / n.max(1) as f64).clamp(floor, 1.0)),
            |(x, y)| (log_frac(x, lo, hi), log_frac(y, floor, 1.0)),
        )
    })
}

/// The largest request count of class `op` among the runs.
fn max_count(reports: &[RunReport], op: &str) -> u64 {
    reports.iter().map(|r| summary_of(r, op).count).max().unwrap_or(0)
}

/// Lowest probability shown: the decade holding 1/n for the largest run of the class (at
/// most 10⁻¹, never below 10⁻⁹, where float subtraction is noise); 10⁻⁵ with no requests.
fn prob_floor(reports: &[RunReport], op: &str) -> f64 {
    let n = max_count(reports, op);
    if n == 0 {
        return 1e-5;
    }
    10f64.powi((1.0 / n as f64).log10().floor() as i32).clamp(1e-9, 0.1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_stops_at_the_decade_of_one_over_n() {
        let with_reads = |n: u64| {
            let mut r = RunReport::default();
            r.reads.count = n;
            r
        };
        assert_eq!(prob_floor(&[with_reads(508)], "read"), 1e-3);
        assert_eq!(prob_floor(&[with_reads(508), with_reads(100_000)], "read"), 1e-5);
        assert_eq!(prob_floor(&[with_reads(99_999)], "read"), 1e-5);
        assert_eq!(prob_floor(&[with_reads(3)], "read"), 0.1);
        assert_eq!(prob_floor(&[with_reads(0)], "read"), 1e-5);
    }
}
