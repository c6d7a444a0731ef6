//! Planning and running a comparison: which schemes (the default set follows the device and
//! the workload's content, less the schemes a power cut cannot be enacted under), the host
//! capacity every scheme's requests fold into (the device's, whatever the schemes), then the runs,
//! in parallel through `runner::run_many`, each scheme on an identically preconditioned
//! device and a fresh copy of the workload.

use super::{Cancel, CancelSource, Opener, Workload};
use crate::runner::{check_schemes, host_capacity_bytes, run_many, spec_scheme, RunSettings, RunSpec};
use crate::sim::Progress;
use crate::stats::RunReport;
use crate::report::CompareMeta;
use crate::DeviceConfig;
use std::sync::Arc;

/// A comparison ready to run: the schemes and the workload.
pub struct ComparePlan {
    pub schemes: Vec<String>,
    pub specs: Vec<RunSpec>,
    pub open: Opener,
}

/// What a comparison gives back: one report per scheme, in the plan's order.
pub struct CompareOutcome {
    pub schemes: Vec<String>,
    pub reports: Vec<RunReport>,
    pub wall_seconds: f64,
}

/// Chooses the schemes (every scheme that differs on the device and workload when
/// `schemes` is empty) and opens the workload once, folding it into the device's host
/// capacity (the same for every scheme: a scheme's results do not depend on the set). Each scheme of the default set left out is told to `note`
/// (one line, `note: ...`, saying why) as it is left out. Every scheme runs with `run`. The
/// workload is read into memory once when it fits in `input_memory` bytes, and replayed
/// from there for every pass and scheme (`record_input`; `INPUT_MEMORY_DEFAULT` is the
/// command line's default); 0 reads it from its source each time. Errors are the command
/// line's words.
pub fn plan(device: &DeviceConfig, workload: &Workload, schemes: &[String], run: &RunSettings, input_memory: u64, note: &mut dyn FnMut(String)) -> Result<ComparePlan, String> {
    check_no_empty_scheme(schemes)?;
    let schemes: Vec<String> = if schemes.is_empty() {
        // Which schemes differ depends on the workload's content: look at it (any capacity
        // will do to see whether writes carry fingerprints).
        let probe = workload.opener(device, device.host_bytes())?;
        let fingerprinted = workload.fingerprinted(&probe)?;
        let (chosen, skipped) = crate::gc::schemes::default_schemes(device, fingerprinted);
        for (n, why) in skipped {
            note(format!("note: {n} left out ({why}); name it in --schemes to run it anyway"));
        }
        let mut chosen: Vec<String> = chosen.iter().map(|n| n.to_string()).collect();
        if !run.power_cut_at.is_empty() {
            // Schemes a power cut cannot be enacted under on this device would fail the whole
            // comparison (the engine asks the same question).
            chosen.retain(|n| {
                let why = spec_scheme(&run.spec(device, n)).ok().and_then(|s| crate::sim::power_loss::refusal(&s, device));
                if let Some(why) = &why {
                    note(format!("note: {n} left out (--power-cut-at: {})", why.message(n, "power cuts", "cut power on")));
                }
                why.is_none()
            });
        }
        if chosen.is_empty() {
            return Err("no scheme left to compare: every scheme of the default set was left out (notes above); name the schemes with --schemes".into());
        }
        chosen
    } else {
        // `--schemes "base, nogc"` means nogc, not an unknown scheme ' nogc'.
        schemes.iter().map(|s| s.trim().to_string()).collect()
    };
    // Two runs of one scheme only repeat each other (same seed, same numbers) and make two
    // rows the reports cannot tell apart.
    for (i, s) in schemes.iter().enumerate() {
        if schemes[..i].contains(s) {
            return Err(format!("scheme '{s}' is named twice in --schemes (each scheme runs once; same seed, same results)"));
        }
    }
    check_schemes(&schemes).map_err(|e| e.to_string())?;
    // A RAIN scheme the device has no room for is refused here, before any run.
    for s in &schemes {
        host_capacity_bytes(device, s).map_err(|e| e.to_string())?;
    }
    let cap = device.host_bytes();
    let open = super::workload::record_input(workload.opener(device, cap)?, input_memory, &schemes);
    let specs = schemes.iter().map(|s| run.spec(device, s)).collect();
    Ok(ComparePlan { schemes, specs, open })
}

