//! `reproduce ttflash`: Yan et al., *Tiny-Tail Flash: Near-Perfect Elimination of Garbage
//! Collection Tail Latencies in NAND SSDs*, FAST'17 (seed 001; spec 02-ttflash.md), run as
//! the paper's artifact (ucare-uchicago/tinyTailFlash, an SSDsim fork) runs it.
//!
//! - Device: the artifact's (`ttflash` preset: 8 channels × 8 chips × 1 plane, 4096 blocks
//!   of 256 4 KiB pages, tR 40 µs, tPROG 800 µs, tBERS 2 ms, RAIN 7 + 1, GC soft threshold
//!   30 %, hard 10 %, and the artifact's GC-scheduling choices).
//! - Starting state: each configuration aged (SSDsim's aging model, `precondition.ratio`,
//!   not settled) to the artifact's free pages per plane at its own `aged ratio`, the ratios
//!   recorded with the artifact's figures (`artifact.rs`): NoGC at 0.665, where no plane
//!   reaches the GC threshold within a trace; Base, +PBL, +GTR and +RGC each at the ratio
//!   that puts every plane under the soft threshold from the first write, as the artifact's
//!   raised aging does. Full ttFlash (+GC-tolerant flush) runs at +RGC's aging. Financial1,
//!   for which the artifact has no figures, takes DTRS's agings.
//! - Host and buffer: the artifact's (SSDsim's host keeps at most 32 requests outstanding
//!   and counts latency from the trace arrival: [`artifact::HOST`]); Base, +PBL, +GTR and
//!   +RGC get the artifact's 64 MiB DRAM write buffer (the settings kept with its figures).
//! - Configurations (the paper's steps): NoGC (`ttflash` unaged: RAIN, stripe buffer, no GC
//!   reached; the artifact's `nogc`), Base (`base`: channel-blocking GC; `def`), +PBL
//!   (`ttflash-pbl`: RAIN and plane-blocking copyback GC; `pbl`), +GTR (`ttflash-gtr`; `gtr`),
//!   +RGC (`ttflash-rgc`: rotating GC; `rgc`), ttFlash (`ttflash`: + GC-tolerant flush), and
//!   NoGC without RAIN (`nogc` unaged) for the paper's mean-latency price of parity.
//! - Traces: the bundled DTRS slice (the paper's headline trace) as recorded; in the full
//!   run also TPC-C (MQSim's recording, the artifact's second trace: 30 passes on fresh
//!   addresses, ten times slower) and Financial1 (first 50k requests; not a paper trace, shown
//!   and not judged), found in `--trace-dir`, then `../shared/traces/spc`, then (TPC-C) the
//!   copy kept with the artifact's figures.
//! - Metrics: the paper's: read latency percentiles p99 / p99.9 / p99.99 against NoGC, the
//!   share of all I/Os that waited on GC ("GC-blocked I/Os"), mean read latency against NoGC
//!   without RAIN; and beside the artifact, its figures per configuration
//!   ([`artifact::metrics`]) with the validation targets ([`artifact::target`]).
//!
//! Does not: warm the device for hours as the paper did (the aging stands in for it), run
//! the paper's other four Microsoft traces (not available), or measure wear (a 300 s window
//! counts free-space debt, not P/E cycles; the claim says "not measured"). The integrity
//! oracle is off: a 256 GB device's oracle doubles memory, and these schemes' integrity is
//! checked by their own tests.

pub mod artifact;
mod claims;
mod table;

use super::runs::find_trace;
use super::{create_dir, verdict_summary, Options, Outcome, Paper, ReproError};
use crate::job::{RunSettings, Workload};
use crate::report::{write_outputs, CompareMeta};
use crate::runner::run_many;
use crate::stats::RunReport;
use crate::trace::{Format, TraceOptions};
use artifact::{Artifact, ArtifactTrace};
use std::path::PathBuf;

pub const PAPER: Paper = Paper {
    name: "ttflash",
    title: "ttFlash (Yan et al., FAST'17): read tails of Base, +plane-blocking GC, +GC-tolerant read, +rotating GC and ttFlash against NoGC on the artifact's device, beside the artifact's own figures",
    full_time: "33 s of CPU (21 runs: DTRS, TPC-C ×30, Financial1 × 7 configurations); 103 s wall measured on a 2-core VM shared with other jobs",
    quick_time: "11 s of CPU (7 runs: DTRS); 31 s wall measured on the shared 2-core VM",
    run,
};

/// The shared slices, relative to the working directory (a checkout beside `shared/`).
const SHARED_SPC: &str = "../shared/traces/spc";

/// One run of a trace: its role in the experiment, flashtail scheme and aging.
#[derive(Clone, Debug)]
pub struct Role {
    /// `nogc`, `def`, `pbl`, `gtr`, `rgc` (the artifact's names), `ttflash`, `nogc-plain`.
    pub name: &'static str,
    /// The paper's name for it.
    pub label: &'static str,
    pub scheme: String,
    /// `precondition.ratio`.
    pub ratio: f64,
    /// Extra device settings (the artifact's DRAM write buffer, from its figures' file).
    pub sets: Vec<String>,
}

