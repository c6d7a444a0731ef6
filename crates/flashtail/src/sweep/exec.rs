//! Running a sweep's points: one point is one comparison (`job::plan` + `job::compare`: the
//! spec's schemes in parallel, each on an identically preconditioned device and a fresh
//! copy of the point's workload). Locally the points run on a pool of `jobs` threads
//! (default: one per core), with every point's schemes sharing the pool. A point that
//! fails is reported with its error and the others go on. Other backends (the Python
//! package's Ray backend) call [`run_point`] per point and [`finish`] with the results.

use super::ci::{across_seeds, CiTable};
use super::points::{expand, Point};
use super::spec::{resolve, Sweep};
use super::table::{point_rows, Row, Table};
use crate::job::{self, Cancel, DeviceSource};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How to run locally.
#[derive(Clone, Debug, Default)]
pub struct ExecOptions {
    /// Threads (default: one per core).
    pub jobs: Option<usize>,
    /// Reuse the points a previous run recorded in the output folder.
    pub resume: bool,
}

/// Where a sweep stands, after each point.
#[derive(Clone, Debug)]
pub struct SweepProgress {
    pub total: usize,
    /// Points finished, taken from a previous run, or failed.
    pub done: usize,
    pub resumed: usize,
    pub failed: usize,
    pub elapsed: Duration,
    /// Time left, from the mean time of the points run so far.
    pub eta: Option<Duration>,
}

impl SweepProgress {
    /// One plain line, for logs.
    pub fn line(&self) -> String {
        let eta = self.eta.map_or(String::new(), |e| format!(", about {} s left", e.as_secs()));
        format!(
            "sweep: {}/{} points ({} resumed, {} failed), {:.1} s{eta}",
            self.done,
            self.total,
            self.resumed,
            self.failed,
            self.elapsed.as_secs_f64()
        )
    }
}

/// A finished sweep.
pub struct SweepOutcome {
    pub table: Table,
    pub ci: CiTable,
    /// Points that failed, with their error.
    pub failures: Vec<(Point, String)>,
    pub points: usize,
    pub resumed: usize,
    pub wall_seconds: f64,
}

/// A device of the spec: a preset name as is, a file relative to the spec's folder.
fn device_source(sweep: &Sweep, name: &str) -> DeviceSource {
    if crate::config::presets::names().contains(&name) {
        DeviceSource::Named(name.to_string())
    } else {
        DeviceSource::Named(resolve(&sweep.base, name).display().to_string())
    }
}

/// Runs one point; its rows, or the error (the command line's words).
pub fn run_point(sweep: &Sweep, p: &Point, cancel: &Cancel) -> Result<Vec<Row>, String> {
    let s = &sweep.spec;
    let dev = job::load_device(&device_source(sweep, &p.device), &p.overrides())?;
    let workload = s.workloads[p.workload].workload(&sweep.base, Some(p.seed))?;
    let run = s.run.settings(p.seed)?;
    let plan = job::plan(&dev, &workload, &s.schemes, &run, job::INPUT_MEMORY_DEFAULT, &mut |_| {})?;
    let out = job::compare(&plan, &[], cancel)?;
    Ok(point_rows(p, &out.reports))
}

/// How a point describes itself in a failure message.
pub fn point_label(p: &Point) -> String {
    let mut parts = vec![format!("device={}", p.device), format!("workload={}", p.workload_label)];
    parts.extend(p.overrides());
    parts.push(format!("seed={}", p.seed));
    format!("point {} ({})", p.index, parts.join(" "))
}

/// Runs every point on this machine, writes the tables into `out` and returns them.
pub fn run_local(sweep: &Sweep, out: &Path, opts: &ExecOptions, on_progress: &(dyn Fn(&SweepProgress) + Sync), cancel: &Cancel) -> Result<SweepOutcome, String> {
    let points = expand(sweep)?;
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let pool = rayon::ThreadPoolBuilder::new().num_threads(opts.jobs.unwrap_or(0)).build().map_err(|e| e.to_string())?;
    let start = Instant::now();
    let (done, resumed, failed, ran) = (AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0));
    let report = Mutex::new(());
    let results: Vec<(Result<Vec<Row>, String>, bool)> = pool.install(|| {
        use rayon::prelude::*;
        points
            .par_iter()
            .map(|p| {
                let prior = if opts.resume { super::resume::load(out, p) } else { None };
                let was_resumed = prior.is_some();
                let r = match prior {
                    Some(rows) => Ok(rows),
                    None => {
                        let r = run_point(sweep, p, cancel);
                        ran.fetch_add(1, Ordering::Relaxed);
                        match r {
                            Ok(rows) => super::resume::save(out, p, &rows).map(|_| rows),
                            Err(e) => Err(e),
                        }
                    }
                };
                let _one_at_a_time = report.lock();
                let n = done.fetch_add(1, Ordering::Relaxed) + 1;
                let k = if was_resumed { resumed.fetch_add(1, Ordering::Relaxed) + 1 } else { resumed.load(Ordering::Relaxed) };
                let f = if r.is_err() { failed.fetch_add(1, Ordering::Relaxed) + 1 } else { failed.load(Ordering::Relaxed) };
                let elapsed = start.elapsed();
                let run_so_far = ran.load(Ordering::Relaxed);
                let eta = (run_so_far > 0).then(|| elapsed.mul_f64((points.len() - n) as f64 / run_so_far as f64));
                on_progress(&SweepProgress { total: points.len(), done: n, resumed: k, failed: f, elapsed, eta });
                (r, was_resumed)
            })
            .collect()
    });
    if cancel.is_cancelled() {
        return Err(job::CANCELLED.to_string());
    }
    let n_resumed = results.iter().filter(|r| r.1).count();
    let mut outcome = finish(sweep, &points, results.into_iter().map(|r| r.0).collect())?;
    outcome.resumed = n_resumed;
    outcome.wall_seconds = start.elapsed().as_secs_f64();
    write_tables(out, &outcome)?;
    Ok(outcome)
}

