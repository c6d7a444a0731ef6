//! `reproduce splitgc`: Nie et al., *Exploiting Data Duplication to Reduce Data Migration in
//! Garbage Collection Inside SSD*, Electronics 2025 (seed 003; spec 04-splitgc.md), with
//! Baseline (greedy), DAGC and CAGC on equal terms.
//!
//! - Device: the paper's 4 channels × 2 chips × 2 dies × 2 planes, 512 pages of 4 KiB per
//!   block, read 90 µs / program 900 µs / erase 3.5 ms (`splitgc` preset), with 128 instead
//!   of 1024 blocks per plane: a scrub pass reads a tenth of the valid pages, and this keeps
//!   a run at seconds. The GC thresholds are shares of a plane, so they scale with it.
//! - Starting state: 90 % of the logical space filled (the paper's preconditioning), set
//!   here (`Precondition::Steady`, fill 0.9). Every content-aware scheme starts from the same
//!   fill: the workload's own duplication rate (`fill_dups`) and **fingerprinted** (SplitGC's
//!   scrub table and CAGC's index both hold the fill's contents: `fill_scrubbed`; DAGC keeps
//!   checksums of invalidated pages only, and the fill has none). The full run adds the
//!   unfingerprinted fill for SplitGC and CAGC, and the schemes' earlier behaviours
//!   (`dagc:move_kept=true`, `splitgc:secondary=until_erase`), beside the main table.
//! - Schemes as the paper describes them: DAGC migrates valid pages only and forgets its
//!   kept pages at the erase (`move_kept=false`); SplitGC and CAGC drop an overwritten copy
//!   from the secondary table (`secondary=paper`); scrub every 5 minutes (the paper gives no
//!   period); CAGC places the pages its GC writes by reference count, shared pages in a cold
//!   region apart from unshared ones (`cold_refs=2`, its default).
//! - Workloads: Table 1's six FIU rows as generated stand-ins (`splitgc-*` presets: write
//!   ratio, duplication rate and request size from that table), or the user's FIU traces by
//!   name.
//! - Metrics: p99.99 and p99 of all I/O (Figs. 8-14), mean read latency (Fig. 6), pages
//!   migrated by GC (Fig. 15) against each comparator, fingerprinting's share of scrub
//!   time and the Bloom filter's screened look-ups (§4).

use super::claim::{mean, Claim, Expect};
use super::runs::{find_trace, ratio, run_cell, Cell, Workload};
use super::{verdict_summary, Options, Outcome, Paper, ReproError};
use crate::config::{presets, DeviceConfig, Precondition};
use crate::stats::RunReport;
use crate::workload::presets::SPLITGC_TABLE1;

pub const PAPER: Paper = Paper {
    name: "splitgc",
    title: "SplitGC (Nie et al., Electronics 2025): tail latency and GC migration of SplitGC vs Baseline, DAGC and CAGC from the same 90 % fill",
    full_time: "2.5 min of CPU (48 runs of 100k requests); 15 min wall measured on a 2-core VM shared with other jobs",
    quick_time: "6 s of CPU (8 runs of 50k requests); 20 s wall measured on the shared 2-core VM",
    run,
};

/// Blocks per plane (the paper: 1024; module doc).
pub const BLOCKS_PER_PLANE: u32 = 128;

const QUICK_WORKLOADS: [&str; 2] = ["home1", "webmail"];
const COMPARATORS: [&str; 3] = ["base", "dagc", "cagc"];

/// The paper's device (shrunk plane) filled to 90 %, set explicitly.
pub fn device() -> Result<DeviceConfig, ReproError> {
    let mut d = presets::load("splitgc").map_err(ReproError::Config)?;
    d.geometry.blocks_per_plane = BLOCKS_PER_PLANE;
    d.precondition = Precondition::Steady { fill: 0.9, free_blocks_margin: 1 };
    Ok(d)
}

/// The schemes of a cell, by role, for a fill with duplicate share `dups`.
fn schemes(dups: f64, fingerprinted: bool) -> [(String, String); 4] {
    let fill = format!("fill_dups={dups},fill_scrubbed={fingerprinted}");
    [
        ("base".into(), "base".into()),
        ("dagc".into(), format!("dagc:fill_dups={dups}")),
        ("cagc".into(), format!("cagc:{fill}")),
        ("splitgc".into(), format!("splitgc:period_ms=300000,{fill}")),
    ]
}

struct CellResult {
    workload: String,
    /// (role, report) of the main cell; the extras by their scheme names.
    main: Vec<(String, RunReport)>,
    extra: Vec<(String, RunReport)>,
}

impl CellResult {
    fn role(&self, role: &str) -> Option<&RunReport> {
        self.main.iter().find(|(r, _)| r == role).map(|(_, r)| r)
    }

    /// SplitGC's metric over a comparator's.
    fn vs(&self, other: &str, f: fn(&RunReport) -> f64) -> f64 {
        match (self.role("splitgc"), self.role(other)) {
            (Some(s), Some(o)) => ratio(f(s), f(o)),
            _ => f64::NAN,
        }
    }
}

