//! Figure 1: latency CDF (fraction of requests at or below a latency) on a log latency
//! axis, one line per scheme, for one request class. Zero latencies cannot sit on a log
//! axis; they are drawn at the axis' left edge rather than dropped, so the curve still
//! starts at the right height.

use super::{
    draw_line, frame, line_styles, log_frac, log_ticks, marker_points, nice_log_range, note,
    render, scheme_entries_with_data, steps, thin, Area, DrawResult, LineStyle, Swatch, FONT,
    HALF, LIGHT_GRID,
};
use crate::report::csv_out::cdf_of;
use crate::report::fmt::axis_num;
use crate::stats::RunReport;
use plotters::prelude::*;

/// Nanoseconds per millisecond: figures use ms, the reports store ns.
pub(crate) const NS_PER_MS: f64 = 1e6;

/// `op` is `read`, `write` or `all`; `noun` names it in titles ("reads").
pub(crate) fn cdf_svg(reports: &[RunReport], op: &str, noun: &str) -> Result<String, String> {
    let styles = line_styles(reports);
    render(HALF, |root| {
        let (lo, hi) = latency_range(reports, op);
        // Only schemes that have data here get a legend entry; colours stay per scheme.
        let entries = scheme_entries_with_data(reports, |r| !cdf_of(r, op).points.is_empty());
        let plot = frame(
            root,
            &format!("Latency CDF, {noun}"),
            &entries,
            Swatch::Line,
        )?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(64)
            .build_cartesian_2d(
                (lo..hi).log_scale().with_key_points(log_ticks(lo, hi)),
                0f64..1f64,
            )?;
        chart
            .configure_mesh()
            .light_line_style(LIGHT_GRID)
            .x_desc("latency (ms, log scale)")
            .y_desc(format!("fraction of {noun} ≤ latency"))
            .x_label_formatter(&|v| axis_num(*v))
            .y_label_formatter(&|v| format!("{v:.1}"))
            .label_style((FONT, 13))
            .draw()?;
        let lines = CdfLines { reports, styles: &styles, op, noun, log: (true, false) };
        lines.draw(
            &mut chart,
            &plot,
            |ms, p, _| (ms.max(lo), p.clamp(0.0, 1.0)),
            |(x, y)| (log_frac(x, lo, hi), y),
        )
    })
}

/// The per-scheme lines of a latency-distribution figure (the CDF and its tail view): each
/// run's CDF points of one request class, mapped into the chart, thinned and stepped, with
/// markers spread along them.
pub(crate) struct CdfLines<'r> {
    pub reports: &'r [RunReport],
    pub styles: &'r [LineStyle],
    pub op: &'r str,
    pub noun: &'r str,
    /// Which axes (x, y) are logarithmic, for spacing the markers.
    pub log: (bool, bool),
}

impl CdfLines<'_> {
    /// `point(ms, cumulative fraction, requests of the class in the run)` gives a CDF
    /// point's chart coordinates, `unit` maps
    /// chart coordinates onto the unit square (for thinning and marker spacing). With no
    /// data for the class in any run, the figure says so instead.
    pub fn draw<'a, X, Y>(
        &self,
        chart: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>,
        plot: &Area<'_>,
        point: impl Fn(f64, f64, u64) -> (f64, f64),
        unit: impl Fn((f64, f64)) -> (f64, f64) + Copy,
    ) -> DrawResult
    where
        X: Ranged<ValueType = f64>,
        Y: Ranged<ValueType = f64>,
    {
        let mut any = false;
        for (i, (r, st)) in self.reports.iter().zip(self.styles).enumerate() {
            let pts = &cdf_of(r, self.op).points;
            if pts.is_empty() {
                continue;
            }
            any = true;
            let n = crate::report::csv_out::summary_of(r, self.op).count;
            let line = pts.iter().map(|&(ns, p)| point(ns as f64 / NS_PER_MS, p, n));
            let line = steps(thin(line, unit).into_iter());
            if let [only] = line.as_slice() {
                // One point draws no line: mark it instead.
                draw_line(chart, vec![], &[*only], *st)?;
            } else {
                let marks = marker_points(&line, unit, self.log, i, self.reports.len());
                draw_line(chart, line, &marks, *st)?;
            }
        }
        if !any {
            note(plot, &format!("no {} in these runs", self.noun))?;
        }
        Ok(())
    }
}

/// Log-axis bounds (ms) covering every positive latency of `op` across the runs.
pub(crate) fn latency_range(reports: &[RunReport], op: &str) -> (f64, f64) {
    let values = reports.iter().flat_map(|r| {
        cdf_of(r, op)
            .points
            .iter()
            .map(|&(ns, _)| ns as f64 / NS_PER_MS)
    });
    nice_log_range(values, (1e-3, 1.0))
}
