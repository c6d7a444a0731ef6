//! Figure frame: the title and a legend strip above the plot area (wrapping into rows
//! when names do not fit), so a legend never covers data; and how a bar is painted in a
//! scheme's look (colour, hatching, marker), the same in the legend as in the chart.

use super::style::{line_styles, marker_shape, LineStyle, Pattern, DASH};
use super::{Area, FONT};
use crate::stats::RunReport;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use std::error::Error;

/// How a legend entry shows its colour: a stroke for lines, a box for bars.
#[derive(Clone, Copy)]
pub(crate) enum Swatch {
    Line,
    Box,
}

/// One legend entry per report, in the scheme colours and line styles.
pub(crate) fn scheme_entries(reports: &[RunReport]) -> Vec<(String, LineStyle)> {
    reports
        .iter()
        .map(|r| r.scheme.clone())
        .zip(line_styles(reports))
        .collect()
}

/// Legend entries of the reports that have data in a figure (`has_data`); each keeps its
/// scheme's colour and line style, so a scheme looks the same in every figure.
pub(crate) fn scheme_entries_with_data(
    reports: &[RunReport],
    has_data: impl Fn(&RunReport) -> bool,
) -> Vec<(String, LineStyle)> {
    scheme_entries(reports)
        .into_iter()
        .zip(reports)
        .filter(|(_, r)| has_data(r))
        .map(|(e, _)| e)
        .collect()
}

const LEGEND_ROW: i32 = 22;
const LEGEND_LEFT: i32 = 70;
/// Swatch width: long enough to show a line's width and its marker.
const SWATCH: i32 = 28;

/// Pixel width of one legend entry (swatch, gap, estimated label width, spacing).
fn entry_width(name: &str) -> i32 {
    SWATCH + 8 + 8 * name.chars().count() as i32 + 24
}

/// Gives the figure its title and a legend strip above the plot, and returns the plot
/// area. A legend outside the plot can never hide a line or a bar, whatever the data.
pub(crate) fn frame<'a>(
    root: &Area<'a>,
    title: &str,
    entries: &[(String, LineStyle)],
    swatch: Swatch,
) -> Result<Area<'a>, Box<dyn Error>> {
    let body = root.titled(title, (FONT, 20))?;
    let width = body.dim_in_pixel().0 as i32;
    // Lay entries out left to right, wrapping to new rows when the strip is full.
    let mut placed = Vec::with_capacity(entries.len());
    let (mut x, mut row) = (LEGEND_LEFT, 0);
    for (name, st) in entries {
        let w = entry_width(name);
        if x + w > width && x > LEGEND_LEFT {
            x = LEGEND_LEFT;
            row += 1;
        }
        placed.push((x, row, name, st));
        x += w;
    }
    let rows = if entries.is_empty() { 0 } else { row + 1 };
    let (strip, plot) = body.split_vertically(rows * LEGEND_ROW + 6);
    let style = TextStyle::from((FONT, 14).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    for (x, row, name, st) in placed {
        let y = row * LEGEND_ROW + LEGEND_ROW / 2;
        match swatch {
            // The same width and marker as the drawn line, so entries match what is seen.
            Swatch::Line => {
                let stroke = st.color.stroke_width(st.width);
                let ends = vec![(x, y), (x + SWATCH, y)];
                match st.pattern {
                    Pattern::Solid => strip.draw(&PathElement::new(ends, stroke))?,
                    Pattern::Dashed => strip.draw(&plotters::element::DashedPathElement::new(ends, DASH.0, DASH.1, stroke))?,
                }
                if let Some(m) = st.marker {
                    strip.draw(
                        &(EmptyElement::at((x + SWATCH / 2, y))
                            + Polygon::new(marker_shape(m), st.color.filled())),
                    )?;
                }
            }
            Swatch::Box => paint_bar(&strip, (x + 2, y - 8, x + 22, y + 8), st, false)?,
        }
        strip.draw_text(name, &style, (x + SWATCH + 8, y))?;
    }
    Ok(plot)
}

/// Spacing of a hatched bar's white diagonals (pixels).
const HATCH_PX: i32 = 6;

/// The segments of lines `x + y = c`, every `spacing` pixels, inside the rectangle
/// `(left, top, right, bottom)`: the hatching of a bar.
pub(crate) fn hatch_segments(
    (l, t, r, b): (i32, i32, i32, i32),
    spacing: i32,
) -> Vec<((i32, i32), (i32, i32))> {
    let mut out = Vec::new();
    let mut c = l + t + spacing;
    while c < r + b {
        let (x_lo, x_hi) = ((c - b).max(l), (c - t).min(r));
        if x_lo < x_hi {
            out.push(((x_lo, c - x_lo), (x_hi, c - x_hi)));
        }
        c += spacing;
    }
    out
}

/// Paints a bar of scheme look `st` into pixel rectangle `(left, top, right, bottom)` of
/// `area`: filled in its colour, hatched with white diagonals for dashed schemes, its
/// marker in white near the foot (when the bar is wide enough to hold it), and, for a
/// `broken` bar (its value below the axis), a white zig-zag across it.
pub(crate) fn paint_bar<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    (l, t, r, b): (i32, i32, i32, i32),
    st: &LineStyle,
    broken: bool,
) -> Result<(), Box<dyn Error>>
where
    DB::ErrorType: 'static,
{
    let (t, b) = (t.min(b), t.max(b));
    area.draw(&Rectangle::new([(l, t), (r, b)], st.color.filled()))?;
    if st.pattern == Pattern::Dashed {
        for (p, q) in hatch_segments((l, t, r, b), HATCH_PX) {
            area.draw(&PathElement::new(vec![p, q], WHITE.stroke_width(2)))?;
        }
    }
    if let Some(m) = st.marker {
        if r - l >= 9 && b - t >= 12 {
            let centre = ((l + r) / 2, b - (b - t).min(14) / 2);
            area.draw(&(EmptyElement::at(centre) + Polygon::new(marker_shape(m), WHITE.filled())))?;
        }
    }
    if broken {
        let y = (t + b) / 2;
        let zig: Vec<(i32, i32)> = (0..=((r - l) / 3).max(1))
            .map(|k| (l + 3 * k, y + if k % 2 == 0 { -2 } else { 2 }))
            .collect();
        area.draw(&PathElement::new(zig, WHITE.stroke_width(2)))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hatching_stays_inside_the_bar() {
        let segs = hatch_segments((0, 0, 10, 20), 6);
        assert!(!segs.is_empty());
        for ((x0, y0), (x1, y1)) in &segs {
            for (x, y) in [(x0, y0), (x1, y1)] {
                assert!((0..=10).contains(x) && (0..=20).contains(y), "{x},{y}");
            }
            // Each is a diagonal x + y = c.
            assert_eq!(x0 + y0, x1 + y1);
        }
        // Lines every 6 px of x + y from 6 to 24: 6, 12, 18, 24.
        assert_eq!(segs.len(), 4);
    }
}
