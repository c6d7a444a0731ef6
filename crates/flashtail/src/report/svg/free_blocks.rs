//! Figure 4: total free blocks (summed over planes) over simulated time, one line per
//! scheme — shows how close each scheme runs to the GC thresholds. The time unit (µs, ms
//! or s) follows the run length so tick labels stay short.

use super::{line_legend, note, render, scheme_colors, FONT, HALF};
use crate::stats::RunReport;
use plotters::prelude::*;

pub(crate) fn free_blocks_svg(reports: &[RunReport]) -> Result<String, String> {
    let colors = scheme_colors(reports);
    render(HALF, |root| {
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
        let mut chart = ChartBuilder::on(root)
            .caption("Free blocks over time", (FONT, 20))
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(72)
            .build_cartesian_2d(0f64..x_hi, 0f64..y_hi)?;
        chart
            .configure_mesh()
            .x_desc(format!("simulated time ({unit})"))
            .y_desc("free blocks (all planes)")
            .y_label_formatter(&|v| format!("{v:.0}"))
            .label_style((FONT, 13))
            .draw()?;
        let mut any = false;
        for (r, c) in reports.iter().zip(&colors) {
            if r.free_blocks.is_empty() {
                continue;
            }
            any = true;
            let line = r.free_blocks.iter().map(|s| (s.time_ns as f64 / div, s.total_free_blocks as f64));
            chart
                .draw_series(LineSeries::new(line, c.stroke_width(2)))?
                .label(r.scheme.as_str())
                .legend(line_legend(*c));
        }
        if any {
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::LowerLeft)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK.mix(0.4))
                .label_font((FONT, 13))
                .draw()?;
        } else {
            note(root, "no free-block samples in these runs")?;
        }
        Ok(())
    })
}

/// Unit name and ns divisor for a time axis ending at `t_max_ns`.
fn time_unit(t_max_ns: u64) -> (&'static str, f64) {
    match t_max_ns {
        t if t >= 10_000_000_000 => ("s", 1e9),
        t if t >= 10_000_000 => ("ms", 1e6),
        _ => ("µs", 1e3),
    }
}