/// Assembles the tables from every point's result (in point order).
pub fn finish(sweep: &Sweep, points: &[Point], results: Vec<Result<Vec<Row>, String>>) -> Result<SweepOutcome, String> {
    if points.len() != results.len() {
        return Err(format!("{} results for {} points", results.len(), points.len()));
    }
    let mut table = Table { params: sweep.spec.set.keys().cloned().collect(), rows: Vec::new() };
    let mut failures = Vec::new();
    for (p, r) in points.iter().zip(results) {
        match r {
            Ok(rows) => table.rows.extend(rows),
            Err(e) => failures.push((p.clone(), e)),
        }
    }
    let ci = across_seeds(&table, &sweep.spec.ci);
    Ok(SweepOutcome { table, ci, failures, points: points.len(), resumed: 0, wall_seconds: 0.0 })
}

/// The sweep's `report.html`: what it ran, read from its table (so every backend writes the
/// same page), and its across-seed table.
fn sweep_page(o: &SweepOutcome) -> crate::report::SweepPage<'_> {
    fn distinct<'a>(xs: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
        let mut v: Vec<&str> = Vec::new();
        for x in xs {
            if !v.contains(&x) {
                v.push(x);
            }
        }
        v
    }
    let rows = &o.table.rows;
    let schemes = distinct(rows.iter().map(|r| r.scheme.as_str()));
    let mut seed_list: Vec<u64> = rows.iter().map(|r| r.seed).collect();
    seed_list.sort_unstable();
    seed_list.dedup();
    let facts = vec![
        ("points".to_string(), format!("{} ({} failed)", o.points, o.failures.len())),
        ("schemes".to_string(), schemes.join(", ")),
        ("devices".to_string(), distinct(rows.iter().map(|r| r.device.as_str())).join(", ")),
        ("workloads".to_string(), distinct(rows.iter().map(|r| r.workload.as_str())).join(", ")),
        ("swept".to_string(), if o.table.params.is_empty() { "nothing but seeds".to_string() } else { o.table.params.join(", ") }),
        ("seeds".to_string(), seed_list.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")),
    ];
    crate::report::SweepPage {
        title: format!("flashtail sweep: {} points × {}", o.points, job::plural(schemes.len(), "scheme", "schemes")),
        facts,
        ci: &o.ci,
        failures: o.failures.iter().map(|(p, e)| format!("{}: {e}", point_label(p))).collect(),
    }
}

/// Writes `table.csv`, `table.parquet`, `ci.csv`, `ci.parquet`, `report.html` (the
/// across-seed table with its intervals, `report::render_sweep_html`) and, when points
/// failed, `failures.txt` (one line per point: its label and error) into `out`.
pub fn write_tables(out: &Path, o: &SweepOutcome) -> Result<(), String> {
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let w = |name: &str, text: String| std::fs::write(out.join(name), text).map_err(|e| format!("{}: {e}", out.join(name).display()));
    w("table.csv", o.table.to_csv()?)?;
    w("ci.csv", o.ci.to_csv()?)?;
    super::parquet_out::write_table(&out.join("table.parquet"), &o.table)?;
    super::parquet_out::write_ci(&out.join("ci.parquet"), &o.ci)?;
    w("report.html", crate::report::render_sweep_html(&sweep_page(o)))?;
    let failures = out.join("failures.txt");
    if o.failures.is_empty() {
        if failures.exists() {
            std::fs::remove_file(&failures).map_err(|e| format!("{}: {e}", failures.display()))?;
        }
    } else {
        w("failures.txt", o.failures.iter().map(|(p, e)| format!("{}: {e}\n", point_label(p))).collect())?;
    }
    Ok(())
}
