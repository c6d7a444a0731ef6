//! `reproduce rlgc`: Kang, Shin, Yoo, *Reinforcement learning-assisted garbage collection to
//! mitigate long-tail latency in SSD*, ACM TECS 2017 (seed 002; spec 03-rl-gc.md), in the
//! paper's setup.
//!
//! - Devices: the paper's Table 2 at full size (`rlgc-128gb`: 2 planes × 2731 blocks × 384
//!   pages of 8 KiB; `rlgc-512gb`: 2 × 2874 × 768 of 16 KiB), so Table 4's absolute
//!   thresholds mean what they meant there: T_GC = 10 free blocks, intensive GC at one free
//!   block until more than T_IGC = 3, T_AGC = 100. Host writes keep one block for GC
//!   (`gc_reserved_blocks = 1`), so "one free block left" exists.
//! - Starting state: an empty device, as the paper ran it ("We started simulations with
//!   empty contents"), set here (`Precondition::None`); every request is measured. The run
//!   writes about 1.5 times the logical capacity (1.1 with `--quick`): the paper ran whole
//!   traces, whose length it does not give. The full run adds the steady-state variant
//!   (90 % of the logical space valid, free blocks just above T_GC), labelled as such and
//!   judged separately: it is not the paper's setup.
//! - Schemes: Lazy-RTGC (the reference of every ratio), RL-GC and its aggressive variant with
//!   the paper's stochastic policy (action ∝ Q, footnote 2: what the paper ran) and, beside
//!   them, ε-greedy (the spec's reading), all with Table 3's legible interval edges
//!   (`bins=legible`); the idle predictors of Tables 11-12.
//! - Workloads: Table 1's nine rows as generated stand-ins (`rlgc-*` presets: write ratio,
//!   mean interval and size as in the table, bursty arrivals), or the user's traces by name.
//! - Metrics: write p99 / p99.9 / p99.99 normalised to Lazy-RTGC (Tables 5-6), erase counts
//!   (Tables 7-8), and beyond the paper: read p99.99, the share of time each plane spends in
//!   intensive mode, and the emptiest plane's free blocks over the run's second half
//!   (Fig. 9; the full timeline is in each cell's `report.html` and `summary.json`).
//!
//! Not reproduced here: the paper's per-workload table cells (only its averages are legible
//! in the text), the ten-run spread (one seed), FlashSim's own timing model.

use super::claim::{mean, Claim, Expect};
use super::runs::{find_trace, free_blocks_late, intensive_share, ratio, run_cell, Cell, Workload};
use super::{verdict_summary, Options, Outcome, Paper, ReproError};
use crate::config::{presets, DeviceConfig, Precondition};
use crate::stats::RunReport;

pub const PAPER: Paper = Paper {
    name: "rlgc",
    title: "RL-assisted GC (Kang, Shin, Yoo, ACM TECS 2017): write tail of RL-GC vs Lazy-RTGC on the paper's 3D NAND devices, from an empty device",
    full_time: "6.6 min of CPU (252 runs of 0.5-6.6 M requests); 24 min wall measured on a 2-core VM shared with other jobs",
    quick_time: "31 s of CPU (16 runs); 100-120 s wall measured on a 2-core VM shared with other jobs",
    run,
};

const LAZY: &str = "lazy-rtgc";
const RL_P: &str = "rlgc:policy=proportional,bins=legible";
const RL_G: &str = "rlgc:bins=legible";
const AG_P: &str = "rlgc-aggressive:policy=proportional,bins=legible";
const AG_G: &str = "rlgc-aggressive:bins=legible";
const IDLE_MA: &str = "idle-ma";
const IDLE_ES: &str = "idle-es";

