//! Figure 3: p99, p99.9 and p99.99 of reads and of writes, each divided by the same
//! statistic of the reference run, as grouped bars (one bar per scheme in each group).
//! The reference is `nogc`; without one it is the first run, and the caption says so.
//! Bars grow from 1× on a log axis, so a 100× slowdown and a 0.5× speed-up are both
//! readable in one chart; a missing ratio (reference value 0) draws no bar.

use super::{
    frame, log_ticks, note, render, scheme_colors, scheme_entries, Swatch, FONT, FULL, LIGHT_GRID,
};
use crate::report::baseline::{baseline_index, ratio};
use crate::report::fmt::{axis_num, ratio_str};
use crate::stats::{LatencySummary, RunReport};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

type Pick = fn(&RunReport) -> &LatencySummary;
type Stat = fn(&LatencySummary) -> u64;

const GROUPS: [(&str, Pick, Stat); 6] = [
    ("reads p99", |r| &r.reads, |s| s.p99_ns),
    ("reads p99.9", |r| &r.reads, |s| s.p99_9_ns),
    ("reads p99.99", |r| &r.reads, |s| s.p99_99_ns),
    ("writes p99", |r| &r.writes, |s| s.p99_ns),
    ("writes p99.9", |r| &r.writes, |s| s.p99_9_ns),
    ("writes p99.99", |r| &r.writes, |s| s.p99_99_ns),
];

/// Horizontal coordinate units per group: plotters formats custom integer ticks, so
/// bars are placed on an integer axis fine enough for sub-pixel placement.
const SLOT: i32 = 10_000;

/// Bars are labelled with their value only while labels still fit side by side.
const MAX_LABELLED_SCHEMES: usize = 6;

pub(crate) fn percentiles_svg(reports: &[RunReport]) -> Result<String, String> {
    let colors = scheme_colors(reports);
    let reference = baseline_index(reports).unwrap_or(0);
    let caption = match (baseline_index(reports), reports.get(reference)) {
        (Some(_), _) => "Tail percentiles relative to nogc".to_string(),
        (None, Some(r)) => format!("Tail percentiles relative to {} (no nogc run)", r.scheme),
        (None, None) => "Tail percentiles".to_string(),
    };
    // ratios[g][s]: group g, scheme s.
    let ratios: Vec<Vec<Option<f64>>> = GROUPS
        .iter()
        .map(|(_, pick, stat)| {
            reports
                .iter()
                .map(|r| {
                    let base = reports.get(reference).map_or(0.0, |b| stat(pick(b)) as f64);
                    ratio(stat(pick(r)) as f64, base).filter(|v| *v > 0.0)
                })
                .collect()
        })
        .collect();
    render(FULL, |root| {
        let all: Vec<f64> = ratios.iter().flatten().flatten().copied().collect();
        let min = all.iter().copied().fold(1.0f64, f64::min);
        let max = all.iter().copied().fold(1.0f64, f64::max);
        // Headroom above the tallest bar for its label; at least 0.5×..2× around 1×.
        let (lo, hi) = ((min / 1.5).min(0.5), (max * 2.0).max(2.0));
        let n = GROUPS.len() as i32 * SLOT;
        let plot = frame(root, &caption, &scheme_entries(reports), Swatch::Box)?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d(
                (0..n).with_key_points(
                    (0..GROUPS.len() as i32)
                        .map(|g| g * SLOT + SLOT / 2)
                        .collect(),
                ),
                (lo..hi).log_scale().with_key_points(log_ticks(lo, hi)),
            )?;
        chart
            .configure_mesh()
            .light_line_style(LIGHT_GRID)
            .disable_x_mesh()
            .x_label_formatter(&|v| {
                let g = ((*v).max(0) / SLOT) as usize;
                let g = g.min(GROUPS.len() - 1);
                GROUPS[g].0.to_string()
            })
            .y_label_formatter(&|v| format!("{}×", axis_num(*v)))
            .y_desc("ratio to reference (log scale)")
            .label_style((FONT, 13))
            .draw()?;
        if reports.is_empty() {
            note(&plot, "no runs")?;
            return Ok(());
        }
        // The reference line: 1× = as fast as the reference run.
        chart.draw_series(LineSeries::new(
            [(0, 1.0), (n, 1.0)],
            BLACK.mix(0.6).stroke_width(1),
        ))?;
        // Each group's slot: 10% margins, then equal bar widths with a 10% gap each.
        let width = SLOT * 8 / 10 / reports.len() as i32;
        let label_style =
            TextStyle::from((FONT, 12).into_font()).pos(Pos::new(HPos::Center, VPos::Bottom));
        for (s, c) in colors.iter().enumerate() {
            let bars: Vec<_> = ratios
                .iter()
                .enumerate()
                .filter_map(|(g, row)| row[s].map(|v| (g, v)))
                .collect();
            let x0 = |g: usize| g as i32 * SLOT + SLOT / 10 + s as i32 * width;
            chart.draw_series(bars.iter().map(|&(g, v)| {
                Rectangle::new([(x0(g), 1.0), (x0(g) + width * 9 / 10, v)], c.filled())
            }))?;
            if reports.len() <= MAX_LABELLED_SCHEMES {
                chart.draw_series(bars.iter().map(|&(g, v)| {
                    Text::new(
                        ratio_str(Some(v)),
                        (x0(g) + width * 9 / 20, v.max(1.0)),
                        label_style.clone(),
                    )
                }))?;
            }
        }
        Ok(())
    })
}
