//! Figure 4: total free blocks (summed over planes) over simulated time, one line per
//! scheme — shows how close each scheme runs to the GC thresholds. The time unit (µs, ms
//! or s) follows the run length so tick labels stay short.

use super::{
    frame, note, render, scheme_colors, scheme_entries, thin_timeline, Swatch, FONT, FULL,
    LIGHT_GRID,
};
use crate::report::fmt::axis_num;
use crate::stats::RunReport;
use plotters::prelude::*;

pub(crate) fn free_blocks_svg(reports: &[RunReport]) -> Result<String, String> {
    let colors = scheme_colors(reports);
    render(FULL, |root| {
        let t_max = reports
            .iter()
            .flat_map(|r| r.free_blocks.iter().map(|s| s.time_ns))
            .max()
            .unwrap_or(0);
        let (unit, div) = time_unit(t_max);
        let x_hi = (t_max as f64 / div).max(1e-9);
        let y_max = reports
            .iter()
            .flat_map(|r| r.free_blocks.iter().map(|s| s.total_free_blocks))
            .max()
            .unwrap_or(0);
        let y_hi = (y_max as f64 * 1.1).max(1.0);
        // Only schemes that have data here get a legend entry; colours stay per scheme.
        let entries: Vec<_> = scheme_entries(reports)
            .into_iter()
            .zip(reports)
            .filter(|(_, r)| !r.free_blocks.is_empty())
            .map(|(e, _)| e)
            .collect();
        let plot = frame(root, "Free blocks over time", &entries, Swatch::Line)?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(72)
            .build_cartesian_2d(0f64..x_hi, 0f64..y_hi)?;
        chart
            .configure_mesh()
            .light_line_style(LIGHT_GRID)
            .x_desc(format!("simulated time ({unit})"))
            .y_desc("free blocks (all planes)")
            .x_label_formatter(&|v| axis_num(*v))
            .y_label_formatter(&|v| format!("{v:.0}"))
            .label_style((FONT, 13))
            .draw()?;
        let mut any = false;
        for (r, c) in reports.iter().zip(&colors) {
            if r.free_blocks.is_empty() {
                continue;
            }
            any = true;
            let line = r
                .free_blocks
                .iter()
                .map(|s| (s.time_ns as f64 / div, s.total_free_blocks as f64));
            let line = thin_timeline(&line.collect::<Vec<_>>(), x_hi);
            chart.draw_series(LineSeries::new(line, c.stroke_width(2)))?;
        }
        if !any {
            note(&plot, "no free-block samples in these runs")?;
        }
        Ok(())
    })
}

/// Unit name and ns divisor for a time axis ending at `t_max_ns`.
fn time_unit(t_max_ns: u64) -> (&'static str, f64) {
    match t_max_ns {
        t if t >= 2_000_000_000 => ("s", 1e9),
        t if t >= 2_000_000 => ("ms", 1e6),
        _ => ("µs", 1e3),
    }
}
