//! How each scheme looks in every figure and legend: a colour, a line pattern (solid or
//! dashed; bars: plain or hatched) and a marker shape, all assigned by the scheme's index
//! among the non-reference runs of the set, so one scheme looks the same in every figure
//! of a report. The ten colours are colour-blind safe (Okabe–Ito's seven minus yellow,
//! plus three of Paul Tol's "muted" set); the first ten schemes are solid, the next ten
//! dashed (hatched bars), and the seven marker shapes cycle independently, so the first
//! twenty schemes differ in colour × pattern and every scheme differs from its colour-mates
//! in marker as well. `nogc`, the reference, is always black and solid.
//!
//! Two runs often produce identical curves (e.g. schemes that never trigger GC on a light
//! trace), and a plain later line would hide the earlier one completely. So lines drawn
//! later are thinner than earlier ones (a thick line shows as a rim around a thin one on
//! top) and every scheme's markers sit at staggered positions along its curve, so each
//! stays visible where curves coincide. The legend draws the same width, pattern and
//! marker, so what the reader matches is what is drawn.
//!
//! Pure positions (`marker_points`) are separate from drawing so they can be tested
//! without rendering.

use crate::report::BASELINE_SCHEME;
use crate::stats::RunReport;
use plotters::prelude::*;

/// A marker shape drawn at a few points along a line (and on each bar).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Marker {
    Circle,
    Triangle,
    Square,
    Diamond,
    Cross,
    TriangleDown,
    Saltire,
}

/// Shapes in the order schemes receive them (cycled beyond seven; seven is coprime with
/// the ten colours, so colour-mates never share a shape).
const MARKERS: [Marker; 7] = [
    Marker::Circle,
    Marker::Triangle,
    Marker::Square,
    Marker::Diamond,
    Marker::Cross,
    Marker::TriangleDown,
    Marker::Saltire,
];

/// Colour-blind-safe palette for the non-reference schemes, in the order they appear.
pub(crate) const PALETTE: [RGBColor; 10] = [
    RGBColor(0, 114, 178),   // Okabe–Ito blue
    RGBColor(213, 94, 0),    // vermillion
    RGBColor(0, 158, 115),   // bluish green
    RGBColor(204, 121, 167), // reddish purple
    RGBColor(230, 159, 0),   // orange
    RGBColor(86, 180, 233),  // sky blue
    RGBColor(51, 34, 136),   // Tol indigo
    RGBColor(136, 34, 85),   // Tol wine
    RGBColor(153, 153, 51),  // Tol olive
    RGBColor(110, 110, 110), // grey
];

/// Line pattern (and, for bars, fill pattern) of a scheme.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pattern {
    /// Solid line; plain filled bar.
    Solid,
    /// Dashed line; bar hatched with white diagonals.
    Dashed,
}

/// Dash length and gap of a dashed line, in pixels.
pub(crate) const DASH: (u32, u32) = (9, 5);

/// Stroke widths (px) by drawing order: first lines thickest, the rest 2 px.
const WIDTHS: [u32; 2] = [5, 3];
const MIN_WIDTH: u32 = 2;

/// Markers per line: enough to identify a curve, few enough not to clutter.
pub(crate) const MARKERS_PER_LINE: usize = 7;

/// Marker half-size in pixels.
const MARKER_PX: i32 = 4;

/// The look of one scheme's line and of its legend entry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LineStyle {
    pub color: RGBColor,
    pub width: u32,
    /// `None` for entries that are not schemes (the wait causes' legend).
    pub marker: Option<Marker>,
    pub pattern: Pattern,
}

impl LineStyle {
    /// A colour swatch with no line semantics, for bar-chart legends.
    pub(crate) fn plain(color: RGBColor) -> Self {
        LineStyle {
            color,
            width: 3,
            marker: None,
            pattern: Pattern::Solid,
        }
    }
}

/// The colour, pattern and marker of the scheme at `slot`: `None` for the reference run
/// (black, solid, circle), `Some(k)` for the k-th other scheme of the set.
pub(crate) fn scheme_look(slot: Option<usize>) -> (RGBColor, Pattern, Marker) {
    match slot {
        None => (BLACK, Pattern::Solid, Marker::Circle),
        Some(k) => (
            PALETTE[k % PALETTE.len()],
            if (k / PALETTE.len()) & 1 == 0 { Pattern::Solid } else { Pattern::Dashed },
            MARKERS[(k + 1) % MARKERS.len()],
        ),
    }
}

/// Each report's slot: `None` for the `nogc` reference, else its index among the others.
fn slots(reports: &[RunReport]) -> Vec<Option<usize>> {
    let mut next = 0;
    reports
        .iter()
        .map(|r| {
            if r.scheme.eq_ignore_ascii_case(BASELINE_SCHEME) {
                None
            } else {
                next += 1;
                Some(next - 1)
            }
        })
        .collect()
}

