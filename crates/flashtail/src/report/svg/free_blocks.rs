//! Figure 4: free space over simulated time, one line per scheme, in two panels. The main
//! panel plots the fewest free blocks of any plane (`min_plane_free_blocks`): GC triggers
//! per plane, so this is the series that meets the GC thresholds. The second plots free
//! blocks summed over all planes. Each panel's y axis is fitted to its data: the totals of
//! a real device move by a few percent of their value, and an axis from zero would draw
//! every scheme as the same flat line. The time unit (µs, ms or s) follows the run length
//! so tick labels stay short. The main panel also draws the GC soft threshold (GC starts
//! on a plane when its free blocks fall below it) when the runs' configurations carry a
//! device; the axis is extended to include it, since closeness to it is the point. Its
//! label sits in the right margin, level with the line, where no data line can run.

use super::{
    draw_line, frame, line_styles, marker_points_x, note, render, scheme_entries_with_data,
    thin_timeline, Swatch, FONT, FULL, LIGHT_GRID,
};
use crate::report::fmt::axis_num;
use crate::stats::{FreeBlocksSample, RunReport};
use crate::DeviceConfig;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Which free-space series a panel plots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FreeSeries {
    /// The fewest free blocks of any plane (main panel).
    MinPlane,
    /// Free blocks summed over all planes (second, shorter panel).
    Total,
}

impl FreeSeries {
    fn value(self, s: &FreeBlocksSample) -> u64 {
        match self {
            FreeSeries::MinPlane => s.min_plane_free_blocks,
            FreeSeries::Total => s.total_free_blocks,
        }
    }
}

/// Right margin holding the threshold's label when one is drawn (pixels).
const THRESHOLD_LABEL_PX: u32 = 140;

/// Height of the second (total) panel: context, so smaller than the main one.
const TOTAL_HEIGHT: u32 = 330;

pub(crate) fn free_blocks_svg(reports: &[RunReport], which: FreeSeries) -> Result<String, String> {
    let styles = line_styles(reports);
    let (title, y_desc, size) = match which {
        FreeSeries::MinPlane => (
            "Free blocks of the emptiest plane over time (min over planes)",
            "free blocks, emptiest plane",
            FULL,
        ),
        FreeSeries::Total => (
            "Free blocks summed over all planes over time",
            "free blocks, all planes",
            (FULL.0, TOTAL_HEIGHT),
        ),
    };
    render(size, |root| {
        let t_max = reports
            .iter()
            .flat_map(|r| r.free_blocks.iter().map(|s| s.time_ns))
            .max()
            .unwrap_or(0);
        let (unit, div) = time_unit(t_max);
        let x_hi = (t_max as f64 / div).max(1e-9);
        let thresholds = match which {
            FreeSeries::MinPlane => soft_thresholds(reports),
            FreeSeries::Total => Vec::new(),
        };
        let values = reports
            .iter()
            .flat_map(|r| r.free_blocks.iter().map(|s| which.value(s)))
            .chain(thresholds.iter().map(|&t| u64::from(t)));
        let (y_lo, y_hi) = fitted_range(values);
        // Only schemes that have data here get a legend entry; styles stay per scheme.
        let entries = scheme_entries_with_data(reports, |r| !r.free_blocks.is_empty());
        let plot = frame(root, title, &entries, Swatch::Line)?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .margin_right(if thresholds.is_empty() { 12 } else { THRESHOLD_LABEL_PX })
            .x_label_area_size(48)
            .y_label_area_size(72)
            .build_cartesian_2d(0f64..x_hi, y_lo..y_hi)?;
        chart
            .configure_mesh()
            .light_line_style(LIGHT_GRID)
            .x_desc(format!("simulated time ({unit})"))
            .y_desc(y_desc)
            .x_label_formatter(&|v| axis_num(*v))
            // As many labels as whole-block ticks: plotters then picks the same 1-2-5 step;
            // any fractional tick it might still choose stays unlabelled.
            .y_labels(int_ticks(y_lo, y_hi).len().max(2))
            .y_label_formatter(&|v| {
                if (v - v.round()).abs() < 1e-6 {
                    format!("{v:.0}")
                } else {
                    String::new()
                }
            })
            .label_style((FONT, 13))
            .draw()?;
        let grey = RGBColor(110, 110, 110);
        let label = TextStyle::from((FONT, 12).into_font())
            .color(&grey)
            .pos(Pos::new(HPos::Left, VPos::Center));
        for t in &thresholds {
            let y = f64::from(*t);
            chart.draw_series(LineSeries::new([(0.0, y), (x_hi, y)], grey.stroke_width(1)))?;
            // In the right margin, level with the line: no data can be drawn there.
            let (px, py) = chart.backend_coord(&(x_hi, y));
            root.draw_text("GC soft threshold", &label, (px + 8, py - 8))?;
            root.draw_text(&format!("(GC when free < {t})"), &label, (px + 8, py + 8))?;
        }
        let mut any = false;
        for (i, (r, st)) in reports.iter().zip(&styles).enumerate() {
            if r.free_blocks.is_empty() {
                continue;
            }
            any = true;
            let line: Vec<(f64, f64)> = r
                .free_blocks
                .iter()
                .map(|s| (s.time_ns as f64 / div, which.value(s) as f64))
                .collect();
            let line = thin_timeline(&line, x_hi);
            let marks = marker_points_x(&line, (0.0, x_hi), i, reports.len());
            draw_line(&mut chart, line, &marks, *st)?;
        }
        if !any {
            note(&plot, "no free-block samples in these runs")?;
        }
        Ok(())
    })
}