/// Table 1's rows, with the usual names of the real traces.
const WORKLOADS: [(&str, &[&str]); 9] = [
    ("home1", &["home1"]),
    ("home2", &["home2"]),
    ("home3", &["home3"]),
    ("home4", &["home4"]),
    ("webmail", &["webmail"]),
    ("webmail+online", &["webmail+online"]),
    ("RBESQL", &["RBESQL", "RadiusBackEndSQLServer"]),
    ("MSNSFS", &["MSNSFS", "MSNStorageFileServer"]),
    ("oltp", &[]),
];
const QUICK_WORKLOADS: [&str; 2] = ["home1", "oltp"];

/// The device's starting state.
#[derive(Copy, Clone, Debug, PartialEq)]
enum Start {
    Empty,
    Steady,
}

impl Start {
    fn label(self) -> &'static str {
        match self {
            Start::Empty => "empty",
            Start::Steady => "steady",
        }
    }
}

/// One cell's results, by scheme in the order of `schemes`.
struct CellResult {
    dev: &'static str,
    start: Start,
    workload: String,
    reports: Vec<RunReport>,
    schemes: Vec<String>,
}

impl CellResult {
    fn get(&self, scheme: &str) -> Option<&RunReport> {
        self.schemes.iter().position(|s| s == scheme).map(|i| &self.reports[i])
    }

    /// Scheme's metric over Lazy-RTGC's.
    fn ratio(&self, scheme: &str, f: fn(&RunReport) -> f64) -> f64 {
        match (self.get(scheme), self.get(LAZY)) {
            (Some(s), Some(l)) => ratio(f(s), f(l)),
            _ => f64::NAN,
        }
    }
}

/// The paper's device at full size with the starting state set explicitly.
pub fn device(name: &str, empty: bool) -> Result<DeviceConfig, ReproError> {
    let mut d = presets::load(name).map_err(ReproError::Config)?;
    d.ftl.gc_reserved_blocks = 1;
    d.precondition = if empty { Precondition::None } else { Precondition::Steady { fill: 0.9, free_blocks_margin: 1 } };
    Ok(d)
}

/// Requests that program about `turnover` times the device's logical pages (stand-ins
/// only): the pages a request covers are counted on the generator's first requests.
fn stand_in(name: &str, dev: &DeviceConfig, turnover: f64) -> Result<Workload, ReproError> {
    use crate::host::{Op, RequestSource};
    let cfg = crate::workload::preset(&format!("rlgc-{name}")).ok_or_else(|| ReproError::Config(format!("no workload preset rlgc-{name}")))?;
    let cfg = cfg.with_span_within(dev.host_bytes());
    let mut g = crate::workload::Generator::new(cfg.clone().with_count(SAMPLE)).map_err(|e| ReproError::Config(e.to_string()))?;
    let page = u64::from(dev.geometry.page_size);
    let (mut requests, mut pages) = (0u64, 0u64);
    while let Some(r) = g.next_request().map_err(|e| ReproError::Config(e.to_string()))? {
        requests += 1;
        if r.op == Op::Write {
            pages += (r.offset + r.size).div_ceil(page) - r.offset / page;
        }
    }
    let per_request = pages.max(1) as f64 / requests.max(1) as f64;
    let count = (turnover * f64::from(dev.logical_pages()) / per_request).ceil() as u64;
    Ok(Workload::Gen(cfg.with_count(count)))
}

/// Requests sampled to count the pages a stand-in's request programs.
const SAMPLE: u64 = 20_000;

/// A short name for a scheme in the tables.
fn label(scheme: &str) -> &'static str {
    match scheme {
        LAZY => "lazy-rtgc",
        RL_P => "rlgc ∝Q",
        RL_G => "rlgc greedy",
        AG_P => "aggressive ∝Q",
        AG_G => "aggressive greedy",
        IDLE_MA => "idle-ma",
        IDLE_ES => "idle-es",
        _ => "?",
    }
}