/// A scheme list has no empty name: `base,` or `base,,nogc` is a typo, reported where it is
/// (it read as "unknown scheme ''", and `,` alone as "scheme '' is named twice").
pub fn check_no_empty_scheme(schemes: &[String]) -> Result<(), String> {
    match schemes.iter().position(|s| s.trim().is_empty()) {
        Some(i) => Err(format!(
            "--schemes has an empty name at position {} of {} (an empty list, or a doubled or trailing comma?)",
            i + 1,
            schemes.len()
        )),
        None => Ok(()),
    }
}

/// Runs a plan: every scheme in parallel, each polling its `progress` entry (if any) and
/// stopping at its next request once `cancel` is set. A bad or empty workload fails every
/// scheme alike and is reported once, as the workload's fault; otherwise the first failed
/// scheme is named.
pub fn compare(plan: &ComparePlan, progress: &[Arc<Progress>], cancel: &Cancel) -> Result<CompareOutcome, String> {
    let open = || plan.open.as_ref()().map(|s| Box::new(CancelSource::new(s, cancel.clone())) as Box<dyn crate::RequestSource + Send>);
    let wall = std::time::Instant::now();
    let results = run_many(&plan.specs, open, progress);
    let wall_seconds = wall.elapsed().as_secs_f64();
    if cancel.is_cancelled() {
        return Err(super::cancel::CANCELLED.to_string());
    }
    if let Some(e) = results.iter().find_map(|r| r.as_ref().err().filter(|e| e.is_workload())) {
        return Err(e.to_string());
    }
    let mut reports = Vec::with_capacity(results.len());
    for (s, r) in plan.schemes.iter().zip(results) {
        reports.push(r.map_err(|e| format!("scheme {s}: {e}"))?);
    }
    // A scheme that collected nothing while others did postponed its work past the end.
    crate::report::flag_postponed_gc(&mut reports);
    Ok(CompareOutcome { schemes: plan.schemes.clone(), reports, wall_seconds })
}

/// `n` with the singular or plural noun: "1 scheme", "14 schemes".
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What `summary.json` and `report.html` say about a comparison (`flashtail compare`'s
/// meta): title, workload (`workload` is its description), device, provenance notes and
/// the full configuration; `set` is the device overrides as given.
pub fn compare_meta(dev: &DeviceConfig, workload: &str, o: &CompareOutcome, run: &RunSettings, set: &[String]) -> CompareMeta {
    let first = &o.reports[0];
    let mut notes: Vec<(String, String)> = first.workload_notes.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    notes.push(("device_source".into(), dev.source.clone()));
    notes.push(("seed".into(), run.seed.to_string()));
    if let Some(cl) = &run.closed_loop {
        notes.push(("host_interface".into(), cl.describe()));
    }
    notes.push(("wall_seconds_all_schemes".into(), format!("{:.2}", o.wall_seconds)));
    CompareMeta {
        title: format!("flashtail: {} on {}", plural(o.schemes.len(), "GC scheme", "GC schemes"), dev.name),
        workload: format!("{workload} ({})", first.workload),
        device: format!("{} — {}", dev.name, dev.description),
        notes,
        config: serde_json::json!({
            "device": dev,
            "schemes": &o.schemes,
            "victim": &run.victim,
            "seed": run.seed,
            "oracle": run.oracle,
            "device_overrides": set,
        }),
    }
}

/// Leaves wall time, memory and speed out (zeroed) so identical inputs and seed give
/// byte-identical files (`--no-cost`).
pub fn strip_cost(meta: &mut CompareMeta, reports: &mut [RunReport]) {
    for r in reports {
        r.cost.strip_machine();
    }
    meta.notes.retain(|(k, _)| k != "wall_seconds_all_schemes");
}
