//! Running experiments: one scheme on one device and workload, or several schemes on the
//! same input in parallel (one core each, via rayon).
//!
//! Every scheme of a comparison sees an identical, freshly opened request stream and an
//! identically preconditioned device (same seed), so differences come from the schemes only.
//! The device is preconditioned once per distinct starting state and copied into each run
//! of it (`run_many`, `sim::SharedStart`), not once per run.
//! What a run is (`RunSpec`, and the `RunSettings` a comparison's runs share) is `spec.rs`.

use crate::config::{DeviceConfig, FootprintFill, Precondition};
use crate::ftl::footprint::Footprint;
use crate::gc::build_scheme;
use crate::host::RequestSource;
use crate::sim::{Progress, SharedStart, SimError, SimOptions, Simulation, StartKey};
use crate::stats::RunReport;
use rayon::prelude::*;
use std::sync::atomic::Ordering;
use std::sync::Arc;

mod spec;
pub use spec::{RunSettings, RunSpec};

/// Why a run could not be done.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{0}")]
    Config(String),
    #[error(transparent)]
    Sim(#[from] SimError),
    #[error("opening the workload: {0}")]
    Input(String),
}

impl RunError {
    /// Whether the workload, not the scheme, is at fault (unreadable, malformed or empty):
    /// every scheme of a comparison reads the same stream, so such an error is reported
    /// once, not once per scheme.
    pub fn is_workload(&self) -> bool {
        matches!(self, RunError::Input(_) | RunError::Sim(SimError::Source(_)) | RunError::Sim(SimError::Empty(_)))
    }
}

/// The scheme a spec runs: its name, victim policy and interconnect override.
pub fn spec_scheme(spec: &RunSpec) -> Result<crate::gc::Scheme, RunError> {
    let mut scheme = build_scheme(&spec.scheme, spec.settings.victim.as_deref(), spec.settings.seed).map_err(RunError::Config)?;
    if let Some(i) = &spec.settings.interconnect {
        scheme.interconnect = crate::interconnect::Interconnect::parse(i).map_err(RunError::Config)?;
    }
    Ok(scheme)
}

/// Run one scheme.
pub fn run_one(spec: &RunSpec, src: &mut dyn RequestSource, progress: Option<Arc<Progress>>) -> Result<RunReport, RunError> {
    run_from(spec, src, progress, None)
}

/// Run one scheme, from a copy of `start`'s preconditioned device when given one.
fn run_from(spec: &RunSpec, src: &mut dyn RequestSource, progress: Option<Arc<Progress>>, start: Option<&SharedStart>) -> Result<RunReport, RunError> {
    let scheme = spec_scheme(spec)?;
    crate::config::memory::check(&spec.device, &scheme, spec.settings.max_memory).map_err(RunError::Config)?;
    let opts = sim_options(spec, progress.clone());
    let sim = match start.and_then(SharedStart::take) {
        Some(s) => Simulation::from_start(spec.device.clone(), scheme, opts, s)?,
        None => Simulation::new(spec.device.clone(), scheme, opts)?,
    };
    let out = sim.run(src);
    if let Some(p) = progress {
        p.finished.store(1, Ordering::Relaxed);
    }
    Ok(out?)
}

/// The engine's options for a spec.
fn sim_options(spec: &RunSpec, progress: Option<Arc<Progress>>) -> SimOptions {
    SimOptions {
        seed: spec.settings.seed,
        oracle: spec.settings.oracle,
        check_every: 0,
        progress,
        latency: spec.settings.latency,
        power_loss_every: spec.settings.power_loss_every,
        power_cut_at: spec.settings.power_cut_at.clone(),
        footprint: spec.footprint.clone(),
        failures: spec.settings.failures.clone(),
        closed_loop: spec.settings.closed_loop,
        ..Default::default()
    }
}

/// What a spec's run starts from, or `None` when the run fails before preconditioning
/// (an unknown scheme, too little memory, an invalid device or parity layout): such a run
/// shares nothing and reports its error as it would alone.
fn start_key(spec: &RunSpec) -> Option<StartKey> {
    let scheme = spec_scheme(spec).ok()?;
    crate::config::memory::check(&spec.device, &scheme, spec.settings.max_memory).ok()?;
    let rain = Simulation::prepare(&spec.device, &scheme).ok()?;
    Some(StartKey::new(&spec.device, rain.is_some(), &sim_options(spec, None)))
}

