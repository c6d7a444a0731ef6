//! Figure 5: where waiting time went. One stacked bar per scheme: each cause's share of
//! the run's total wait (`wait_ns_by_cause`). Shares, so the mix of causes compares
//! across runs; but shares alone hide that one run may wait 16× longer than another, so
//! each run's total wait (seconds, summed over sub-requests) is printed above its bar,
//! with the share of requests that waited on GC at all.

use super::{frame, note, render, slot_at, slot_centres, LineStyle, Swatch, FONT, FULL, LIGHT_GRID};
use crate::report::fmt::{pct, seconds};
use crate::stats::RunReport;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Causes the simulator attributes waits to, in stacking order (bottom first); any other
/// cause a run reports is stacked after them in name order.
const KNOWN: [(&str, RGBColor); 7] = [
    ("user_op", RGBColor(150, 150, 150)),
    ("channel", RGBColor(0, 114, 178)),
    ("buffer", RGBColor(0, 158, 115)),
    ("gc_copy", RGBColor(213, 94, 0)),
    ("gc_erase", RGBColor(230, 159, 0)),
    ("free_space", RGBColor(204, 121, 167)),
    ("background", RGBColor(86, 180, 233)),
];
/// Horizontal coordinate units per scheme (integer axis: see `percentiles.rs`).
const SLOT: i32 = 10_000;

/// Top of the y axis (percent): the room above 100% holds two lines of text per bar.
const TOP: f64 = 118.0;
/// Baselines (percent) of the two lines above each bar: total wait, then GC share.
const TOTAL_AT: f64 = 108.5;
const GC_AT: f64 = 101.5;

const EXTRA: [RGBColor; 3] = [
    RGBColor(120, 94, 240),
    RGBColor(140, 86, 75),
    RGBColor(86, 180, 233),
];

/// Causes present in any run (nonzero), in stacking order, each with its colour.
fn causes(reports: &[RunReport]) -> Vec<(String, RGBColor)> {
    let used = |name: &str| {
        reports
            .iter()
            .any(|r| r.waits.wait_ns_by_cause.get(name).is_some_and(|&ns| ns > 0))
    };
    let mut out: Vec<(String, RGBColor)> = KNOWN
        .iter()
        .filter(|(n, _)| used(n))
        .map(|(n, c)| (n.to_string(), *c))
        .collect();
    let mut extra: Vec<&String> = reports
        .iter()
        .flat_map(|r| r.waits.wait_ns_by_cause.keys())
        .filter(|k| !KNOWN.iter().any(|(n, _)| n == k) && used(k))
        .collect();
    extra.sort();
    extra.dedup();
    for (i, name) in extra.into_iter().enumerate() {
        out.push((name.clone(), EXTRA[i % EXTRA.len()]));
    }
    out
}

pub(crate) fn waits_svg(reports: &[RunReport]) -> Result<String, String> {
    let causes = causes(reports);
    render(FULL, |root| {
        let title = "Wait time by cause: bars are shares of each run's total wait (total above)";
        let entries: Vec<(String, LineStyle)> = causes
            .iter()
            .map(|(n, c)| (n.clone(), LineStyle::plain(*c)))
            .collect();
        let plot = frame(root, title, &entries, Swatch::Box)?;
        let n = reports.len().max(1) as i32 * SLOT;
        let mut chart = ChartBuilder::on(&plot)
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d(
                (0..n).with_key_points(slot_centres(reports.len(), SLOT)),
                0f64..TOP,
            )?;
        chart
            .configure_mesh()
            .light_line_style(LIGHT_GRID)
            .disable_x_mesh()
            .x_label_formatter(&|v| reports.get(slot_at(*v, SLOT)).map(|r| r.scheme.clone()).unwrap_or_default())
            // The headroom above 100% holds the captions; it gets no tick label.
            .y_label_formatter(&|v| {
                if *v > 100.0 {
                    String::new()
                } else {
                    format!("{v:.0}%")
                }
            })
            .y_desc("share of total wait")
            .label_style((FONT, 13))
            .draw()?;
        if reports.is_empty() {
            note(&plot, "no runs")?;
            return Ok(());
        }
        let above =
            TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Center, VPos::Bottom));
        let bold = TextStyle::from((FONT, 13).into_font().style(FontStyle::Bold))
            .pos(Pos::new(HPos::Center, VPos::Bottom));
        let centre =
            TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Center, VPos::Center));
        // Long captions only while bars are wide enough to hold them.
        let long = reports.len() <= 8;
        for (i, r) in reports.iter().enumerate() {
            let mid = i as i32 * SLOT + SLOT / 2;
            let (x0, x1) = (mid - SLOT * 3 / 10, mid + SLOT * 3 / 10);
            let by_cause = &r.waits.wait_ns_by_cause;
            let total: u64 = causes
                .iter()
                .map(|(c, _)| by_cause.get(c).copied().unwrap_or(0))
                .sum();
            if total == 0 {
                chart.draw_series([Text::new("no waits", (mid, 50.0), centre.clone())])?;
            } else {
                let mut y = 0.0;
                for (cause, colour) in &causes {
                    let share =
                        by_cause.get(cause).copied().unwrap_or(0) as f64 / total as f64 * 100.0;
                    if share > 0.0 {
                        chart.draw_series([Rectangle::new(
                            [(x0, y), (x1, y + share)],
                            colour.filled(),
                        )])?;
                    }
                    y += share;
                }
            }
            let gc = pct(r.waits.share_waited_on_gc);
            let (total_text, gc_text) = if long {
                (
                    format!("total wait {}", seconds(total)),
                    format!("waited on GC: {gc}"),
                )
            } else {
                (seconds(total), gc)
            };
            chart.draw_series([
                Text::new(total_text, (mid, TOTAL_AT), bold.clone()),
                Text::new(gc_text, (mid, GC_AT), above.clone()),
            ])?;
        }
        Ok(())
    })
}