/// The runs of one trace, from the artifact's configurations of `t`.
pub fn roles(t: &ArtifactTrace) -> Result<Vec<Role>, String> {
    let mut out = Vec::new();
    for (name, label) in artifact::CONFIGS.into_iter().zip(["NoGC", "Base", "+PBL", "+GTR", "+RGC"]) {
        let c = t.config(name)?;
        out.push(Role { name, label, scheme: c.flashtail_scheme.clone(), ratio: c.flashtail_ratio, sets: c.flashtail_sets.clone() });
    }
    let rgc = t.config("rgc")?.flashtail_ratio;
    let nogc = t.config("nogc")?.flashtail_ratio;
    // ttFlash has its own stripe buffer; NoGC writes through, as the artifact's nogc.
    out.push(Role { name: "ttflash", label: "ttFlash", scheme: "ttflash".into(), ratio: rgc, sets: Vec::new() });
    out.push(Role { name: "nogc-plain", label: "NoGC, no RAIN", scheme: "nogc".into(), ratio: nogc, sets: Vec::new() });
    Ok(out)
}

/// A trace's runs and what they found.
pub struct TraceRun {
    /// `dtrs`, `tpcc30`, `fin1`.
    pub name: String,
    /// Where the requests came from, in words.
    pub source: String,
    /// One of the paper's workloads (judged by the claims).
    pub paper_workload: bool,
    /// The artifact's figures for it, if it has them.
    pub artifact: Option<ArtifactTrace>,
    pub runs: Vec<(Role, RunReport)>,
}

impl TraceRun {
    /// The report of a role.
    pub fn get(&self, role: &str) -> Option<&RunReport> {
        self.runs.iter().find(|(r, _)| r.name == role).map(|(_, r)| r)
    }
}

/// A trace to run: name, workload, where it came from, paper workload, artifact figures.
struct Plan {
    name: &'static str,
    workload: Workload,
    source: String,
    paper_workload: bool,
    artifact: Option<ArtifactTrace>,
}

/// A slice by its usual names: `--trace-dir`, then the shared slices, then `fallback`.
fn locate(opts: &Options, names: &[&str], fallback: Option<PathBuf>) -> Result<Option<PathBuf>, ReproError> {
    if let Some(p) = find_trace(opts.trace_dir.as_deref(), names)? {
        return Ok(Some(p));
    }
    let shared = PathBuf::from(SHARED_SPC);
    if shared.is_dir() {
        if let Some(p) = find_trace(Some(&shared), names)? {
            return Ok(Some(p));
        }
    }
    Ok(fallback.filter(|p| p.is_file()))
}


fn plans(opts: &Options, art: &Artifact, skipped: &mut Vec<String>) -> Result<Vec<Plan>, ReproError> {
    let dtrs = art.trace("dtrs").map_err(ReproError::Config)?.clone();
    let mut out = vec![Plan {
        name: "dtrs",
        workload: artifact::workload("dtrs", &dtrs, None).map_err(ReproError::Config)?,
        source: "DTRS: the bundled slice (Microsoft production, 127,043 requests in 300 s, 89 % reads), as recorded".into(),
        paper_workload: true,
        artifact: Some(dtrs.clone()),
    }];
    if opts.quick {
        skipped.push("--quick: DTRS only (the full run adds TPC-C ×30 and Financial1)".into());
        return Ok(out);
    }
    let tpcc = art.trace("tpcc30").map_err(ReproError::Config)?.clone();
    match locate(opts, &["tpcc-small", "tpcc-small.mqsim"], Some(PathBuf::from(artifact::TPCC_COPY)))? {
        Some(p) => out.push(Plan {
            name: "tpcc30",
            source: format!("TPC-C: {} (MQSim's recording, 6,999 requests in 0.14 s), 30 passes on fresh addresses, 10× slower, as the artifact ran it", p.display()),
            workload: artifact::workload("tpcc30", &tpcc, Some(p)).map_err(ReproError::Config)?,
            paper_workload: true,
            artifact: Some(tpcc),
        }),
        None => skipped.push("TPC-C: tpcc-small.mqsim not found (--trace-dir or ../shared/traces/spc)".into()),
    }
    match locate(opts, &["financial1-50k"], None)? {
        Some(p) => out.push(Plan {
            name: "fin1",
            source: format!("Financial1: {} (SPC, first 50k requests in 853 s), at DTRS's agings; not a paper trace: shown, not judged", p.display()),
            workload: Workload::Trace { path: Some(p), read: TraceOptions { format: Some(Format::Flashsim), ..Default::default() }, replay: Default::default() },
            paper_workload: false,
            artifact: None,
        }),
        None => skipped.push("Financial1: financial1-50k.trace not found (--trace-dir or ../shared/traces/spc)".into()),
    }
    Ok(out)
}

