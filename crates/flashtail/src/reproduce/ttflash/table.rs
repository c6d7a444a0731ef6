//! The tables `reproduce ttflash` prints: each trace's steps (NoGC → Base → +PBL → +GTR →
//! +RGC → ttFlash) with read percentiles, their ratio to NoGC and the GC-blocked shares; and
//! each configuration beside the artifact's figures, with the validation targets' verdicts.

use super::artifact::{self, Metric};
use super::TraceRun;
use crate::report::render_rows;
use crate::stats::RunReport;

fn ms(ns: u64) -> String {
    format!("{:.3}", ns as f64 / 1e6)
}

fn pct(share: f64) -> String {
    format!("{:.3} %", share * 100.0)
}

/// Read p99, p99.9, p99.99 (ns).
pub fn read_tails(r: &RunReport) -> [f64; 3] {
    [r.reads.p99_ns as f64, r.reads.p99_9_ns as f64, r.reads.p99_99_ns as f64]
}

/// `r`'s read tails over NoGC's, as `a / b / c`.
fn times_nogc(r: &RunReport, nogc: Option<&RunReport>) -> String {
    let Some(n) = nogc else { return "—".into() };
    let (a, b) = (read_tails(r), read_tails(n));
    (0..3).map(|i| format!("{:.2}", super::super::runs::ratio(a[i], b[i]))).collect::<Vec<_>>().join(" / ")
}

/// One row per trace and role.
pub fn steps(traces: &[TraceRun]) -> String {
    let headers = [
        "trace", "step", "scheme", "aging", "read mean", "p99", "p99.9", "p99.99", "max", "p99/p99.9/p99.99 × NoGC", "I/Os waited on GC", "reads waited on GC", "GC victims", "erases",
    ];
    let mut rows = Vec::new();
    for t in traces {
        let nogc = t.get("nogc");
        for (role, r) in &t.runs {
            rows.push(vec![
                t.name.clone(),
                role.label.to_string(),
                role.scheme.clone(),
                format!("{}", role.ratio),
                format!("{:.3}", r.reads.mean_ns / 1e6),
                ms(r.reads.p99_ns),
                ms(r.reads.p99_9_ns),
                ms(r.reads.p99_99_ns),
                ms(r.reads.max_ns),
                times_nogc(r, nogc),
                pct(r.waits.share_waited_on_gc),
                pct(r.waits.share_reads_waited_on_gc),
                r.flash.gc_runs.to_string(),
                r.flash.erases.to_string(),
            ]);
        }
    }
    render_rows(&headers, rows)
}

/// The check of one metric against its validation target.
fn check(config: &str, m: &Metric) -> (Option<bool>, String) {
    let Some(tol) = artifact::target(config, m.name) else { return (None, String::new()) };
    let ratio = if m.theirs == 0.0 && m.ours == 0.0 { 1.0 } else { m.ratio() };
    let ok = (ratio - 1.0).abs() <= tol;
    (Some(ok), format!("{} {:.0} %", if ok { "within" } else { "OUTSIDE" }, tol * 100.0))
}

/// The artifact's figures beside flashtail's for each configuration of `t`, the order of
/// read p99, and a count of figures within the targets.
pub fn artifact(t: &TraceRun) -> String {
    let Some(a) = &t.artifact else { return String::new() };
    let mut rows = Vec::new();
    let (mut within, mut checked) = (0, 0);
    let (mut ours_p99, mut theirs_p99) = (Vec::new(), Vec::new());
    for config in artifact::CONFIGS {
        let (Ok(fig), Some(r)) = (a.config(config), t.get(config)) else { continue };
        for m in artifact::metrics(r, fig) {
            let (ok, verdict) = check(config, &m);
            if let Some(ok) = ok {
                checked += 1;
                within += ok as usize;
            }
            if m.name == "read p99" {
                ours_p99.push((config, m.ours));
                theirs_p99.push((config, m.theirs));
            }
            let ratio = m.ratio();
            rows.push(vec![
                config.to_string(),
                fig.flashtail_scheme.clone(),
                m.name.to_string(),
                format!("{:.1}", m.theirs),
                format!("{:.1}", m.ours),
                if ratio.is_finite() { format!("{ratio:.3}") } else { "—".into() },
                verdict,
            ]);
        }
    }
    let mut out = format!("{} ({}; latencies in µs):\n", t.name, a.trace);
    out.push_str(&render_rows(&["config", "scheme", "metric", "artifact", "flashtail", "ratio", "target"], rows));
    let (ours, theirs) = (artifact::order(&ours_p99), artifact::order(&theirs_p99));
    out.push_str(&format!(
        "[artifact {}] {within} of {checked} checked figures within the validation targets; read p99 order, fastest first: artifact {}, flashtail {} ({})\n\n",
        t.name,
        theirs.join(" < "),
        ours.join(" < "),
        if ours == theirs { "same" } else { "differs" }
    ));
    out
}
