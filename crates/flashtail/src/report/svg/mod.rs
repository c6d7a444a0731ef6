//! The report's figures, each rendered by plotters' SVG backend into a `String` that the
//! HTML page inlines. One file per figure; this file holds what they share: the per-scheme
//! colours (identical in every figure), log-axis ticks and the render wrapper.
//!
//! Figures never fail the report: a figure that cannot be drawn becomes a short note in
//! the page (see `render`), because losing the tables over one bad chart helps nobody.

mod cdf;
mod free_blocks;
mod percentiles;
mod tail;
mod waits;

pub(crate) use cdf::cdf_svg;
pub(crate) use free_blocks::free_blocks_svg;
pub(crate) use percentiles::percentiles_svg;
pub(crate) use tail::tail_svg;
pub(crate) use waits::waits_svg;

use crate::stats::RunReport;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::error::Error;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Size of a half-width figure (two per row on the page).
pub(crate) const HALF: (u32, u32) = (640, 420);
/// Size of a full-width figure.
pub(crate) const FULL: (u32, u32) = (1290, 440);

pub(crate) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
pub(crate) type DrawResult = Result<(), Box<dyn Error>>;

pub(crate) const FONT: &str = "sans-serif";

/// Minor grid lines: barely visible, so data lines dominate.
pub(crate) const LIGHT_GRID: RGBColor = RGBColor(246, 246, 246);

/// Colour-blind-safe palette (Okabe–Ito, then a few distinct extras) for non-baseline
/// schemes, in the order they appear; `nogc` is always black so the reference stands out.
const PALETTE: [RGBColor; 9] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(120, 94, 240),
    RGBColor(140, 86, 75),
    RGBColor(150, 150, 150),
];

/// One colour per report, stable across every figure of the page.
pub(crate) fn scheme_colors(reports: &[RunReport]) -> Vec<RGBColor> {
    let mut next = 0;
    reports
        .iter()
        .map(|r| {
            if r.scheme.eq_ignore_ascii_case(super::BASELINE_SCHEME) {
                BLACK
            } else {
                let c = PALETTE[next % PALETTE.len()];
                next += 1;
                c
            }
        })
        .collect()
}

/// Draws a figure of `size` with `draw` and returns the SVG text, or a message saying why
/// it could not be drawn. Panics inside the plotting library are caught for the same
/// reason: one figure must not take the whole report down.
pub(crate) fn render(
    size: (u32, u32),
    draw: impl FnOnce(&Area<'_>) -> DrawResult,
) -> Result<String, String> {
    let mut buf = String::new();
    let outcome = catch_unwind(AssertUnwindSafe(|| -> DrawResult {
        let root = SVGBackend::with_string(&mut buf, size).into_drawing_area();
        root.fill(&WHITE)?;
        draw(&root)?;
        root.present()?;
        Ok(())
    }));
    match outcome {
        Ok(Ok(())) => Ok(buf),
        Ok(Err(e)) => Err(e.to_string()),
        Err(_) => Err("the plotting library panicked".into()),
    }
}

/// Tick positions for a log axis over `[lo, hi]`: every decade, plus 2× and 5× steps
/// when the range spans three decades or less (otherwise a couple of ticks is all).
pub(crate) fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let dense = (hi / lo).log10() <= 3.01;
    let mut ticks = Vec::new();
    for e in a..=b {
        let d = 10f64.powi(e);
        let mults: &[f64] = if dense { &[1.0, 2.0, 5.0] } else { &[1.0] };
        for m in mults {
            let t = d * m;
            if t >= lo * (1.0 - 1e-9) && t <= hi * (1.0 + 1e-9) {
                ticks.push(t);
            }
        }
    }
    ticks
}

/// Nearest 1-2-5 step (1, 2, 5 × 10^k) at or below `v` (`up` false) or at or above it.
fn step125(v: f64, up: bool) -> f64 {
    let d = 10f64.powi(v.log10().floor() as i32);
    let steps = [d, 2.0 * d, 5.0 * d, 10.0 * d];
    // Tolerate float noise so a value of exactly 0.2 stays 0.2.
    let eps = 1e-9 * v;
    if up {
        steps
            .into_iter()
            .find(|s| *s >= v - eps)
            .unwrap_or(10.0 * d)
    } else {
        steps.into_iter().rev().find(|s| *s <= v + eps).unwrap_or(d)
    }
}

/// Log-axis bounds on 1-2-5 steps around the positive values, or `default` when there
/// are none; never a zero-width range (a log axis needs lo < hi).
pub(crate) fn nice_log_range(values: impl Iterator<Item = f64>, default: (f64, f64)) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, 0f64);
    for v in values.filter(|v| v.is_finite() && *v > 0.0) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return default;
    }
    let lo = step125(lo, false);
    let mut hi = step125(hi, true);
    if hi <= lo {
        hi = step125(lo * 1.5, true);
    }
    (lo, hi)
}

