//! Figure 3: p99, p99.9 and p99.99 of reads and of writes, each divided by the same
//! statistic of the reference run, as grouped bars (one bar per scheme in each group).
//! The reference is `nogc`; without one it is the first run, and the caption says so.
//! The axis is logarithmic, so a 100× slowdown and a 0.5× speed-up are both readable in
//! one chart. Bars grow from the axis floor, which is always at most 0.5×, not from 1×:
//! a bar at exactly 1× (the reference itself, or a scheme as fast as it) must have a
//! visible height, or it looks missing. The 1× line marks "as fast as the reference", and
//! every bar carries its value (written upright while bars are wide enough, rotated
//! otherwise). A missing ratio (reference value 0) draws no bar.
//!
//! Bars are told apart by more than colour: each carries its scheme's marker in white at
//! its foot, and schemes past the tenth are hatched (the legend shows the same), so up to
//! twenty schemes stay distinct. The floor never goes below [`RATIO_FLOOR`]: a ratio
//! below it (ttFlash's 1 µs buffered writes are 0.0001× nogc) would otherwise squeeze
//! every other bar into the top of the chart; such a bar is drawn as a short stub with a
//! white break across it and keeps its true value as its label. A value resting on fewer
//! than ten samples carries the thin mark (†).

use super::legend::paint_bar;
use super::{
    frame, line_styles, log_ticks, note, render, scheme_entries, slot_at, slot_centres, Swatch, FONT, FULL, LIGHT_GRID,
};
use crate::report::baseline::{baseline_index, ratio};
use crate::report::evidence::is_thin;
use crate::report::fmt::{axis_num, ratio_label};
use crate::stats::{LatencySummary, RunReport};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

type Pick = fn(&RunReport) -> &LatencySummary;
type Stat = fn(&LatencySummary) -> u64;

/// Group label, request class, statistic and the statistic's percentile name.
const GROUPS: [(&str, Pick, Stat, &str); 6] = [
    ("reads p99", |r| &r.reads, |s| s.p99_ns, "p99"),
    ("reads p99.9", |r| &r.reads, |s| s.p99_9_ns, "p99.9"),
    ("reads p99.99", |r| &r.reads, |s| s.p99_99_ns, "p99.99"),
    ("writes p99", |r| &r.writes, |s| s.p99_ns, "p99"),
    ("writes p99.9", |r| &r.writes, |s| s.p99_9_ns, "p99.9"),
    ("writes p99.99", |r| &r.writes, |s| s.p99_99_ns, "p99.99"),
];

/// The lowest ratio the axis shows; smaller ratios are drawn as broken stubs at it.
pub(crate) const RATIO_FLOOR: f64 = 0.1;

/// Horizontal coordinate units per group: plotters formats custom integer ticks, so
/// bars are placed on an integer axis fine enough for sub-pixel placement.
const SLOT: i32 = 10_000;

/// Up to this many schemes, value labels fit upright side by side above their bars;
/// beyond it they are rotated to read upwards.
const MAX_UPRIGHT_LABELS: usize = 6;

/// Axis bounds for ratios `values`: a 1-2-5 floor at most 0.5× and below the smallest
/// ratio (but not below [`RATIO_FLOOR`]), and a ceiling leaving room for the labels above the tallest bar.
pub(crate) fn ratio_range(values: &[f64], rotated: bool) -> (f64, f64) {
    let min = values.iter().copied().fold(1.0f64, f64::min);
    let max = values.iter().copied().fold(1.0f64, f64::max);
    let (lo, _) = super::nice_log_range([min / 1.5, 0.5].into_iter(), (0.5, 1.0));
    let head = if rotated { 4.0 } else { 2.0 };
    (lo.clamp(RATIO_FLOOR, 0.5), (max * head).max(2.0))
}