fn run(opts: &Options, log: &mut dyn FnMut(&str)) -> Result<Outcome, ReproError> {
    let dev = device()?;
    let count = if opts.quick { 50_000 } else { 100_000 };
    let mut cells = Vec::new();
    let mut sources = Vec::new();
    for &(w, _, dups, _) in SPLITGC_TABLE1.iter().filter(|r| !opts.quick || QUICK_WORKLOADS.contains(&r.0)) {
        let workload = match find_trace(opts.trace_dir.as_deref(), &[w])? {
            Some(p) => {
                sources.push(format!("{w}: {} (real trace)", p.display()));
                Workload::Trace(p)
            }
            None => {
                sources.push(format!("{w}: generated stand-in splitgc-{w} (SplitGC Table 1 statistics), {count} requests"));
                let cfg = crate::workload::preset(&format!("splitgc-{w}")).ok_or_else(|| ReproError::Config(format!("no workload preset splitgc-{w}")))?;
                Workload::Gen(cfg.with_span_within(dev.host_bytes()).with_count(count))
            }
        };
        let roles = schemes(dups, true);
        let names: Vec<String> = roles.iter().map(|(_, n)| n.clone()).collect();
        let title = format!("SplitGC reproduction: {w}, fingerprinted fill with {:.1} % duplicates", dups * 100.0);
        log(&format!("{title}: {} ({} schemes)", workload.describe(), names.len()));
        let notes = vec![("fill".into(), format!("90 %, {:.1} % duplicates, fingerprinted", dups * 100.0)), ("paper".into(), "Nie et al., Electronics 2025".into())];
        let reports = run_cell(&Cell { title, device: &dev, workload: &workload, schemes: &names, seed: opts.seed, oracle: true, dir: opts.out.join(w), notes: notes.clone() })?;
        let main = roles.iter().map(|(r, _)| r.clone()).zip(reports).collect();
        let mut extra = Vec::new();
        if !opts.quick {
            let unfp = schemes(dups, false);
            let names = vec![unfp[2].1.clone(), unfp[3].1.clone(), format!("dagc:fill_dups={dups},move_kept=true"), format!("splitgc:period_ms=300000,fill_dups={dups},secondary=until_erase")];
            let title = format!("SplitGC reproduction: {w}, unfingerprinted fill and earlier behaviours");
            log(&format!("{title} ({} schemes)", names.len()));
            let reports = run_cell(&Cell { title, device: &dev, workload: &workload, schemes: &names, seed: opts.seed, oracle: true, dir: opts.out.join(format!("{w}-variants")), notes })?;
            extra = names.into_iter().zip(reports).collect();
        }
        cells.push(CellResult { workload: w.to_string(), main, extra });
    }
    let mut text = format!("{}\n", PAPER.title);
    text.push_str(&format!(
        "Setup: the paper's 4x2x2x2 device with {BLOCKS_PER_PLANE} (paper: 1024) blocks per plane, filled to 90 % with the workload's duplicate rate, fingerprinted for SplitGC and CAGC alike; DAGC migrates valid pages only; scrub every 5 min. Seed {}; integrity oracle on.\nWorkloads:\n",
        opts.seed
    ));
    for s in &sources {
        text.push_str(&format!("  {s}\n"));
    }
    text.push_str("\n== Per workload (all I/O unless marked; ms) ==\n");
    text.push_str(&cell_table(&cells));
    if cells.iter().any(|c| !c.extra.is_empty()) {
        text.push_str("\n== Variants (same workloads): unfingerprinted fill, and the schemes' earlier behaviours ==\n");
        text.push_str(&variant_table(&cells));
    }
    let claims = claims(&cells, opts.quick, dev.timing.read(0).0 as f64);
    text.push_str("\n== Paper vs flashtail (SplitGC over each comparator; flashtail = mean over the workloads run) ==\n");
    text.push_str(&super::claim::claims_table(&claims));
    text.push('\n');
    text.push_str(&verdict_summary(&claims));
    Ok(Outcome { text, claims, files: Vec::new() })
}

fn ms(ns: f64) -> String {
    format!("{:.2}", ns / 1e6)
}

fn row(w: &str, name: &str, r: &RunReport) -> Vec<String> {
    let e = |k: &str| r.flash.extra.get(k).copied().unwrap_or(0);
    let name = if r.no_gc_in_window { format!("{name} {}", crate::report::NO_GC_MARK) } else { name.to_string() };
    vec![
        w.to_string(),
        name,
        ms(r.all.p99_ns as f64),
        ms(r.all.p99_99_ns as f64),
        ms(r.reads.mean_ns),
        ms(r.reads.p99_99_ns as f64),
        ms(r.writes.p99_99_ns as f64),
        r.flash.gc_pages_migrated.to_string(),
        (e("deferred_pages_written") + e("rescue_pages_written")).to_string(),
        r.flash.erases.to_string(),
        r.integrity.violations.to_string(),
    ]
}