/// A centred grey note inside an empty chart area ("no write requests", ...).
pub(crate) fn note(area: &Area<'_>, text: &str) -> DrawResult {
    let (w, h) = area.dim_in_pixel();
    let style = TextStyle::from((FONT, 18).into_font())
        .color(&RGBColor(110, 110, 110))
        .pos(Pos::new(HPos::Center, VPos::Center));
    area.draw_text(text, &style, (w as i32 / 2, h as i32 / 2))?;
    Ok(())
}

/// An empirical CDF drawn as what it is, a step function: between two reported points
/// the curve holds the earlier level and jumps at the next latency, rather than a
/// straight line that would invent values between sparse tail points.
pub(crate) fn steps(points: impl Iterator<Item = (f64, f64)>) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = Vec::new();
    for (x, y) in points {
        if let Some(&(_, prev_y)) = out.last() {
            out.push((x, prev_y));
        }
        out.push((x, y));
    }
    out
}

/// Fraction of an axis below which two points are drawn as one (about a pixel).
const THIN_RESOLUTION: f64 = 1.0 / 1000.0;

/// Drops points that would land within [`THIN_RESOLUTION`] of the previously kept point
/// on both axes, keeping the first and the last. `unit` maps a point to `[0, 1]²` axis
/// fractions (after any log scaling), so the error stays below a pixel whatever the
/// scale. Large inputs (hundreds of thousands of CDF points or free-block samples) would
/// otherwise make the inline SVG megabytes long without changing what is visible.
pub(crate) fn thin(
    points: impl ExactSizeIterator<Item = (f64, f64)>,
    unit: impl Fn((f64, f64)) -> (f64, f64),
) -> Vec<(f64, f64)> {
    let n = points.len();
    let mut out = Vec::with_capacity(n.min(4096));
    let mut last: Option<(f64, f64)> = None;
    for (i, p) in points.enumerate() {
        let u = unit(p);
        let keep = match last {
            None => true,
            Some(l) => {
                i + 1 == n
                    || (u.0 - l.0).abs() >= THIN_RESOLUTION
                    || (u.1 - l.1).abs() >= THIN_RESOLUTION
            }
        };
        if keep {
            out.push(p);
            last = Some(u);
        }
    }
    out
}

/// Thins a time series for drawing: points are grouped into buckets [`THIN_RESOLUTION`]
/// of the x span wide, and each bucket keeps its first, lowest, highest and last point
/// in time order. Unlike [`thin`], a noisy series cannot defeat it, and every dip and
/// peak (e.g. free blocks reaching the GC threshold) survives.
pub(crate) fn thin_timeline(points: &[(f64, f64)], x_span: f64) -> Vec<(f64, f64)> {
    let bucket_of = |x: f64| (x / (x_span * THIN_RESOLUTION)).floor() as i64;
    let mut out = Vec::new();
    let mut start = 0;
    while start < points.len() {
        let b = bucket_of(points[start].0);
        let mut end = start + 1;
        while end < points.len() && bucket_of(points[end].0) == b {
            end += 1;
        }
        let bucket = &points[start..end];
        let (mut lo, mut hi) = (0, 0);
        for (i, p) in bucket.iter().enumerate() {
            if p.1 < bucket[lo].1 {
                lo = i;
            }
            if p.1 > bucket[hi].1 {
                hi = i;
            }
        }
        let mut keep = vec![0, lo, hi, bucket.len() - 1];
        keep.sort_unstable();
        keep.dedup();
        out.extend(keep.into_iter().map(|i| bucket[i]));
        start = end;
    }
    out
}

/// Axis fraction of `v` on a log axis over `[lo, hi]`.
pub(crate) fn log_frac(v: f64, lo: f64, hi: f64) -> f64 {
    (v / lo).log10() / (hi / lo).log10()
}

/// How a legend entry shows its colour: a stroke for lines, a box for bars.
#[derive(Clone, Copy)]
pub(crate) enum Swatch {
    Line,
    Box,
}

/// One legend entry per report, in the scheme colours.
pub(crate) fn scheme_entries(reports: &[RunReport]) -> Vec<(String, RGBColor)> {
    reports
        .iter()
        .map(|r| r.scheme.clone())
        .zip(scheme_colors(reports))
        .collect()
}

const LEGEND_ROW: i32 = 22;
const LEGEND_LEFT: i32 = 70;

/// Pixel width of one legend entry (swatch, gap, estimated label width, spacing).
fn entry_width(name: &str) -> i32 {
    24 + 8 * name.chars().count() as i32 + 24
}