/// Runs one trace's roles in parallel and writes its report files.
fn run_trace(plan: &Plan, roles: &[Role], opts: &Options, log: &mut dyn FnMut(&str)) -> Result<TraceRun, ReproError> {
    let cfg_err = |e: String| ReproError::Config(format!("{}: {e}", plan.name));
    let devices: Vec<_> = roles.iter().map(|r| artifact::device(r.ratio, &r.sets)).collect::<Result<_, _>>().map_err(cfg_err)?;
    let first = &devices[0];
    let open = plan.workload.opener(first, first.host_bytes()).map_err(cfg_err)?;
    // Every run behind the artifact's host: the paper's numbers come from the artifact.
    let settings = RunSettings { seed: opts.seed, oracle: false, closed_loop: Some(artifact::HOST), ..Default::default() };
    let specs: Vec<_> = roles.iter().zip(&devices).map(|(r, d)| settings.spec(d, &r.scheme)).collect();
    log(&format!("{}: {} runs ({})", plan.name, specs.len(), plan.workload.describe()));
    let mut runs = Vec::new();
    for (role, r) in roles.iter().zip(run_many(&specs, &open, &[])) {
        let mut r = r.map_err(|e| ReproError::Run { cell: plan.name.into(), scheme: format!("{} ({})", role.scheme, role.name), error: e.to_string() })?;
        r.cost.strip_machine();
        runs.push((role.clone(), r));
    }
    let meta = CompareMeta {
        title: format!("ttFlash reproduction: {}", plan.name),
        workload: plan.source.clone(),
        device: format!("ttflash preset, aged per run (precondition.ratio {}), unsettled", roles.iter().map(|r| format!("{}={}", r.name, r.ratio)).collect::<Vec<_>>().join(", ")),
        notes: vec![("paper".into(), "Yan et al., FAST'17".into()), ("seed".into(), opts.seed.to_string()), ("oracle".into(), "off".into())],
        config: serde_json::json!({
            "roles": roles.iter().map(|r| serde_json::json!({"role": r.name, "scheme": r.scheme, "precondition.ratio": r.ratio, "sets": r.sets})).collect::<Vec<_>>(),
            "host": "closed loop, 32 outstanding, latency from the trace arrival (the artifact's host)",
            "seed": opts.seed,
        }),
    };
    let reports: Vec<RunReport> = runs.iter().map(|(_, r)| r.clone()).collect();
    write_outputs(&opts.out.join(plan.name), &meta, &reports)?;
    Ok(TraceRun { name: plan.name.into(), source: plan.source.clone(), paper_workload: plan.paper_workload, artifact: plan.artifact.clone(), runs })
}

fn run(opts: &Options, log: &mut dyn FnMut(&str)) -> Result<Outcome, ReproError> {
    let art = Artifact::load().map_err(ReproError::Config)?;
    create_dir(&opts.out)?;
    let mut skipped = Vec::new();
    let plans = plans(opts, &art, &mut skipped)?;
    let dtrs_roles = roles(art.trace("dtrs").map_err(ReproError::Config)?).map_err(ReproError::Config)?;
    let mut traces = Vec::new();
    for plan in &plans {
        let roles = match &plan.artifact {
            Some(t) => roles(t).map_err(ReproError::Config)?,
            None => dtrs_roles.clone(),
        };
        traces.push(run_trace(plan, &roles, opts, log)?);
    }
    let mut text = format!("{}\n", PAPER.title);
    text.push_str(&format!(
        "Setup: the artifact's device (ttflash preset), each configuration aged to the artifact's free pages per plane and not settled, behind the artifact's host (at most 32 requests outstanding, latency from the trace arrival); Base to +RGC with the artifact's 64 MiB DRAM write buffer; seed {}; integrity oracle off.\nTraces:\n",
        opts.seed
    ));
    for t in &traces {
        text.push_str(&format!("  {}\n", t.source));
    }
    for s in &skipped {
        text.push_str(&format!("  not run: {s}\n"));
    }
    text.push_str("\n== Per trace: read latency (ms) of each step, × NoGC, GC-blocked I/Os ==\n");
    text.push_str(&table::steps(&traces));
    let paper_claims = claims::claims(&traces, opts.quick);
    text.push_str("\n== 1. The paper's claims on its own metrics (flashtail: DTRS");
    text.push_str(if traces.iter().any(|t| t.name == "tpcc30") { " and TPC-C" } else { " only" });
    text.push_str(") ==\n");
    text.push_str(&super::claim::claims_table(&paper_claims));
    text.push('\n');
    text.push_str(&verdict_summary(&paper_claims));
    text.push_str(&format!("\n== 2. The artifact ({}) beside flashtail: the same requests, the same free pages per plane ==\n", art.artifact));
    for t in traces.iter().filter(|t| t.artifact.is_some()) {
        text.push_str(&table::artifact(t));
    }
    Ok(Outcome { text, claims: paper_claims, files: Vec::new() })
}
