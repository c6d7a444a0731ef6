//! The report's figures, each rendered by plotters' SVG backend into a `String` that the
//! HTML page inlines. One file per figure; this file holds what they share: the render
//! wrapper, line drawing in a scheme's style (`style.rs`) and notes.
//!
//! Figures never fail the report: a figure that cannot be drawn becomes a short note in
//! the page (see `render`), because losing the tables over one bad chart helps nobody.

mod cdf;
mod free_blocks;
mod interval;
mod legend;
mod percentiles;
mod scale;
mod style;
mod tail;
mod thin;
mod waits;

pub(crate) use cdf::cdf_svg;
pub(crate) use free_blocks::{free_blocks_svg, FreeSeries};
pub(crate) use interval::{interval_svg, IntervalSeries};
pub(crate) use percentiles::percentiles_svg;
pub(crate) use tail::tail_svg;
pub(crate) use waits::waits_svg;

use legend::{frame, scheme_entries, scheme_entries_with_data, Swatch};
use scale::{log_frac, log_ticks, nice_log_range};
use style::{line_styles, marker_points, marker_points_x, marker_shape, LineStyle, Pattern, DASH};
use thin::{steps, thin, thin_timeline};

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

/// The key points of a categorical x axis: the centres of `n` slots of `slot` units each
/// (groups, schemes or swept values sit on an integer axis, since plotters labels integer
/// key points), and the slot an axis value lies in (a label formatter's look-up).
pub(crate) fn slot_centres(n: usize, slot: i32) -> Vec<i32> {
    (0..n as i32).map(|g| g * slot + slot / 2).collect()
}

pub(crate) fn slot_at(v: i32, slot: i32) -> usize {
    (v.max(0) / slot) as usize
}

/// Draws one scheme's `line` in its style `st`, then its `markers` on top.
pub(crate) fn draw_line<'a, X, Y>(
    chart: &mut ChartContext<'a, SVGBackend<'a>, Cartesian2d<X, Y>>,
    line: Vec<(f64, f64)>,
    markers: &[(f64, f64)],
    st: LineStyle,
) -> DrawResult
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let stroke = st.color.stroke_width(st.width);
    match st.pattern {
        Pattern::Solid => {
            chart.draw_series(LineSeries::new(line, stroke))?;
        }
        Pattern::Dashed => {
            chart.draw_series(DashedLineSeries::new(line, DASH.0, DASH.1, stroke))?;
        }
    }
    if let Some(m) = st.marker {
        chart.draw_series(
            markers
                .iter()
                .map(|&p| EmptyElement::at(p) + Polygon::new(marker_shape(m), st.color.filled())),
        )?;
    }
    Ok(())
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
