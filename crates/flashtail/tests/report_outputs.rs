//! Behaviour of the comparison report (`flashtail::report`) on synthetic run reports:
//! exact table cells and ratios, CSV shapes and numbers, HTML self-containment and
//! escaping, edge cases that must not panic, and byte-for-byte determinism.
//! `demo_report_to_tmp` (ignored) writes a realistic page to /tmp for visual checks.

use flashtail::report::{format_table, write_outputs, CompareMeta};
use flashtail::stats::{
    Cdf, FlashCounts, FreeBlocksSample, LatencySummary, RunCost, RunReport, WaitBreakdown,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::PathBuf;

/// Latency statistics whose every value is a fixed base times `scale`, so ratios between
/// two fakes are exactly the ratio of their scales.
fn summary(count: u64, base_ns: u64, scale: f64) -> LatencySummary {
    let s = |k: u64| (base_ns as f64 * k as f64 * scale) as u64;
    LatencySummary {
        count,
        mean_ns: base_ns as f64 * 1.5 * scale,
        min_ns: s(1) / 2,
        p50_ns: s(1),
        p90_ns: s(2),
        p99_ns: s(5),
        p99_9_ns: s(10),
        p99_99_ns: s(20),
        p99_999_ns: s(30),
        max_ns: s(40),
        samples_at_or_above: [("p99".to_string(), count / 100), ("p99_99".into(), 10)].into(),
        exact: true,
        relative_error: 0.0,
        exact_from_quantile: None,
    }
}

fn cdf(n: usize, base_ns: u64, scale: f64) -> Cdf {
    Cdf {
        points: (1..=n)
            .map(|i| {
                (
                    (base_ns as f64 * i as f64 * scale) as u64,
                    i as f64 / n as f64,
                )
            })
            .collect(),
    }
}

/// A synthetic run of scheme `name` whose latencies are all `scale` × those of scale 1.
fn fake_report(name: &str, scale: f64) -> RunReport {
    RunReport {
        flashtail_version: "0.1.0".into(),
        scheme: name.into(),
        device: "test device".into(),
        workload: "synthetic".into(),
        seed: 7,
        sim_time_ns: 2_000_000_000,
        reads: summary(1000, 100_000, scale),
        writes: summary(500, 200_000, scale),
        all: summary(1500, 150_000, scale),
        cdf_reads: cdf(10, 100_000, scale),
        cdf_writes: cdf(8, 200_000, scale),
        cdf_all: cdf(12, 150_000, scale),
        flash: FlashCounts {
            host_pages_programmed: 1000,
            gc_pages_programmed: (500.0 * (scale - 1.0)) as u64,
            gc_pages_migrated: (500.0 * (scale - 1.0)) as u64,
            erases: (10.0 * scale) as u64,
            gc_runs: (10.0 * scale) as u64,
            waf: 1.0 + 0.5 * (scale - 1.0),
            ..Default::default()
        },
        waits: WaitBreakdown {
            requests_waited_on_gc: 300,
            share_waited_on_gc: 0.2,
            reads_waited_on_gc: 100,
            share_reads_waited_on_gc: 0.1,
            wait_ns_by_cause: [("user_op", 600u64), ("gc_copy", 300), ("channel", 100)]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        },
        free_blocks: (0..50)
            .map(|i| FreeBlocksSample {
                time_ns: i * 40_000_000,
                total_free_blocks: 1000 - i * 10,
                min_plane_free_blocks: 10,
            })
            .collect(),
        config: serde_json::json!({ "scheme": name, "scale": scale }),
        ..Default::default()
    }
}

fn meta() -> CompareMeta {
    CompareMeta {
        title: "Test <comparison> & more".into(),
        workload: "synthetic".into(),
        device: "tiny".into(),
        notes: vec![("trace".into(), "none \"really\"".into())],
        config: serde_json::json!({ "evil": "</pre><script>alert(1)</script>", "n": 3 }),
    }
}

/// A fresh output directory under the system temp dir, unique per test.
fn out_dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("flashtail-report-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn read(p: &std::path::Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

#[test]
fn table_shows_schemes_and_ratios_to_nogc() {
    let t = format_table(&[fake_report("nogc", 1.0), fake_report("base", 10.0)]);
    assert!(t.contains("nogc") && t.contains("base"));
    // nogc reads p99.99 = 2.00 ms; base is 10× that.
    assert!(t.contains("2.00 (1.0×)"), "{t}");
    assert!(t.contains("20.0 (10.0×)"), "{t}");
    // Writes: p99.99 = 4 ms and 40 ms; mean 0.3 and 3 ms.
    assert!(t.contains("40.0 (10.0×)"), "{t}");
    assert!(t.contains("3.00 (10.0×)"), "{t}");
    // Flash table: WAF 5.5, share waited 20.0%, reads 10.0%.
    assert!(
        t.contains("5.500") && t.contains("20.0%") && t.contains("10.0%"),
        "{t}"
    );
    for line in t.lines() {
        assert!(line.chars().count() <= 120, "line too wide: {line}");
    }
    // Columns aligned: every row of a table has the same width as its header line.
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines[1].chars().count(), lines[2].chars().count());
}

#[test]
fn table_without_nogc_has_no_ratios() {
    let t = format_table(&[fake_report("base", 2.0), fake_report("ttflash", 1.0)]);
    assert!(!t.contains('×'), "{t}");
    assert!(t.contains("no nogc run"), "{t}");
    assert!(t.contains("4.00"), "{t}"); // base reads p99.99 = 2 ms × 2
}

/// WAF without host pages is `n/a`, not `0.000`; a wait share that rounds to 0.0 % but is
/// not 0 shows its count; the GC-victim column is "victims selected".
#[test]
fn table_flash_row_without_host_pages_and_with_rare_waits() {
    let mut r = fake_report("ttflash", 2.0);
    r.flash.host_pages_programmed = 0;
    r.flash.waf = 0.0;
    r.flash.gc_runs = 21;
    r.waits.requests_waited_on_gc = 1;
    r.waits.share_waited_on_gc = 1.0 / 1500.0 * 0.5;
    r.waits.reads_waited_on_gc = 0;
    r.waits.share_reads_waited_on_gc = 0.0;
    let t = format_table(&[r]);
    let flash = t.split("Flash and GC\n").nth(1).unwrap_or_default();
    let lines: Vec<&str> = flash.lines().collect();
    assert_eq!(lines[0], "scheme   WAF  erases  victims selected  pages migrated  copybacks  waited on GC  reads waited on GC", "{t}");
    assert_eq!(lines[1], "ttflash  n/a      20                21             500          0     <0.1% (1)                0.0%", "{t}");
}

#[test]
fn summary_csv_has_one_row_per_scheme_and_op_with_exact_numbers() {
    let dir = out_dir("csv");
    let reports = [
        fake_report("nogc", 1.0),
        fake_report("base", 10.0),
        fake_report("ttflash", 2.0),
    ];
    let files = write_outputs(&dir, &meta(), &reports).expect("write outputs");
    let names: Vec<String> = files
        .iter()
        .map(|p| p.file_name().unwrap_or_default().to_string_lossy().into())
        .collect();
    assert_eq!(
        names,
        ["summary.json", "summary.csv", "cdf.csv", "report.html"]
    );

    let mut rdr = csv::Reader::from_path(dir.join("summary.csv")).expect("open csv");
    let header = rdr.headers().expect("header").clone();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    };
    let rows: Vec<csv::StringRecord> = rdr.records().map(|r| r.expect("row")).collect();
    assert_eq!(rows.len(), 3 * 3);
    let ops: Vec<&str> = rows.iter().map(|r| &r[col("op")]).collect();
    assert_eq!(ops, ["read", "write", "all"].repeat(3));

    let base_read = &rows[3];
    assert_eq!(&base_read[col("scheme")], "base");
    assert_eq!(&base_read[col("count")], "1000");
    assert_eq!(&base_read[col("mean_ns")], "1500000");
    assert_eq!(&base_read[col("p50_ns")], "1000000");
    assert_eq!(&base_read[col("p99_99_ns")], "20000000");
    assert_eq!(&base_read[col("p99_999_ns")], "30000000");
    assert_eq!(&base_read[col("max_ns")], "40000000");
    assert_eq!(&base_read[col("p99_99_ratio")], "10");
    assert_eq!(&base_read[col("mean_ratio")], "10");
    assert_eq!(&base_read[col("waf")], "5.5");
    assert_eq!(&base_read[col("erases")], "100");
    assert_eq!(&base_read[col("gc_pages_migrated")], "4500");
    assert_eq!(&base_read[col("share_waited_on_gc")], "0.1");
    // Writes: (300 waited − 100 reads) / 500 writes.
    assert_eq!(&rows[4][col("share_waited_on_gc")], "0.4");
    assert_eq!(&rows[5][col("share_waited_on_gc")], "0.2");
    assert_eq!(&rows[0][col("max_ratio")], "1");
    assert_eq!(&rows[8][col("p99_ratio")], "2");

    let cdf_rows = csv::Reader::from_path(dir.join("cdf.csv"))
        .expect("open cdf")
        .records()
        .count();
    assert_eq!(cdf_rows, 3 * (10 + 8 + 12));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn summary_csv_ratios_are_blank_without_nogc() {
    let s = flashtail::report::summary_csv(&[fake_report("base", 1.0)]).expect("csv");
    let row = s.lines().nth(1).unwrap_or_default();
    assert!(row.contains(",,,,,,,,"), "{row}");
}

#[test]
fn html_is_self_contained_escaped_and_has_all_figures() {
    let dir = out_dir("html");
    let reports = [fake_report("nogc", 1.0), fake_report("base<b>", 10.0)];
    write_outputs(&dir, &meta(), &reports).expect("write outputs");
    let html = read(&dir.join("report.html"));
    let opens = html.matches("<svg").count();
    assert!(opens >= 5, "only {opens} figures");
    assert_eq!(opens, html.matches("</svg>").count());
    assert!(
        !html.contains("class=\"fig-error\""),
        "a figure failed to draw"
    );
    // The only URLs allowed are SVG namespace names, which load nothing.
    let without_ns = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    assert!(!without_ns.contains("http://") && !without_ns.contains("https://"));
    // One inline script (column sorting), nothing loaded from anywhere.
    assert_eq!(html.matches("<script").count(), 1, "only the sorter");
    assert!(!html.contains("<script src") && !html.contains("<link"));
    assert!(html.contains("&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(html.contains("Test &lt;comparison&gt; &amp; more"));
    assert!(html.contains("none &quot;really&quot;"));
    assert!(html.contains("base&lt;b&gt;") && !html.contains("base<b>"));
    assert!(html.contains("<details>"));
    assert!(
        html.contains("p99_99: 10"),
        "samples behind percentiles missing"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn html_without_nogc_says_what_it_normalises_to() {
    let dir = out_dir("nonogc");
    write_outputs(
        &dir,
        &meta(),
        &[fake_report("base", 3.0), fake_report("ttflash", 1.0)],
    )
    .expect("write");
    let html = read(&dir.join("report.html"));
    assert!(html.contains("relative to base (no nogc run)"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn outputs_are_deterministic() {
    let reports = [fake_report("nogc", 1.0), fake_report("base", 10.0)];
    let (a, b) = (out_dir("det-a"), out_dir("det-b"));
    let fa = write_outputs(&a, &meta(), &reports).expect("write a");
    let fb = write_outputs(&b, &meta(), &reports).expect("write b");
    for (x, y) in fa.iter().zip(&fb) {
        assert_eq!(
            std::fs::read(x).ok(),
            std::fs::read(y).ok(),
            "{} differs",
            x.display()
        );
    }
    let _ = std::fs::remove_dir_all(&a);
    let _ = std::fs::remove_dir_all(&b);
}

#[test]
fn summary_json_round_trips_the_reports() {
    let reports = [fake_report("nogc", 1.0)];
    let s = flashtail::report::summary_json(&meta(), &reports).expect("json");
    let v: serde_json::Value = serde_json::from_str(&s).expect("valid json");
    let back: RunReport = serde_json::from_value(v["reports"][0].clone()).expect("report");
    assert_eq!(back, reports[0]);
    assert_eq!(v["meta"]["title"], "Test <comparison> & more");
}

/// Edge cases: each set must produce all files and every figure, without panicking.
#[test]
fn edge_cases_render_without_panicking() {
    let mut no_writes = fake_report("readonly", 2.0);
    no_writes.writes = LatencySummary::default();
    no_writes.cdf_writes = Cdf::default();
    no_writes.waits = WaitBreakdown::default();
    no_writes.free_blocks.clear();

    let mut zeros = fake_report("zeros", 0.0);
    zeros.reads.mean_ns = f64::NAN;
    zeros.cdf_reads.points = vec![(0, 0.5), (0, 1.0)];

    let mut one = fake_report("one", 1.0);
    one.cdf_reads.points = vec![(123_456, 1.0)];
    one.cdf_writes.points = vec![(7, 1.0)];
    one.free_blocks.truncate(1);

    let mut zero_nogc = fake_report("nogc", 0.0);
    zero_nogc.waits.wait_ns_by_cause.insert("mystery".into(), 5);

    let many: Vec<RunReport> = (0..12)
        .map(|i| fake_report(&format!("s{i}"), 1.0 + i as f64))
        .collect();

    let sets: Vec<(&str, Vec<RunReport>)> = vec![
        ("empty", vec![]),
        ("nowrites", vec![fake_report("nogc", 1.0), no_writes]),
        ("zeros", vec![zeros]),
        ("one", vec![one]),
        ("zeronogc", vec![zero_nogc, fake_report("base", 2.0)]),
        ("defaults", vec![RunReport::default()]),
        ("many", many),
    ];
    for (name, reports) in sets {
        let dir = out_dir(&format!("edge-{name}"));
        let files = write_outputs(&dir, &CompareMeta::default(), &reports)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(files.len(), 4, "{name}");
        let html = read(&dir.join("report.html"));
        assert!(
            !html.contains("class=\"fig-error\""),
            "{name}: a figure failed to draw"
        );
        assert!(html.matches("<svg").count() >= 5, "{name}");
        assert!(!format_table(&reports).is_empty(), "{name}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn huge_cdfs_and_timelines_stay_small_in_html() {
    let mut r = fake_report("base", 1.0);
    let n = 200_000u64;
    r.cdf_reads.points = (1..=n)
        .map(|i| (50_000 + i * 37, i as f64 / n as f64))
        .collect();
    r.free_blocks = (0..n)
        .map(|i| FreeBlocksSample {
            time_ns: i * 1000,
            total_free_blocks: 500 + i % 3,
            min_plane_free_blocks: 1,
        })
        .collect();
    let html = flashtail::report::render_html(&meta(), &[r]);
    // Unthinned, the read CDF alone would be several MB of SVG path data.
    assert!(html.len() < 700_000, "html is {} bytes", html.len());
}

#[test]
fn unwritable_directory_is_an_error_naming_the_path() {
    let file = out_dir("notadir");
    std::fs::write(&file, b"x").expect("make file");
    let err = write_outputs(&file.join("sub"), &meta(), &[]).expect_err("must fail");
    assert!(err.to_string().contains("notadir"), "{err}");
    let _ = std::fs::remove_file(&file);
}

/// The inline SVG figure whose title starts with `title` (panics when absent: a missing figure is
/// a test failure).
fn figure<'a>(html: &'a str, title: &str) -> &'a str {
    let at = html
        .find(&format!("\n{title}"))
        .unwrap_or_else(|| panic!("no figure titled {title}"));
    let start = html[..at].rfind("<svg").unwrap_or(0);
    let end = at + html[at..].find("</svg>").unwrap_or(0);
    &html[start..end]
}

/// The text of every `<text>` element of an SVG fragment, trimmed.
fn svg_texts(svg: &str) -> Vec<&str> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| Some(t.split_once('>')?.1.split_once("</text>")?.0.trim()))
        .collect()
}

/// `(fill, height)` of every `<rect>` of an SVG fragment.
fn svg_rects(svg: &str) -> Vec<(String, f64)> {
    let attr = |tag: &str, name: &str| -> Option<String> {
        let v = tag.split(&format!(" {name}=\"")).nth(1)?;
        Some(v.split('"').next()?.to_string())
    };
    svg.split("<rect")
        .skip(1)
        .filter_map(|t| {
            let tag = t.split("/>").next()?;
            Some((attr(tag, "fill")?, attr(tag, "height")?.parse().ok()?))
        })
        .collect()
}

/// Two runs whose notes differ in one key, with the notes of the first copied into the
/// meta (as `flashtail compare` does).
fn runs_with_notes() -> (CompareMeta, Vec<RunReport>) {
    let mut a = fake_report("nogc", 1.0);
    let mut b = fake_report("base", 10.0);
    for (r, wrapped) in [(&mut a, "0"), (&mut b, "36316")] {
        r.workload_notes = [
            ("format", "msr"),
            ("requests_wrapped_into_capacity", wrapped),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    }
    let mut m = meta();
    m.notes = vec![
        ("requests_wrapped_into_capacity".into(), "0".into()),
        ("seed".into(), "7".into()),
    ];
    (m, vec![a, b])
}

#[test]
fn html_shows_results_first_and_notes_collapsed_with_per_run_values() {
    let (m, reports) = runs_with_notes();
    let html = flashtail::report::render_html(&m, &reports);
    let pos = |needle: &str| {
        html.find(needle)
            .unwrap_or_else(|| panic!("{needle} missing"))
    };
    let notes = pos("<details class=\"notes\">");
    // Above the collapsed notes: title, workload, device and the headline only.
    assert!(pos("<p class=\"headline\">") < notes);
    assert!(html.contains(
        "<p class=\"headline\">2 runs. Read p99.99 from 2.00 ms (nogc) to 20.0 ms (base), \
         worst = 10.0× nogc. Write p99.99 from 4.00 ms (nogc) to 40.0 ms (base), \
         worst = 10.0× nogc.</p>"
    ));
    assert!(!html[..notes].contains("format") && !html[..notes].contains("seed"));
    // Results before provenance: table, then figures, then the runs table.
    assert!(notes < pos("Latency and GC summary"));
    assert!(pos("Latency and GC summary") < pos("<figure"));
    assert!(pos("<figure") < pos("<h2>Runs</h2>"));
    // Shared facts once; the differing fact per run, from each report, never as common.
    assert!(html.contains("<dt>format</dt><dd>msr</dd>"));
    assert!(html.contains("<dt>seed</dt><dd>7</dd>"));
    assert!(!html.contains("<dt>requests_wrapped_into_capacity</dt>"));
    assert!(html.contains(
        "<tr><td>requests_wrapped_into_capacity</td><td class=\"n\">0</td>\
         <td class=\"n\">36316</td></tr>"
    ));
    assert!(
        html.contains("2 shared by every run; differ between runs: requests_wrapped_into_capacity")
    );
}

#[test]
fn percentile_bars_at_one_have_height_and_every_bar_a_label() {
    let reports = [
        fake_report("nogc", 1.0),
        fake_report("same", 1.0),
        fake_report("base", 10.0),
    ];
    let html = flashtail::report::render_html(&meta(), &reports);
    let svg = figure(&html, "Tail percentiles relative to nogc");
    // nogc is black: 6 bars (one per group) plus its legend swatch, all with height.
    let black: Vec<f64> = svg_rects(svg)
        .into_iter()
        .filter(|(fill, _)| fill == "#000000")
        .map(|(_, h)| h)
        .collect();
    assert_eq!(black.len(), 7, "{black:?}");
    assert!(black.iter().all(|h| *h >= 14.0), "{black:?}");
    // The axis floor is below 1×, and every bar carries its ratio.
    let texts = svg_texts(svg);
    assert!(texts.contains(&"0.5×"), "{texts:?}");
    // Writes' p99 rests on 5 samples (500 writes): those labels carry the thin mark.
    assert_eq!(texts.iter().filter(|t| **t == "1.0×").count(), 10);
    assert_eq!(texts.iter().filter(|t| **t == "1.0×†").count(), 2);
    assert_eq!(texts.iter().filter(|t| **t == "10.0×").count(), 5);
    assert_eq!(texts.iter().filter(|t| **t == "10.0×†").count(), 1);
}

#[test]
fn wait_figure_prints_each_runs_total_and_says_bars_are_shares() {
    let mut reports = vec![fake_report("nogc", 1.0), fake_report("base", 10.0)];
    reports[0].waits.wait_ns_by_cause = [("user_op".to_string(), 121_524_160_775u64)].into();
    reports[1].waits.wait_ns_by_cause = [
        ("user_op".to_string(), 63_845_816_075u64),
        ("gc_copy".to_string(), 1_900_000_000_000),
    ]
    .into();
    let html = flashtail::report::render_html(&meta(), &reports);
    let svg = figure(&html, "Wait time by cause: bars are shares of each run");
    let texts = svg_texts(svg);
    assert!(texts.contains(&"total wait 122 s"), "{texts:?}");
    assert!(texts.contains(&"total wait 1,964 s"), "{texts:?}");
    assert!(html.contains("as shares of that run&#39;s total"));
}

#[test]
fn free_block_panels_plot_min_plane_and_total_on_fitted_axes() {
    let mut reports = vec![fake_report("nogc", 1.0), fake_report("base", 2.0)];
    for (k, r) in reports.iter_mut().enumerate() {
        r.free_blocks = (0..50u64)
            .map(|i| FreeBlocksSample {
                time_ns: i * 40_000_000,
                total_free_blocks: 9404 + (i * 9 + k as u64 * 3) % 453,
                min_plane_free_blocks: 145 + (i + k as u64) % 10,
            })
            .collect();
    }
    let html = flashtail::report::render_html(&meta(), &reports);
    let min_plane = svg_texts(figure(
        &html,
        "Free blocks of the emptiest plane over time (min over planes)",
    ))
    .join("|");
    // 145..154 padded by one block: ticks every 2 blocks from 144 to 154, not 0..10,000.
    assert!(
        min_plane.contains("|144|146|148|150|152|154|"),
        "{min_plane}"
    );
    let total = svg_texts(figure(
        &html,
        "Free blocks summed over all planes over time",
    ))
    .join("|");
    assert!(total.contains("|9400|9500|9600|9700|9800|"), "{total}");
    assert!(
        !total.contains("|10000|") && !total.contains("|2000|"),
        "{total}"
    );
}

#[test]
fn later_lines_are_thinner_with_markers_and_the_legend_matches() {
    let reports = [fake_report("nogc", 1.0), fake_report("twin", 1.0)];
    let html = flashtail::report::render_html(&meta(), &reports);
    let svg = figure(&html, "Latency CDF, reads");
    let lines = |colour: &str, width: u32| {
        svg.matches(&format!(
            "stroke=\"{colour}\" stroke-width=\"{width}\" points="
        ))
        .count()
    };
    // Identical curves: nogc (first, black) 5 px under twin (second, blue) 3 px; each
    // once in the legend and once in the plot.
    assert_eq!(lines("#000000", 5), 2);
    assert_eq!(lines("#0072B2", 3), 2);
    // Markers: 7 along each line plus one in each legend swatch.
    assert_eq!(
        svg.matches("<polygon opacity=\"1\" fill=\"#000000\"")
            .count(),
        8
    );
    assert_eq!(
        svg.matches("<polygon opacity=\"1\" fill=\"#0072B2\"")
            .count(),
        8
    );
}

// ---- demo set for visual checks (not run in CI) ----

/// Summary and tail-dense CDF of `samples` (sorted in place), as the simulator reports them.
fn from_samples(samples: &mut [u64]) -> (LatencySummary, Cdf) {
    samples.sort_unstable();
    let n = samples.len();
    let q = |p: f64| samples[((p * n as f64).ceil() as usize).clamp(1, n) - 1];
    let s = LatencySummary {
        count: n as u64,
        mean_ns: samples.iter().sum::<u64>() as f64 / n as f64,
        min_ns: samples[0],
        p50_ns: q(0.5),
        p90_ns: q(0.9),
        p99_ns: q(0.99),
        p99_9_ns: q(0.999),
        p99_99_ns: q(0.9999),
        p99_999_ns: q(0.99999),
        max_ns: samples[n - 1],
        exact: true,
        ..Default::default()
    };
    let mut fracs: Vec<f64> = (1..100).map(|i| i as f64 / 100.0).collect();
    for k in 2..=6 {
        for m in 1..10 {
            fracs.push(1.0 - m as f64 * 10f64.powi(-k - 1) * 10.0);
        }
    }
    fracs.push(1.0);
    fracs.sort_by(f64::total_cmp);
    fracs.dedup();
    let points = fracs
        .into_iter()
        .filter(|f| *f > 0.0)
        .map(|f| (q(f), f))
        .collect();
    (s, Cdf { points })
}

/// A plausible run: service time plus queueing, with a `gc_prob` chance of waiting
/// behind a GC operation of up to `gc_ms`.
fn demo_report(name: &str, gc_prob: f64, gc_ms: f64, seed: u64) -> RunReport {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut lat = |base_us: f64, n: usize| -> Vec<u64> {
        (0..n)
            .map(|_| {
                let queue: f64 = -(1.0 - rng.gen::<f64>()).ln() * base_us * 0.5;
                let gc = if rng.gen::<f64>() < gc_prob {
                    rng.gen::<f64>() * gc_ms * 1000.0
                } else {
                    0.0
                };
                ((base_us + queue + gc) * 1000.0) as u64
            })
            .collect()
    };
    let mut reads = lat(90.0, 60_000);
    let mut writes = lat(250.0, 40_000);
    let mut all: Vec<u64> = reads.iter().chain(&writes).copied().collect();
    let (rs, rc) = from_samples(&mut reads);
    let (ws, wc) = from_samples(&mut writes);
    let (as_, ac) = from_samples(&mut all);
    let mut r = fake_report(name, 1.0);
    r.reads = rs;
    r.writes = ws;
    r.all = as_;
    r.cdf_reads = rc;
    r.cdf_writes = wc;
    r.cdf_all = ac;
    let gc = gc_prob * 1e4;
    r.flash.waf = 1.0 + gc_prob * 60.0;
    r.flash.erases = (gc * 3.0) as u64;
    r.flash.gc_pages_migrated = (gc * 100.0) as u64;
    r.waits.share_waited_on_gc = gc_prob;
    r.waits.share_reads_waited_on_gc = gc_prob * 0.8;
    r.waits.wait_ns_by_cause = [
        ("user_op", 5_000_000u64),
        ("channel", 1_000_000),
        ("buffer", 400_000),
        ("gc_copy", (gc * 800.0) as u64),
        ("gc_erase", (gc * 300.0) as u64),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    // Free space falls to a scheme-specific steady level where GC keeps pace (nogc: flat).
    let level = 400.0
        - if gc_prob == 0.0 {
            0.0
        } else {
            200.0 + seed as f64 * 25.0
        };
    r.free_blocks = (0..200u64)
        .map(|i| FreeBlocksSample {
            time_ns: i * 50_000_000,
            total_free_blocks: (400.0 - i as f64 * 3.0).max(level + (i % 7) as f64 * 4.0) as u64,
            min_plane_free_blocks: 2,
        })
        .collect();
    r.cost = RunCost {
        wall_seconds: 3.2,
        precondition_seconds: 0.8,
        peak_rss_bytes: 300 << 20,
        events: 4_000_000,
        simulated_requests_per_second: 31_250.0,
    };
    r
}

#[test]
#[ignore = "writes a demo report to /tmp/flashtail-report-demo for visual inspection"]
fn demo_report_to_tmp() {
    let reports = vec![
        demo_report("nogc", 0.0, 0.0, 1),
        demo_report("base", 0.02, 40.0, 2),
        demo_report("ttflash", 0.001, 3.0, 3),
        demo_report("rlgc", 0.006, 15.0, 4),
        demo_report("splitgc", 0.004, 8.0, 5),
    ];
    let meta = CompareMeta {
        title: "GC tail latency: demo comparison".into(),
        workload: "synthetic 60% reads, 100k requests (demo data, not a simulation)".into(),
        device: "8 ch × 4 chips × 2 planes, 16 KiB pages, 10% OP".into(),
        notes: vec![
            ("seed".into(), "1..5".into()),
            ("precondition".into(), "fill 80%, random overwrite".into()),
        ],
        config: serde_json::json!({ "device": { "channels": 8, "chips_per_channel": 4 }, "schemes": ["nogc", "base", "ttflash", "rlgc", "splitgc"] }),
    };
    let dir = PathBuf::from("/tmp/flashtail-report-demo");
    let files = write_outputs(&dir, &meta, &reports).expect("write demo");
    print!("{}", format_table(&reports));
    for f in files {
        println!("wrote {}", f.display());
    }
}

#[test]
#[ignore = "writes an edge-case report to /tmp/flashtail-report-edge for visual inspection"]
fn edge_demo_to_tmp() {
    let mut no_writes = fake_report("readonly", 2.0);
    no_writes.writes = LatencySummary::default();
    no_writes.cdf_writes = Cdf::default();
    no_writes.waits = WaitBreakdown::default();
    let mut zeros = fake_report("zeros", 1.0);
    zeros.cdf_reads.points = vec![(0, 0.5), (0, 0.9), (300_000, 1.0)];
    let mut one = fake_report("one-sample", 1.0);
    one.cdf_reads.points = vec![(123_456, 1.0)];
    let reports = vec![no_writes, zeros, one];
    let dir = PathBuf::from("/tmp/flashtail-report-edge");
    write_outputs(&dir, &CompareMeta::default(), &reports).expect("write edge demo");
    write_outputs(&dir.join("empty"), &CompareMeta::default(), &[]).expect("write empty");
}

/// Re-renders an existing `summary.json` (path in `FLASHTAIL_SUMMARY`) into
/// `report.html` next to it with the current code, for visual checks of real runs.
#[test]
#[ignore = "re-renders $FLASHTAIL_SUMMARY for visual inspection"]
fn rerender_summary_json() {
    let Ok(path) = std::env::var("FLASHTAIL_SUMMARY") else {
        println!("FLASHTAIL_SUMMARY not set; nothing to re-render");
        return;
    };
    let v: serde_json::Value =
        serde_json::from_str(&read(std::path::Path::new(&path))).expect("json");
    let meta: CompareMeta = serde_json::from_value(v["meta"].clone()).expect("meta");
    let reports: Vec<RunReport> = serde_json::from_value(v["reports"].clone()).expect("reports");
    let html = flashtail::report::render_html(&meta, &reports);
    let out = std::path::Path::new(&path).with_file_name("report.html");
    std::fs::write(&out, html).expect("write html");
    println!("wrote {}", out.display());
}