pub(crate) fn percentiles_svg(reports: &[RunReport]) -> Result<String, String> {
    let styles = line_styles(reports);
    let reference = baseline_index(reports).unwrap_or(0);
    let caption = match (baseline_index(reports), reports.get(reference)) {
        (Some(_), _) => "Tail percentiles relative to nogc".to_string(),
        (None, Some(r)) => format!("Tail percentiles relative to {} (no nogc run)", r.scheme),
        (None, None) => "Tail percentiles".to_string(),
    };
    // ratios[g][s]: group g, scheme s.
    let ratios: Vec<Vec<Option<f64>>> = GROUPS
        .iter()
        .map(|(_, pick, stat, _)| {
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
        let rotated = reports.len() > MAX_UPRIGHT_LABELS;
        let (lo, hi) = ratio_range(&all, rotated);
        let n = GROUPS.len() as i32 * SLOT;
        let plot = frame(root, &caption, &scheme_entries(reports), Swatch::Box)?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d(
                (0..n).with_key_points(slot_centres(GROUPS.len(), SLOT)),
                (lo..hi).log_scale().with_key_points(log_ticks(lo, hi)),
            )?;
        chart
            .configure_mesh()
            .light_line_style(LIGHT_GRID)
            .disable_x_mesh()
            .x_label_formatter(&|v| GROUPS[slot_at(*v, SLOT).min(GROUPS.len() - 1)].0.to_string())
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
        let label_style = if rotated {
            // Rotated 270°: the text starts just above the bar and reads upwards.
            TextStyle::from((FONT, 12).into_font().transform(FontTransform::Rotate270))
                .pos(Pos::new(HPos::Left, VPos::Center))
        } else {
            TextStyle::from((FONT, 12).into_font()).pos(Pos::new(HPos::Center, VPos::Bottom))
        };
        // A little air between a bar's top and its label (a factor: the axis is log).
        let gap = (hi / lo).powf(0.01);
        let clipped = all.iter().any(|v| *v < lo);
        // A clipped bar's stub: a few percent of the axis' height above the floor.
        let stub = lo * (hi / lo).powf(0.04);
        for (s, st) in styles.iter().enumerate() {
            let bars: Vec<_> = ratios
                .iter()
                .enumerate()
                .filter_map(|(g, row)| row[s].map(|v| (g, v)))
                .collect();
            let x0 = |g: usize| g as i32 * SLOT + SLOT / 10 + s as i32 * width;
            for &(g, v) in &bars {
                let top = chart.backend_coord(&(x0(g), v.max(stub)));
                let foot = chart.backend_coord(&(x0(g) + width * 9 / 10, lo));
                paint_bar(root, (top.0, top.1, foot.0, foot.1), st, v < lo)?;
            }
            chart.draw_series(bars.iter().map(|&(g, v)| {
                let (_, pick, _, pct) = GROUPS[g];
                let thin = if is_thin(pick(&reports[s]), pct) { "†" } else { "" };
                Text::new(
                    format!("{}{thin}", ratio_label(v)),
                    (x0(g) + width * 9 / 20, v.max(stub) * gap),
                    label_style.clone(),
                )
            }))?;
        }
        if clipped {
            let style = TextStyle::from((FONT, 12).into_font())
                .color(&RGBColor(90, 90, 90))
                .pos(Pos::new(HPos::Right, VPos::Top));
            let (w, _) = plot.dim_in_pixel();
            plot.draw_text(
                &format!("broken bars: below {}×, value in label", axis_num(lo)),
                &style,
                (w as i32 - 16, 14),
            )?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_is_below_one_and_below_every_ratio() {
        assert_eq!(ratio_range(&[1.0, 1.0], false), (0.5, 2.0));
        assert_eq!(ratio_range(&[1.0, 30.0], false), (0.5, 60.0));
        assert_eq!(ratio_range(&[1.0, 30.0], true), (0.5, 120.0));
        // 0.01× / 1.5 = 0.0067 → floor on the 1-2-5 step below it.
        assert_eq!(ratio_range(&[0.3, 1.0], false), (0.2, 2.0));
        // 0.0001× (a write buffer's 1 µs writes) stops at the floor, not at 0.00005×.
        assert_eq!(ratio_range(&[0.0001, 1.0], false), (RATIO_FLOOR, 2.0));
        assert_eq!(ratio_range(&[], false), (0.5, 2.0));
    }
}