/// One colour per report, stable across every figure of the page.
#[cfg(test)]
fn scheme_colors(reports: &[RunReport]) -> Vec<RGBColor> {
    slots(reports).into_iter().map(|s| scheme_look(s).0).collect()
}

/// One style per report, in report order (which is also drawing order).
pub(crate) fn line_styles(reports: &[RunReport]) -> Vec<LineStyle> {
    slots(reports)
        .into_iter()
        .enumerate()
        .map(|(i, slot)| {
            let (color, pattern, marker) = scheme_look(slot);
            LineStyle {
                color,
                width: WIDTHS.get(i).copied().unwrap_or(MIN_WIDTH),
                marker: Some(marker),
                pattern,
            }
        })
        .collect()
}

/// Where along a line scheme `index` of `of` puts its markers: `MARKERS_PER_LINE` points
/// evenly spaced by path length in axis-fraction space (`unit` maps a data point to
/// `[0, 1]²`), shifted by `(index + 0.5) / of` of one spacing, so identical curves of
/// different schemes get markers at different places. `log` says per axis whether
/// positions between two points are interpolated geometrically (log axis) or linearly.
pub(crate) fn marker_points(
    line: &[(f64, f64)],
    unit: impl Fn((f64, f64)) -> (f64, f64),
    log: (bool, bool),
    index: usize,
    of: usize,
) -> Vec<(f64, f64)> {
    if line.len() < 2 {
        return line.to_vec();
    }
    let units: Vec<(f64, f64)> = line.iter().map(|&p| unit(p)).collect();
    let seg_len: Vec<f64> = units
        .windows(2)
        .map(|w| ((w[1].0 - w[0].0).powi(2) + (w[1].1 - w[0].1).powi(2)).sqrt())
        .map(|l| if l.is_finite() { l } else { 0.0 })
        .collect();
    let total: f64 = seg_len.iter().sum();
    if total <= 0.0 {
        return vec![line[0]];
    }
    let phase = (index as f64 + 0.5) / of.max(1) as f64;
    let mix = |a: f64, b: f64, t: f64, is_log: bool| {
        if is_log && a > 0.0 && b > 0.0 {
            a * (b / a).powf(t)
        } else {
            a + (b - a) * t
        }
    };
    let mut out = Vec::with_capacity(MARKERS_PER_LINE);
    let (mut seg, mut walked) = (0, 0.0);
    for k in 0..MARKERS_PER_LINE {
        let target = total * (k as f64 + phase) / MARKERS_PER_LINE as f64;
        while seg + 1 < seg_len.len() && walked + seg_len[seg] < target {
            walked += seg_len[seg];
            seg += 1;
        }
        let t = if seg_len[seg] > 0.0 {
            ((target - walked) / seg_len[seg]).clamp(0.0, 1.0)
        } else {
            0.0
        };
        let (a, b) = (line[seg], line[seg + 1]);
        out.push((mix(a.0, b.0, t, log.0), mix(a.1, b.1, t, log.1)));
    }
    out
}

/// Markers for a time series: `MARKERS_PER_LINE` points evenly spaced in x over
/// `[x_lo, x_hi]`, shifted per scheme as in [`marker_points`], each at the series' value
/// there (linear between samples). Spacing by path length, as for CDFs, would crowd every
/// marker into the noisiest stretch of a timeline.
pub(crate) fn marker_points_x(
    line: &[(f64, f64)],
    (x_lo, x_hi): (f64, f64),
    index: usize,
    of: usize,
) -> Vec<(f64, f64)> {
    let (Some(first), Some(last)) = (line.first(), line.last()) else {
        return Vec::new();
    };
    let phase = (index as f64 + 0.5) / of.max(1) as f64;
    let mut out = Vec::with_capacity(MARKERS_PER_LINE);
    let mut seg = 0;
    for k in 0..MARKERS_PER_LINE {
        let x = x_lo + (x_hi - x_lo) * (k as f64 + phase) / MARKERS_PER_LINE as f64;
        // Outside the series' own time span there is nothing to mark.
        if x < first.0 || x > last.0 {
            continue;
        }
        while seg + 1 < line.len() && line[seg + 1].0 < x {
            seg += 1;
        }
        let (a, b) = (line[seg], line.get(seg + 1).copied().unwrap_or(line[seg]));
        let t = if b.0 > a.0 {
            ((x - a.0) / (b.0 - a.0)).clamp(0.0, 1.0)
        } else {
            0.0
        };
        out.push((x, a.1 + (b.1 - a.1) * t));
    }
    out
}