/// Whether the device's preconditioning writes the replay's footprint first.
pub fn wants_footprint(dev: &DeviceConfig) -> bool {
    match &dev.precondition {
        Precondition::Workload { footprint, .. } => *footprint != FootprintFill::None,
        Precondition::Aged { .. } => true,
        Precondition::None | Precondition::Steady { .. } => false,
    }
}

/// The replay's footprint on `dev` (one pass over a fresh copy of the input), or `None`
/// when the device's preconditioning does not use one. `open` must fold addresses into the
/// device's host capacity, as the run's input does.
pub fn scan_footprint<F>(dev: &DeviceConfig, open: &F) -> Result<Option<Arc<Footprint>>, RunError>
where
    F: Fn() -> Result<Box<dyn RequestSource + Send>, String>,
{
    scan(dev, open).map_err(RunError::from)
}

/// The footprint as [`scan_footprint`] finds it, while `first` reads the start of the same
/// pass (as much of it as it likes: the plausibility checks' bounded scan), so the input is
/// read once for both. `first` runs on a fresh copy even when the device needs no
/// footprint, and returns whether to go on. A failing input, or `first` saying stop, gives
/// `None`: a run then scans again and reports the failure itself.
pub fn scan_footprint_with<F>(dev: &DeviceConfig, open: &F, first: impl FnOnce(&mut dyn RequestSource) -> bool) -> Option<Arc<Footprint>>
where
    F: Fn() -> Result<Box<dyn RequestSource + Send>, String>,
{
    let mut src = open().ok()?;
    if !wants_footprint(dev) {
        first(&mut *src);
        return None;
    }
    let page_size = dev.geometry.page_size;
    let mut f = Footprint::empty(dev.host_pages());
    let mut noting = crate::ftl::footprint::Noting { src: &mut *src, footprint: &mut f, page_size, failed: false };
    if !first(&mut noting) || noting.failed {
        return None;
    }
    f.scan_rest(&mut *src, page_size).ok()?;
    Some(Arc::new(f))
}

/// Why a footprint scan failed: the input did not open, or it is malformed (the same
/// errors its run would report, so each scheme's run can report them).
#[derive(Clone, Debug)]
enum ScanFail {
    Open(String),
    Source(crate::host::SourceError),
}

impl From<ScanFail> for RunError {
    fn from(f: ScanFail) -> RunError {
        match f {
            ScanFail::Open(e) => RunError::Input(e),
            ScanFail::Source(e) => RunError::Sim(SimError::Source(e)),
        }
    }
}

/// A footprint scan's outcome, kept per device by `run_many`.
type Scanned = Result<Option<Arc<Footprint>>, ScanFail>;

fn scan<F>(dev: &DeviceConfig, open: &F) -> Scanned
where
    F: Fn() -> Result<Box<dyn RequestSource + Send>, String>,
{
    if !wants_footprint(dev) {
        return Ok(None);
    }
    let mut src = open().map_err(ScanFail::Open)?;
    let f = Footprint::scan(&mut *src, dev.host_pages(), dev.geometry.page_size).map_err(ScanFail::Source)?;
    Ok(Some(Arc::new(f)))
}

/// Run one scheme on a freshly opened input, finding the footprint first when the device
/// asks for one and the spec has none.
pub fn run_opened<F>(spec: &RunSpec, open: &F, progress: Option<Arc<Progress>>) -> Result<RunReport, RunError>
where
    F: Fn() -> Result<Box<dyn RequestSource + Send>, String>,
{
    let mut spec = spec.clone();
    if spec.footprint.is_none() {
        spec.footprint = scan_footprint(&spec.device, open)?;
    }
    let mut src = open().map_err(RunError::Input)?;
    run_one(&spec, &mut *src, progress)
}

/// Whether `run_many` preconditions once per distinct starting state and copies it into
/// each run (`Shared`, the default), or lets every run precondition its own device
/// (`PerRun`, the reference the shared start is tested against). Results are the same
/// byte for byte; `Shared` saves each further run's preconditioning for one more copy of
/// the device's tables in memory while runs of that state are still to start.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum StartSharing {
    #[default]
    Shared,
    PerRun,
}

/// Run several schemes on the same input in parallel. `open` makes a fresh copy of the input
/// for each run. Results come back in the order of `specs`. The footprint is found once per
/// distinct device and shared, and so is the preconditioned device: once per distinct
/// starting state (device, seed, footprint, oracle, RAIN layout or not; `sim::StartKey`),
/// copied into each of its runs.
pub fn run_many<F>(specs: &[RunSpec], open: F, progress: &[Arc<Progress>]) -> Vec<Result<RunReport, RunError>>
where
    F: Fn() -> Result<Box<dyn RequestSource + Send>, String> + Sync,
{
    run_many_with(specs, open, progress, StartSharing::Shared)
}