fn run(opts: &Options, log: &mut dyn FnMut(&str)) -> Result<Outcome, ReproError> {
    let schemes: Vec<String> = if opts.quick { vec![LAZY, RL_P, AG_P, AG_G] } else { vec![LAZY, RL_P, RL_G, AG_P, AG_G, IDLE_MA, IDLE_ES] }.into_iter().map(String::from).collect();
    let starts: &[Start] = if opts.quick { &[Start::Empty] } else { &[Start::Empty, Start::Steady] };
    let workloads: Vec<(&str, &[&str])> = WORKLOADS.iter().filter(|(w, _)| !opts.quick || QUICK_WORKLOADS.contains(w)).map(|(w, n)| (*w, *n)).collect();
    let mut cells = Vec::new();
    let mut sources = Vec::new();
    for &start in starts {
        for dev_name in ["rlgc-128gb", "rlgc-512gb"] {
            let dev = device(dev_name, start == Start::Empty)?;
            for &(w, names) in &workloads {
                let (workload, source) = match find_trace(opts.trace_dir.as_deref(), names)? {
                    Some(p) => (Workload::Trace(p.clone()), format!("{w}: {} (real trace)", p.display())),
                    None => {
                        let turnover = match (start, opts.quick) {
                            (Start::Steady, _) => 0.5,
                            (Start::Empty, true) => 1.1,
                            // oltp saturates both devices (see `avg`): more requests only
                            // lengthen its queue, past what the engine tracks on 512 Gb.
                            (Start::Empty, false) if w == "oltp" => 1.1,
                            (Start::Empty, false) => 1.5,
                        };
                        (stand_in(w, &dev, turnover)?, format!("{w}: generated stand-in rlgc-{w} (RL-GC Table 1 statistics)"))
                    }
                };
                if !sources.contains(&source) {
                    sources.push(source);
                }
                let title = format!("RL-GC reproduction: {dev_name}, {} start, {w}", start.label());
                log(&format!("{title}: {} ({} schemes)", workload.describe(), schemes.len()));
                let cell = Cell {
                    title: title.clone(),
                    device: &dev,
                    workload: &workload,
                    schemes: &schemes,
                    seed: opts.seed,
                    oracle: false,
                    dir: opts.out.join(format!("{}-{}-{}", start.label(), &dev_name[5..], w.replace('+', "-"))),
                    notes: vec![("starting_state".into(), start.label().into()), ("paper".into(), "Kang, Shin, Yoo, ACM TECS 2017".into())],
                };
                let reports = run_cell(&cell)?;
                cells.push(CellResult { dev: if dev_name.ends_with("128gb") { "128 Gb" } else { "512 Gb" }, start, workload: w.to_string(), reports, schemes: schemes.clone() });
            }
        }
    }
    let mut text = format!("{}\n", PAPER.title);
    text.push_str(&format!(
        "Setup: the paper's devices at full size (2731 / 2874 blocks per plane), Table 4's absolute thresholds (T_GC 10, intensive at 1 free block until > 3, T_AGC 100), one block kept for GC; Table 3's legible interval edges. Schemes: {}. Seed {}; integrity oracle off (full-size devices).\n",
        schemes.iter().map(|s| format!("{} = {s}", label(s))).collect::<Vec<_>>().join(", "),
        opts.seed
    ));
    text.push_str("Workloads:\n");
    for s in &sources {
        text.push_str(&format!("  {s}\n"));
    }
    for &start in starts {
        text.push_str(&format!(
            "\n== {} ==\n",
            match start {
                Start::Empty => "Empty start (the paper's setup): every request measured, ~1.5x (quick: 1.1x) the logical capacity written",
                Start::Steady => "Steady-state variant (NOT the paper's setup): 90 % valid, free blocks just above T_GC, 0.5x the capacity written",
            }
        ));
        text.push_str(&cell_table(cells.iter().filter(|c| c.start == start)));
    }
    let mut claims = claims_for(&cells, Start::Empty, "", opts.quick);
    if !opts.quick {
        claims.extend(claims_for(&cells, Start::Steady, "s", false));
    }
    text.push_str("\n== Paper vs flashtail (ratios to Lazy-RTGC; flashtail = mean over the workloads run) ==\n");
    text.push_str(&super::claim::claims_table(&claims));
    text.push('\n');
    text.push_str(&verdict_summary(&claims));
    Ok(Outcome { text, claims, files: Vec::new() })
}