/// Gives the figure its title and a legend strip above the plot, and returns the plot
/// area. A legend outside the plot can never hide a line or a bar, whatever the data.
pub(crate) fn frame<'a>(
    root: &Area<'a>,
    title: &str,
    entries: &[(String, RGBColor)],
    swatch: Swatch,
) -> Result<Area<'a>, Box<dyn Error>> {
    let body = root.titled(title, (FONT, 20))?;
    let width = body.dim_in_pixel().0 as i32;
    // Lay entries out left to right, wrapping to new rows when the strip is full.
    let mut placed = Vec::with_capacity(entries.len());
    let (mut x, mut row) = (LEGEND_LEFT, 0);
    for (name, colour) in entries {
        let w = entry_width(name);
        if x + w > width && x > LEGEND_LEFT {
            x = LEGEND_LEFT;
            row += 1;
        }
        placed.push((x, row, name, colour));
        x += w;
    }
    let rows = if entries.is_empty() { 0 } else { row + 1 };
    let (strip, plot) = body.split_vertically(rows * LEGEND_ROW + 6);
    let style = TextStyle::from((FONT, 14).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    for (x, row, name, colour) in placed {
        let y = row * LEGEND_ROW + LEGEND_ROW / 2;
        match swatch {
            Swatch::Line => strip.draw(&PathElement::new(
                vec![(x, y), (x + 18, y)],
                colour.stroke_width(3),
            ))?,
            Swatch::Box => strip.draw(&Rectangle::new(
                [(x + 2, y - 7), (x + 16, y + 7)],
                colour.filled(),
            ))?,
        }
        strip.draw_text(name, &style, (x + 24, y))?;
    }
    Ok(plot)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_decades_or_1_2_5() {
        assert_eq!(log_ticks(1e-5, 1.0).len(), 6);
        assert_eq!(
            log_ticks(0.1, 10.0),
            vec![0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0]
        );
        assert_eq!(log_ticks(0.05, 50.0).len(), 10);
    }

    #[test]
    fn nice_range_ignores_zero_and_never_collapses() {
        assert_eq!(
            nice_log_range([0.0, 0.03, 4.0].into_iter(), (1.0, 2.0)),
            (0.02, 5.0)
        );
        assert_eq!(nice_log_range([0.0].into_iter(), (1.0, 2.0)), (1.0, 2.0));
        assert_eq!(nice_log_range([1.0].into_iter(), (1.0, 2.0)), (1.0, 2.0));
        assert_eq!(
            nice_log_range([0.2, 0.2].into_iter(), (1.0, 2.0)),
            (0.2, 0.5)
        );
        assert_eq!(
            nice_log_range([0.09, 40.2].into_iter(), (1.0, 2.0)),
            (0.05, 50.0)
        );
    }

    #[test]
    fn steps_hold_the_level_until_the_next_point() {
        let s = steps([(1.0, 0.5), (2.0, 0.9), (4.0, 1.0)].into_iter());
        assert_eq!(
            s,
            vec![(1.0, 0.5), (2.0, 0.5), (2.0, 0.9), (4.0, 0.9), (4.0, 1.0)]
        );
        assert_eq!(steps([(3.0, 1.0)].into_iter()), vec![(3.0, 1.0)]);
    }

    #[test]
    fn thinning_keeps_ends_and_bounds_the_point_count() {
        let pts: Vec<(f64, f64)> = (0..100_000)
            .map(|i| (i as f64, i as f64 / 99_999.0))
            .collect();
        let t = thin(pts.iter().copied(), |(x, y)| (x / 99_999.0, y));
        assert_eq!(t.first(), Some(&(0.0, 0.0)));
        assert_eq!(t.last(), Some(&(99_999.0, 1.0)));
        assert!(t.len() <= 1001, "{}", t.len());
        // Nothing to drop when points are already far apart.
        assert_eq!(thin([(0.0, 0.0), (1.0, 1.0)].into_iter(), |p| p).len(), 2);
    }

    #[test]
    fn timeline_thinning_keeps_extremes() {
        let pts: Vec<(f64, f64)> = (0..100_000)
            .map(|i| (i as f64, if i == 51_234 { -5.0 } else { (i % 3) as f64 }))
            .collect();
        let t = thin_timeline(&pts, 100_000.0);
        assert!(t.len() <= 4000, "{}", t.len());
        assert!(t.contains(&(51_234.0, -5.0)));
        assert_eq!(t.first(), Some(&(0.0, 0.0)));
        assert_eq!(t.last(), pts.last());
    }

    #[test]
    fn baseline_is_black_and_others_distinct() {
        let mk = |s: &str| RunReport {
            scheme: s.into(),
            ..Default::default()
        };
        let c = scheme_colors(&[mk("base"), mk("nogc"), mk("ttflash")]);
        assert_eq!(c[1], BLACK);
        assert_ne!(c[0], c[2]);
    }
}
