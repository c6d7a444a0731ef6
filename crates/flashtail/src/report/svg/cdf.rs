//! Figure 1: latency CDF (fraction of requests at or below a latency) on a log latency
//! axis, one line per scheme, for one request class. Zero latencies cannot sit on a log
//! axis; they are drawn at the axis' left edge rather than dropped, so the curve still
//! starts at the right height.

use super::{decade_range, line_legend, log_ticks, note, render, scheme_colors, FONT, HALF};
use crate::report::csv_out::cdf_of;
use crate::report::fmt::axis_num;
use crate::stats::RunReport;
use plotters::prelude::*;

/// Nanoseconds per millisecond: figures use ms, the reports store ns.
pub(crate) const NS_PER_MS: f64 = 1e6;

/// `op` is `read`, `write` or `all`; `noun` names it in titles ("reads").
pub(crate) fn cdf_svg(reports: &[RunReport], op: &str, noun: &str) -> Result<String, String> {
    let colors = scheme_colors(reports);
    render(HALF, |root| {
        let (lo, hi) = latency_range(reports, op);
        let mut chart = ChartBuilder::on(root)
            .caption(format!("Latency CDF, {noun}"), (FONT, 20))
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(64)
            .build_cartesian_2d((lo..hi).log_scale().with_key_points(log_ticks(lo, hi)), 0f64..1f64)?;
        chart
            .configure_mesh()
            .x_desc("latency (ms, log scale)")
            .y_desc(format!("fraction of {noun} ≤ latency"))
            .x_label_formatter(&|v| axis_num(*v))
            .y_label_formatter(&|v| format!("{v:.1}"))
            .label_style((FONT, 13))
            .draw()?;
        let mut any = false;
        for (r, c) in reports.iter().zip(&colors) {
            let pts = &cdf_of(r, op).points;
            if pts.is_empty() {
                continue;
            }
            any = true;
            let line = pts.iter().map(|&(ns, p)| ((ns as f64 / NS_PER_MS).max(lo), p.clamp(0.0, 1.0)));
            chart
                .draw_series(LineSeries::new(line, c.stroke_width(2)))?
                .label(r.scheme.as_str())
                .legend(line_legend(*c));
        }
        if any {
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::LowerRight)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.4))
                .label_font((FONT, 13))
                .draw()?;
        } else {
            note(root, &format!("no {noun} in these runs"))?;
        }
        Ok(())
    })
}

/// Log-axis bounds (ms) covering every positive latency of `op` across the runs.
pub(crate) fn latency_range(reports: &[RunReport], op: &str) -> (f64, f64) {
    let values = reports
        .iter()
        .flat_map(|r| cdf_of(r, op).points.iter().map(|&(ns, _)| ns as f64 / NS_PER_MS));
    decade_range(values, (1e-3, 1.0))
}