/// The per-workload table: each scheme's ratios to Lazy-RTGC, intensive time and free blocks.
fn cell_table<'a>(cells: impl Iterator<Item = &'a CellResult>) -> String {
    let headers = ["device", "workload", "scheme", "write p99 ×", "p99.9 ×", "p99.99 ×", "read p99.99 ×", "erases ×", "intensive time", "free blocks late mean/min", "Lazy-RTGC write p99.99"];
    let mut rows = Vec::new();
    for c in cells {
        let lazy = c.get(LAZY);
        for (s, r) in c.schemes.iter().zip(&c.reports) {
            let x = |f: fn(&RunReport) -> f64| {
                let v = c.ratio(s, f);
                if v.is_finite() {
                    format!("{v:.2}")
                } else {
                    "—".into()
                }
            };
            let (fm, fmin) = free_blocks_late(r);
            let name = if r.no_gc_in_window { format!("{} {}", label(s), crate::report::NO_GC_MARK) } else { label(s).to_string() };
            rows.push(vec![
                c.dev.to_string(),
                c.workload.clone(),
                name,
                x(|r| r.writes.p99_ns as f64),
                x(|r| r.writes.p99_9_ns as f64),
                x(|r| r.writes.p99_99_ns as f64),
                x(|r| r.reads.p99_99_ns as f64),
                x(|r| r.flash.erases as f64),
                format!("{:.1} %", 100.0 * intensive_share(r, 2)),
                format!("{fm:.1} / {fmin}"),
                lazy.map_or("—".into(), |l| format!("{:.1} ms", l.writes.p99_99_ns as f64 / 1e6)),
            ]);
        }
    }
    crate::report::render_rows(&headers, rows)
}

/// Mean over the start's cells on `dev` (any device with `None`) of the scheme's ratio to
/// Lazy-RTGC: on workload `only`, or with `None` on every workload run but oltp. oltp offers
/// 11.9k writes/s where the two planes program at most 3.3k (128 Gb) or 2.9k (512 Gb) pages/s:
/// its queue grows without bound and its latencies are the queue's, whatever GC does, so it
/// is judged alone (R9) and kept out of the averages.
fn avg(cells: &[CellResult], start: Start, dev: Option<&str>, only: Option<&str>, scheme: &str, f: fn(&RunReport) -> f64) -> Option<f64> {
    let pick = |c: &&CellResult| match only {
        Some(w) => c.workload == w,
        None => c.workload != "oltp",
    };
    mean(cells.iter().filter(|c| c.start == start && dev.is_none_or(|d| c.dev == d)).filter(pick).map(|c| c.ratio(scheme, f)))
}

