//! A sweep's across-seed figure: one statistic (a latency percentile, in ms) over the
//! values of one swept parameter (or over the schemes, when nothing is swept), each scheme
//! a line through its across-seed means with the confidence interval as an error bar at
//! every value (`sweep::ci`). Values sit at equal spacing in the sweep's order, labelled by
//! their text (an over-provisioning list 0.07, 0.14, 0.28 is read as three settings, not
//! as a scale). Schemes are offset a little inside each value's slot so their bars do not
//! cover each other. The axis is logarithmic, as the comparison figures' are.
//!
//! Does not draw the single seeds' values (the tables under the figures give the seeds'
//! count, and `table.csv` every value).

use super::style::{marker_shape, scheme_look};
use super::{frame, log_ticks, nice_log_range, note, render, slot_at, slot_centres, LineStyle, Swatch, FONT, FULL, LIGHT_GRID};
use crate::report::fmt::axis_num;
use plotters::prelude::*;

/// One scheme's points: at value index `x`, the mean and the interval's ends (ns).
pub(crate) struct IntervalSeries {
    pub scheme: String,
    pub points: Vec<(usize, f64, f64, f64)>,
}

/// Horizontal units per value slot (plotters labels integer key points).
const SLOT: i32 = 10_000;

/// The figure: `title`, the x axis' name and its value labels, one series per scheme.
pub(crate) fn interval_svg(title: &str, x_name: &str, x_labels: &[String], series: &[IntervalSeries]) -> Result<String, String> {
    render(FULL, |root| {
        let styles: Vec<LineStyle> = {
            let mut next = 0;
            series
                .iter()
                .map(|s| {
                    let slot = if s.scheme.eq_ignore_ascii_case(crate::report::BASELINE_SCHEME) {
                        None
                    } else {
                        next += 1;
                        Some(next - 1)
                    };
                    let (color, pattern, marker) = scheme_look(slot);
                    LineStyle { color, width: 2, marker: Some(marker), pattern }
                })
                .collect()
        };
        let entries: Vec<(String, LineStyle)> = series.iter().map(|s| s.scheme.clone()).zip(styles.iter().copied()).collect();
        let plot = frame(root, title, &entries, Swatch::Line)?;
        let ms = |ns: f64| ns / 1e6;
        let values = series.iter().flat_map(|s| s.points.iter().flat_map(|&(_, m, lo, hi)| [ms(m), ms(lo), ms(hi)]));
        let (lo, hi) = nice_log_range(values, (0.01, 1.0));
        let n = x_labels.len().max(1) as i32;
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(
                (0..n * SLOT).with_key_points(slot_centres(n as usize, SLOT)),
                (lo..hi).log_scale().with_key_points(log_ticks(lo, hi)),
            )?;
        chart
            .configure_mesh()
            .light_line_style(LIGHT_GRID)
            .disable_x_mesh()
            .x_label_formatter(&|v| x_labels.get(slot_at(*v, SLOT)).cloned().unwrap_or_default())
            .x_desc(x_name)
            .y_label_formatter(&|v| axis_num(*v))
            .y_desc("ms (log scale): mean over seeds, bar = interval")
            .label_style((FONT, 13))
            .draw()?;
        if series.iter().all(|s| s.points.is_empty()) {
            note(&plot, "no values")?;
            return Ok(());
        }
        let k = series.len() as i32;
        // Each slot: 15 % margins, the schemes evenly across the middle 70 %.
        let x_of = |g: usize, s: usize| g as i32 * SLOT + SLOT * 15 / 100 + (SLOT * 70 / 100) * (2 * s as i32 + 1) / (2 * k);
        let cap = (SLOT * 70 / 100 / k / 4).max(1);
        for (s, (ser, st)) in series.iter().zip(&styles).enumerate() {
            let stroke = st.color.stroke_width(st.width);
            let pts: Vec<(i32, f64)> = ser.points.iter().filter(|p| p.1 > 0.0).map(|&(g, m, _, _)| (x_of(g, s), ms(m))).collect();
            if pts.len() > 1 {
                chart.draw_series(LineSeries::new(pts.clone(), st.color.mix(0.5).stroke_width(1)))?;
            }
            for &(g, _, l, h) in &ser.points {
                let (l, h) = (ms(l).max(lo), ms(h).max(lo));
                let x = x_of(g, s);
                chart.draw_series([
                    PathElement::new(vec![(x, l), (x, h)], stroke),
                    PathElement::new(vec![(x - cap, l), (x + cap, l)], stroke),
                    PathElement::new(vec![(x - cap, h), (x + cap, h)], stroke),
                ])?;
            }
            if let Some(m) = st.marker {
                chart.draw_series(pts.iter().map(|&p| EmptyElement::at(p) + Polygon::new(marker_shape(m), st.color.filled())))?;
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_figure_draws_an_error_bar_per_point() {
        let series = vec![
            IntervalSeries { scheme: "base".into(), points: vec![(0, 2e6, 1e6, 3e6), (1, 4e6, 3e6, 6e6)] },
            IntervalSeries { scheme: "nogc".into(), points: vec![(0, 1e6, 1e6, 1e6), (1, 1e6, 9e5, 1.1e6)] },
        ];
        let svg = interval_svg("read p99.99", "ftl.over_provisioning", &["0.07".into(), "0.14".into()], &series).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(80)]);
        assert!(svg.contains("0.07") && svg.contains("0.14") && svg.contains("base") && svg.contains("nogc"));
        // Three strokes per interval (the bar and its two caps), four intervals.
        assert!(svg.matches("<polyline").count() >= 12, "{}", svg.matches("<polyline").count());
    }
}
