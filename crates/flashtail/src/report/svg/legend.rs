//! Figure frame: the title and a legend strip above the plot area (wrapping into rows
//! when names do not fit), so a legend never covers data.

use super::style::{line_styles, marker_shape, LineStyle};
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
                strip.draw(&PathElement::new(
                    vec![(x, y), (x + SWATCH, y)],
                    st.color.stroke_width(st.width),
                ))?;
                if let Some(m) = st.marker {
                    strip.draw(
                        &(EmptyElement::at((x + SWATCH / 2, y))
                            + Polygon::new(marker_shape(m), st.color.filled())),
                    )?;
                }
            }
            Swatch::Box => strip.draw(&Rectangle::new(
                [(x + 2, y - 7), (x + 16, y + 7)],
                st.color.filled(),
            ))?,
        }
        strip.draw_text(name, &style, (x + SWATCH + 8, y))?;
    }
    Ok(plot)
}