const HEADERS: [&str; 11] = ["workload", "scheme", "p99", "p99.99", "read mean", "read p99.99", "write p99.99", "migrated", "+ deferred/rescued", "erases", "violations"];

fn cell_table(cells: &[CellResult]) -> String {
    let rows = cells.iter().flat_map(|c| c.main.iter().map(move |(role, r)| row(&c.workload, role, r))).collect();
    crate::report::render_rows(&HEADERS, rows)
}

fn variant_table(cells: &[CellResult]) -> String {
    let rows = cells.iter().flat_map(|c| c.extra.iter().map(move |(n, r)| row(&c.workload, n, r))).collect();
    crate::report::render_rows(&HEADERS, rows)
}

fn claims(cells: &[CellResult], quick: bool, read_ns: f64) -> Vec<Claim> {
    let p9999 = |r: &RunReport| r.all.p99_99_ns as f64;
    let p99 = |r: &RunReport| r.all.p99_ns as f64;
    let read_mean = |r: &RunReport| r.reads.mean_ns;
    let migrated = |r: &RunReport| r.flash.gc_pages_migrated as f64;
    let over = format!("mean over {}", cells.iter().map(|c| c.workload.as_str()).collect::<Vec<_>>().join(", "));
    let avg = |other: &str, f: fn(&RunReport) -> f64| mean(cells.iter().map(|c| c.vs(other, f)));
    let one = |w: &str, other: &str, f: fn(&RunReport) -> f64| cells.iter().find(|c| c.workload == w).map(|c| c.vs(other, f)).filter(|v| v.is_finite());
    let range = Expect::Ratio { lo: 0.17, hi: 0.92 };
    let moved = Expect::Ratio { lo: 0.33, hi: 0.62 };
    let mut out = Vec::new();
    for (k, o) in COMPARATORS.iter().enumerate() {
        out.push(Claim::new(&format!("S{}", 1 + k), &format!("p99.99 vs {o}: -8 % to -83 %"), "abstract, Figs. 8-13", range.clone(), avg(o, p9999), over.clone()));
    }
    for (k, (o, v)) in COMPARATORS.iter().zip([0.50, 0.52, 0.54]).enumerate() {
        let note = if quick || cells.iter().any(|c| c.workload == "webmail") { "" } else { "webmail not run" };
        out.push(Claim::new(&format!("S{}", 4 + k), &format!("webmail p99.99 vs {o}"), "§4, Fig. 11", Expect::Ratio { lo: v, hi: v }, one("webmail", o, p9999), note));
    }
    for (k, (o, v)) in COMPARATORS.iter().zip([0.78, 0.73, 0.85]).enumerate() {
        out.push(Claim::new(&format!("S{}", 7 + k), &format!("mean p99 vs {o}"), "Fig. 14", Expect::Ratio { lo: v, hi: v }, avg(o, p99), ""));
    }
    out.push(Claim::new("S10", "mean read latency vs base", "Fig. 6", Expect::Ratio { lo: 0.52, hi: 0.52 }, avg("base", read_mean), ""));
    for (k, o) in COMPARATORS.iter().enumerate() {
        out.push(Claim::new(
            &format!("S{}", 11 + k),
            &format!("pages migrated by GC vs {o}: -38 % to -67 %"),
            "Fig. 15",
            moved.clone(),
            avg(o, migrated),
            if k == 0 { "GC's own copies; SplitGC's deferred pages are rewritten later, in idle time, and are counted apart (table)" } else { "" },
        ));
    }
    out.push(Claim::new("S14", "home2 pages migrated vs base", "§4", Expect::Ratio { lo: 0.33, hi: 0.33 }, one("home2", "base", migrated), if quick { "home2 is run only by the full reproduction" } else { "" }));
    let split = || cells.iter().filter_map(|c| c.role("splitgc"));
    let e = |r: &RunReport, k: &str| r.flash.extra.get(k).copied().unwrap_or(0) as f64;
    let fp = mean(split().map(|r| ratio(e(r, "scrub_fingerprint_ns"), e(r, "scrub_controller_ns") + read_ns * e(r, "scrub_pages_read"))));
    out.push(Claim::new("S15", "fingerprinting's share of scrub time", "§3.2", Expect::Near { value: 0.075, tol: 0.5 }, fp, "the paper's 7.5 % counts every page's check (α = 0.1 of them fingerprinted); flashtail's default scrub reads only the group it fingerprints (check_all=false)"));
    let bloom = mean(split().map(|r| ratio(e(r, "bloom_queries") - e(r, "bloom_positives"), e(r, "bloom_queries"))));
    out.push(Claim::new("S16", "Bloom filter screens table look-ups", "§4", Expect::Near { value: 0.9, tol: 0.1 }, bloom, "pages re-scrubbed in later passes are in the table, so their look-ups are true hits"));
    out
}