/// The distinct GC soft thresholds (blocks per plane) of the runs whose configuration
/// holds a readable device; empty when none does (then nothing is drawn).
fn soft_thresholds(reports: &[RunReport]) -> Vec<u32> {
    let mut t: Vec<u32> = reports
        .iter()
        .filter_map(|r| {
            serde_json::from_value::<DeviceConfig>(r.config.get("device")?.clone()).ok()
        })
        .map(|d| d.soft_threshold_blocks())
        .collect();
    t.sort_unstable();
    t.dedup();
    t
}

/// Y range fitted to the values: their span plus 10% padding each side (at least one
/// block), never below zero; `0..1` when there are no values.
pub(crate) fn fitted_range(values: impl Iterator<Item = u64>) -> (f64, f64) {
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    for v in values {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if lo > hi {
        return (0.0, 1.0);
    }
    let pad = ((hi - lo) as f64 * 0.1).max(1.0);
    ((lo as f64 - pad).max(0.0).floor(), (hi as f64 + pad).ceil())
}

/// Integer tick positions on a 1-2-5 step giving at most about 10 ticks over `[lo, hi]`:
/// block counts are whole numbers, and fractional ticks would print as duplicates.
pub(crate) fn int_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi - lo).max(1.0);
    let mut step = 1.0;
    'find: for e in 0..12 {
        for m in [1.0, 2.0, 5.0] {
            step = m * 10f64.powi(e);
            if span / step <= 10.0 {
                break 'find;
            }
        }
    }
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// Unit name and ns divisor for a time axis ending at `t_max_ns`.
fn time_unit(t_max_ns: u64) -> (&'static str, f64) {
    match t_max_ns {
        t if t >= 2_000_000_000 => ("s", 1e9),
        t if t >= 2_000_000 => ("ms", 1e6),
        _ => ("µs", 1e3),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_fits_the_data_not_zero() {
        // The reviewer's case: totals 9,404..9,856 and min-plane 145..154.
        assert_eq!(fitted_range([9404u64, 9856].into_iter()), (9358.0, 9902.0));
        assert_eq!(fitted_range([145u64, 154, 150].into_iter()), (144.0, 155.0));
        assert_eq!(fitted_range([7u64].into_iter()), (6.0, 8.0));
        assert_eq!(fitted_range([0u64].into_iter()), (0.0, 1.0));
        assert_eq!(fitted_range(std::iter::empty()), (0.0, 1.0));
    }

    #[test]
    fn soft_threshold_comes_from_each_runs_device() {
        let dev = crate::config::presets::load("dtrs-demo").expect("preset");
        let with = |d: &DeviceConfig| RunReport {
            config: serde_json::json!({ "device": d }),
            ..Default::default()
        };
        // dtrs-demo: 3072 blocks per plane × 0.3, rounded up.
        let mut other = dev.clone();
        other.ftl.gc_soft_threshold_blocks = Some(11);
        let reports = [with(&dev), with(&dev), with(&other), RunReport::default()];
        assert_eq!(soft_thresholds(&reports), vec![11, 922]);
        assert!(soft_thresholds(&[RunReport::default()]).is_empty());
    }

    #[test]
    fn ticks_are_whole_blocks() {
        assert_eq!(
            int_ticks(144.0, 155.0),
            vec![144.0, 146.0, 148.0, 150.0, 152.0, 154.0]
        );
        assert_eq!(int_ticks(6.0, 8.0), vec![6.0, 7.0, 8.0]);
        assert_eq!(
            int_ticks(9358.0, 9902.0),
            vec![9400.0, 9500.0, 9600.0, 9700.0, 9800.0, 9900.0]
        );
    }
}
