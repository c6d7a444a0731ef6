//! Figure 2: the tail view, 1 − CDF on a log probability axis against latency (log ms),
//! one line per scheme: where GC-induced tails separate from the baseline. The y axis
//! spans 10⁰ … 10⁻⁵, extended downward (to at most 10⁻⁹) when runs are long enough to
//! resolve rarer events. The last CDF point (1 − CDF = 0) is drawn at the axis floor so
//! each line visibly ends at the scheme's maximum latency.

use super::cdf::{latency_range, CdfLines};
use super::{frame, line_styles, log_frac, log_ticks, render, scheme_entries_with_data, Swatch, FONT, HALF, LIGHT_GRID};
use crate::report::csv_out::cdf_of;
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
        let lines = CdfLines { reports, styles: &styles, op, noun, log: (true, true) };
        lines.draw(
            &mut chart,
            &plot,
            |ms, p| (ms.max(lo), (1.0 - p).clamp(floor, 1.0)),
            |(x, y)| (log_frac(x, lo, hi), log_frac(y, floor, 1.0)),
        )
    })
}

/// Lowest probability shown: 10⁻⁵, or the decade of the smallest positive 1 − CDF when
/// that is rarer, never below 10⁻⁹ (beyond that the float subtraction is noise).
fn prob_floor(reports: &[RunReport], op: &str) -> f64 {
    let rarest = reports
        .iter()
        .flat_map(|r| cdf_of(r, op).points.iter().map(|&(_, p)| 1.0 - p))
        .filter(|q| *q > 0.0 && q.is_finite())
        .fold(1e-5f64, f64::min);
    10f64.powi(rarest.log10().floor() as i32).max(1e-9)
}