/// The outline of marker `m` in pixel offsets around its point. Every shape is a
/// polygon (the circle an octagon, the cross a plus sign), so one element type draws
/// them all, in figures and legends alike.
pub(crate) fn marker_shape(m: Marker) -> Vec<(i32, i32)> {
    let s = MARKER_PX;
    match m {
        Marker::Circle => vec![
            (s, 2),
            (2, s),
            (-2, s),
            (-s, 2),
            (-s, -2),
            (-2, -s),
            (2, -s),
            (s, -2),
        ],
        Marker::Triangle => vec![(0, -s - 1), (s + 1, s), (-s - 1, s)],
        Marker::TriangleDown => vec![(0, s + 1), (s + 1, -s), (-s - 1, -s)],
        Marker::Square => vec![(-s, -s), (s, -s), (s, s), (-s, s)],
        Marker::Diamond => vec![(0, -s - 1), (s + 1, 0), (0, s + 1), (-s - 1, 0)],
        Marker::Saltire => vec![
            (0, -2),
            (s - 1, -s - 1),
            (s + 1, -s + 1),
            (2, 0),
            (s + 1, s - 1),
            (s - 1, s + 1),
            (0, 2),
            (-s + 1, s + 1),
            (-s - 1, s - 1),
            (-2, 0),
            (-s - 1, -s + 1),
            (-s + 1, -s - 1),
        ],
        Marker::Cross => vec![
            (-1, -s - 1),
            (1, -s - 1),
            (1, -1),
            (s + 1, -1),
            (s + 1, 1),
            (1, 1),
            (1, s + 1),
            (-1, s + 1),
            (-1, 1),
            (-s - 1, 1),
            (-s - 1, -1),
            (-1, -1),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_lines_are_thinner_and_markers_distinct() {
        let mk = |s: &str| RunReport {
            scheme: s.into(),
            ..Default::default()
        };
        let st = line_styles(&[mk("a"), mk("nogc"), mk("c"), mk("d")]);
        let widths: Vec<u32> = st.iter().map(|s| s.width).collect();
        assert_eq!(widths, [5, 3, 2, 2]);
        assert_eq!(st[0].marker, Some(Marker::Triangle));
        assert_eq!(st[1].marker, Some(Marker::Circle));
        assert_eq!(st[3].marker, Some(Marker::Diamond));
        assert_eq!(st[1].color, BLACK);
    }

    #[test]
    fn twenty_schemes_differ_in_colour_and_pattern_and_colour_mates_in_marker() {
        let looks: Vec<_> = (0..20).map(|k| scheme_look(Some(k))).collect();
        for i in 0..looks.len() {
            for j in 0..i {
                assert_ne!((looks[i].0, looks[i].1), (looks[j].0, looks[j].1), "{i} {j}");
                if looks[i].0 == looks[j].0 {
                    assert_ne!(looks[i].2, looks[j].2, "{i} {j}");
                }
            }
            assert_ne!(looks[i].0, BLACK);
        }
        assert_eq!(looks[9].1, Pattern::Solid);
        assert_eq!(looks[10].1, Pattern::Dashed);
        // The reference keeps its look whatever its position, and others keep their order.
        let mk = |s: &str| RunReport { scheme: s.into(), ..Default::default() };
        let c = scheme_colors(&[mk("base"), mk("nogc"), mk("ttflash")]);
        assert_eq!(c, vec![PALETTE[0], BLACK, PALETTE[1]]);
    }

    #[test]
    fn markers_are_spread_by_length_and_staggered_per_scheme() {
        // A straight line from (0, 0) to (7, 0) on linear axes, unit = x / 7.
        let line = [(0.0, 0.0), (7.0, 0.0)];
        let unit = |(x, y): (f64, f64)| (x / 7.0, y);
        let first = marker_points(&line, unit, (false, false), 0, 2);
        let xs: Vec<f64> = first.iter().map(|p| p.0).collect();
        assert_eq!(xs, [0.25, 1.25, 2.25, 3.25, 4.25, 5.25, 6.25]);
        let second = marker_points(&line, unit, (false, false), 1, 2);
        assert_eq!(second[0], (0.75, 0.0));
        // On a log axis the position between two points is geometric.
        let log_line = [(1.0, 0.0), (100.0, 0.0)];
        let p = marker_points(
            &log_line,
            |(x, y)| (x.log10() / 2.0, y),
            (true, false),
            0,
            1,
        );
        assert!((p[0].0 - 10f64.powf(2.0 * 0.5 / 7.0)).abs() < 1e-12);
        // Timelines: evenly in x, value interpolated, nothing outside the series.
        let tl = [(0.0, 10.0), (7.0, 24.0)];
        let p = marker_points_x(&tl, (0.0, 14.0), 0, 1);
        assert_eq!(p, vec![(1.0, 12.0), (3.0, 16.0), (5.0, 20.0), (7.0, 24.0)]);
        // Degenerate lines: nothing to spread along.
        assert_eq!(
            marker_points(&[(1.0, 1.0)], unit, (false, false), 0, 1).len(),
            1
        );
        assert_eq!(
            marker_points(&[(1.0, 1.0), (1.0, 1.0)], unit, (false, false), 0, 1),
            vec![(1.0, 1.0)]
        );
    }
}