/// The paper's claims, measured on the cells of one starting state.
fn claims_for(cells: &[CellResult], start: Start, suffix: &str, quick: bool) -> Vec<Claim> {
    let wp99 = |r: &RunReport| r.writes.p99_ns as f64;
    let wp999 = |r: &RunReport| r.writes.p99_9_ns as f64;
    let wp9999 = |r: &RunReport| r.writes.p99_99_ns as f64;
    let erases = |r: &RunReport| r.flash.erases as f64;
    let label = if start == Start::Steady { " (steady-state variant)" } else { "" };
    let ws: Vec<&str> = {
        let mut v: Vec<&str> = cells.iter().filter(|c| c.start == start && c.workload != "oltp").map(|c| c.workload.as_str()).collect();
        v.dedup();
        v.sort();
        v.dedup();
        v
    };
    let over = format!("mean over {}", ws.join(", "));
    let greedy = |dev: &str, s: &str, f: fn(&RunReport) -> f64| avg(cells, start, Some(dev), None, s, f).map_or("not run".into(), |v| format!("{v:.2}"));
    let id = |n: u32| format!("R{n}{suffix}");
    let mut out = vec![
        Claim::new(&id(1), &format!("RL-GC vs Lazy-RTGC, write p99.99, 512 Gb{label}"), "Table 5", Expect::Ratio { lo: 0.86, hi: 0.86 }, avg(cells, start, Some("512 Gb"), None, RL_P, wp9999), format!("∝Q policy; {over}; greedy: {}", greedy("512 Gb", RL_G, wp9999))),
        Claim::new(&id(2), &format!("RL-GC vs Lazy-RTGC, write p99.9, 512 Gb{label}"), "Table 5", Expect::Ratio { lo: 0.94, hi: 0.94 }, avg(cells, start, Some("512 Gb"), None, RL_P, wp999), ""),
        Claim::new(&id(3), &format!("RL-GC vs Lazy-RTGC, write p99, 512 Gb{label}"), "Table 5", Expect::Ratio { lo: 0.92, hi: 0.92 }, avg(cells, start, Some("512 Gb"), None, RL_P, wp99), ""),
        Claim::new(&id(4), &format!("aggressive vs Lazy-RTGC, write p99.99, 512 Gb{label}"), "Table 5", Expect::Ratio { lo: 0.76, hi: 0.76 }, avg(cells, start, Some("512 Gb"), None, AG_P, wp9999), format!("∝Q policy; greedy: {}", greedy("512 Gb", AG_G, wp9999))),
        Claim::new(&id(5), &format!("aggressive vs Lazy-RTGC, write p99.9, 512 Gb{label}"), "Table 5", Expect::Ratio { lo: 0.71, hi: 0.71 }, avg(cells, start, Some("512 Gb"), None, AG_P, wp999), ""),
        Claim::new(&id(6), &format!("aggressive vs Lazy-RTGC, write p99, 512 Gb{label}"), "Table 5", Expect::Ratio { lo: 0.92, hi: 0.92 }, avg(cells, start, Some("512 Gb"), None, AG_P, wp99), ""),
        Claim::new(&id(7), &format!("aggressive vs Lazy-RTGC, write p99.99, 128 Gb{label}"), "Table 6", Expect::Ratio { lo: 0.66, hi: 0.66 }, avg(cells, start, Some("128 Gb"), None, AG_P, wp9999), format!("∝Q policy; greedy: {}", greedy("128 Gb", AG_G, wp9999))),
        Claim::new(&id(8), &format!("aggressive erase count ≈ Lazy-RTGC's{label}"), "Tables 7-8", Expect::Unchanged { tol: 0.1 }, avg(cells, start, None, None, AG_P, erases), "both devices, oltp aside"),
        Claim::new(&id(9), &format!("no gain without idle time (oltp), aggressive write p99.99{label}"), "§6.2", Expect::Unchanged { tol: 0.1 }, avg(cells, start, None, Some("oltp"), AG_P, wp9999), "both devices; the stand-in saturates them (11.9k writes/s offered, at most 3.3k pages/s programmed), so this holds for any GC: the queue, not GC, sets the latency"),
    ];
    let es = mean(cells.iter().filter(|c| c.start == start && c.workload != "oltp").map(|c| match (c.get(RL_P), c.get(IDLE_ES)) {
        (Some(a), Some(b)) => ratio(wp9999(a), wp9999(b)),
        _ => f64::NAN,
    }));
    out.push(Claim::new(
        &id(10),
        &format!("RL-GC beats exponential-smoothing idle prediction, write p99.99{label}"),
        "Tables 11-12",
        Expect::Ratio { lo: 0.5, hi: 0.95 },
        es,
        if quick { "idle-es is run only by the full reproduction" } else { "the tables' cells are not legible in the text: \"constantly outperforms\" read as 0.5-0.95×" },
    ));
    out
}
