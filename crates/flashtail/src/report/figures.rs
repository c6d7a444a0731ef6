//! The report's figures as a set: each with a file name, a caption and whether it spans
//! the page, drawn once and used both by `report.html` (inline) and by `--figures DIR`
//! (standalone `NAME.svg` and `NAME.png` files for papers and slides).
//!
//! PNGs are rasterised from the very same SVG with `resvg` (pure Rust) at
//! [`PNG_SCALE`]× the SVG's pixel size, with the machine's fonts (fontconfig): the SVG
//! names the generic `sans-serif`, resolved to the first installed sans-serif face when
//! Arial is missing. On a machine without any font the PNG's text is missing; the SVG is
//! unaffected. What is not modelled: vector PDF/EPS output (convert the SVG).

use super::error::ReportError;
use super::svg;
use crate::stats::RunReport;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// PNG pixels per SVG pixel: 2 gives a 1290 px wide figure 2580 px, sharp in print at
/// about 8.6 inches and 300 dpi.
pub const PNG_SCALE: f32 = 2.0;

/// One figure of the report.
pub struct Figure {
    /// File stem for `--figures` (`tail-reads` → `tail-reads.svg`, `tail-reads.png`).
    pub name: &'static str,
    /// Spans the page's width (else half of it).
    pub full: bool,
    /// The SVG text, or why the figure could not be drawn.
    pub svg: Result<String, String>,
    pub caption: &'static str,
}

/// Every figure of a report on `reports`, in page order.
pub fn figure_set(reports: &[RunReport]) -> Vec<Figure> {
    let fig = |name, full, svg, caption| Figure { name, full, svg, caption };
    vec![
        fig("cdf-reads", false, svg::cdf_svg(reports, "read", "reads"), "Latency CDF of reads; further left is faster."),
        fig("cdf-writes", false, svg::cdf_svg(reports, "write", "writes"), "Latency CDF of writes."),
        fig(
            "tail-reads",
            false,
            svg::tail_svg(reports, "read", "reads"),
            "Tail of reads: the fraction of reads slower than each latency, down to 1/n. GC-induced tails \
             show as lines that stay high further to the right than nogc. In the shaded band fewer than ten \
             reads are slower (†): single observations.",
        ),
        fig("tail-writes", false, svg::tail_svg(reports, "write", "writes"), "Tail of writes, as above."),
        fig(
            "percentiles",
            true,
            svg::percentiles_svg(reports),
            "Tail percentiles divided by the reference run's (1× = as fast; the black line). \
             Bars start at the axis floor so a 1.0× bar stays visible; each bar is labelled \
             with its ratio († = fewer than ten samples) and carries its scheme's marker; schemes \
             past the tenth are hatched. Bars above 1× are slowdowns; a broken bar lies below the \
             axis floor and its label gives its value.",
        ),
        fig(
            "waits",
            true,
            svg::waits_svg(reports),
            "Each bar shows a run's wait time split by cause, as shares of that run's total \
             (every bar is 100%). Above each bar: the run's total wait in seconds (summed over \
             sub-requests), so runs that waited far longer stand out, and the share of \
             requests that waited behind a GC operation at least once.",
        ),
        fig(
            "free-blocks-min-plane",
            true,
            svg::free_blocks_svg(reports, svg::FreeSeries::MinPlane),
            "Free blocks of the emptiest plane over simulated time: GC triggers per plane, so \
             this is the series that meets the GC thresholds. The y axis is fitted to the data.",
        ),
        fig(
            "free-blocks-total",
            true,
            svg::free_blocks_svg(reports, svg::FreeSeries::Total),
            "Free blocks summed over all planes, over simulated time (y axis fitted to the data).",
        ),
    ]
}

/// What `write_figures` did.
#[derive(Debug, Default)]
pub struct FiguresWritten {
    pub files: Vec<PathBuf>,
    /// Figures that could not be drawn or rasterised: (name, why).
    pub skipped: Vec<(String, String)>,
}

/// Writes every figure of `reports` into `dir` (created if missing) as `NAME.svg` and, with
/// `png`, `NAME.png`. A figure that cannot be drawn is skipped and named in the result, as
/// in the page; only I/O fails the call.
pub fn write_figures(dir: &Path, reports: &[RunReport], png: bool) -> Result<FiguresWritten, ReportError> {
    std::fs::create_dir_all(dir).map_err(|error| ReportError::CreateDir { path: dir.to_path_buf(), error })?;
    let mut out = FiguresWritten::default();
    for f in figure_set(reports) {
        let text = match f.svg {
            Ok(t) => t,
            Err(why) => {
                out.skipped.push((f.name.to_string(), why));
                continue;
            }
        };
        let mut files = vec![(format!("{}.svg", f.name), text.clone().into_bytes())];
        if png {
            match svg_to_png(&text) {
                Ok(bytes) => files.push((format!("{}.png", f.name), bytes)),
                Err(why) => out.skipped.push((format!("{}.png", f.name), why)),
            }
        }
        for (name, bytes) in files {
            let path = dir.join(name);
            std::fs::write(&path, bytes).map_err(|error| ReportError::Write { path: path.clone(), error })?;
            out.files.push(path);
        }
    }
    Ok(out)
}

/// The machine's fonts, loaded once per process.
fn fonts() -> std::sync::Arc<resvg::usvg::fontdb::Database> {
    static DB: OnceLock<std::sync::Arc<resvg::usvg::fontdb::Database>> = OnceLock::new();
    DB.get_or_init(|| {
        let mut db = resvg::usvg::fontdb::Database::new();
        db.load_system_fonts();
        let has = |family: &str| db.faces().any(|f| f.families.iter().any(|(n, _)| n == family));
        if !has("Arial") {
            let sans = ["DejaVu Sans", "Liberation Sans", "Noto Sans", "FreeSans"].into_iter().find(|f| has(f));
            if let Some(f) = sans {
                db.set_sans_serif_family(f);
            }
        }
        std::sync::Arc::new(db)
    })
    .clone()
}

/// Rasterises SVG `text` to PNG bytes at [`PNG_SCALE`]×.
pub fn svg_to_png(text: &str) -> Result<Vec<u8>, String> {
    use resvg::{tiny_skia, usvg};
    let opt = usvg::Options { fontdb: fonts(), ..Default::default() };
    let tree = usvg::Tree::from_str(text, &opt).map_err(|e| format!("SVG not readable: {e}"))?;
    let size = tree.size().to_int_size().scale_by(PNG_SCALE).ok_or("figure too large to rasterise")?;
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height()).ok_or("figure has no area")?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(&tree, tiny_skia::Transform::from_scale(PNG_SCALE, PNG_SCALE), &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| format!("PNG encoding failed: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_has_the_svg_size_times_the_scale() {
        let svg = r#"<svg xmlns="http://www.w3.org/2000/svg" width="30" height="20"><rect width="30" height="20" fill="red"/></svg>"#;
        let png = svg_to_png(svg).expect("png");
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        // IHDR: width and height, big-endian, right after the 8-byte signature and 8-byte chunk head.
        let w = u32::from_be_bytes(png[16..20].try_into().unwrap());
        let h = u32::from_be_bytes(png[20..24].try_into().unwrap());
        assert_eq!((w, h), (60, 40));
        assert!(svg_to_png("not svg").is_err());
    }
}