/// `run_many` with the choice of sharing the preconditioned device or not.
///
/// Shared, the runs go by starting state, one state after the other: its runs in parallel
/// from copies, the state dropped once the last of them started (so memory holds one state
/// beside the runs in flight, not one per state). Runs that share their state with no
/// other (the only run of a state, or one that fails before preconditioning) build their
/// own, in parallel with the first state's runs.
pub fn run_many_with<F>(specs: &[RunSpec], open: F, progress: &[Arc<Progress>], sharing: StartSharing) -> Vec<Result<RunReport, RunError>>
where
    F: Fn() -> Result<Box<dyn RequestSource + Send>, String> + Sync,
{
    let mut specs = specs.to_vec();
    let mut scanned: Vec<(DeviceConfig, Scanned)> = Vec::new();
    let mut failed: Vec<Option<ScanFail>> = vec![None; specs.len()];
    for (i, spec) in specs.iter_mut().enumerate() {
        if spec.footprint.is_some() || !wants_footprint(&spec.device) {
            continue;
        }
        let k = match scanned.iter().position(|(d, _)| *d == spec.device) {
            Some(k) => k,
            None => {
                scanned.push((spec.device.clone(), scan(&spec.device, &open)));
                scanned.len() - 1
            }
        };
        match &scanned[k].1 {
            Ok(f) => spec.footprint = f.clone(),
            Err(e) => failed[i] = Some(e.clone()),
        }
    }
    // Each run's starting state; `None`: it builds its own (a failed scan or check, or
    // sharing off).
    let keys: Vec<Option<StartKey>> =
        specs.iter().enumerate().map(|(i, spec)| if failed[i].is_some() || sharing == StartSharing::PerRun { None } else { start_key(spec) }).collect();
    let users = |k: &StartKey| keys.iter().filter(|x| x.as_ref() == Some(k)).count();
    // One batch per state that two or more runs share, in order of first appearance; the
    // runs that build their own state join the first batch (they hold no shared state, so
    // they add no memory to it).
    let mut batches: Vec<(Option<StartKey>, Vec<usize>)> = Vec::new();
    let mut solo = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        match k.as_ref().filter(|k| users(k) > 1) {
            Some(k) => match batches.iter_mut().find(|(b, _)| b.as_ref() == Some(k)) {
                Some(b) => b.1.push(i),
                None => batches.push((Some(k.clone()), vec![i])),
            },
            None => solo.push(i),
        }
    }
    match batches.first_mut() {
        Some(first) => first.1.extend(solo),
        None => batches.push((None, solo)),
    }
    let mut results: Vec<Option<Result<RunReport, RunError>>> = (0..specs.len()).map(|_| None).collect();
    for (key, members) in batches {
        let start = key.as_ref().and_then(|k| SharedStart::build(k.clone(), users(k)));
        let done: Vec<(usize, Result<RunReport, RunError>)> = members
            .par_iter()
            .map(|&i| {
                let mine = start.as_ref().filter(|_| keys[i] == key);
                let r = match failed[i].clone() {
                    Some(e) => Err(e.into()),
                    None => open().map_err(RunError::Input).and_then(|mut src| run_from(&specs[i], &mut *src, progress.get(i).cloned(), mine)),
                };
                (i, r)
            })
            .collect();
        for (i, r) in done {
            results[i] = Some(r);
        }
    }
    results.into_iter().map(|r| r.expect("every run belongs to one group")).collect()
}

/// Bytes of logical space the host addresses on a device: the same under every scheme
/// (`DeviceConfig::host_pages`), so a scheme replays the same requests in `run` and in any
/// `compare` set. A RAIN scheme that does not fit the device is refused here, before any
/// input is opened (`DeviceConfig::rain_fits`).
pub fn host_capacity_bytes(dev: &DeviceConfig, scheme: &str) -> Result<u64, RunError> {
    let s = build_scheme(scheme, None, 0).map_err(RunError::Config)?;
    if s.rain {
        dev.rain_fits().map_err(|e| RunError::Config(format!("scheme {scheme}: invalid device: {e}")))?;
    }
    Ok(dev.host_bytes())
}

/// Check every scheme name before any run starts (so a typo fails in a millisecond).
pub fn check_schemes(names: &[String]) -> Result<(), RunError> {
    for n in names {
        build_scheme(n, None, 0).map_err(RunError::Config)?;
    }
    Ok(())
}
