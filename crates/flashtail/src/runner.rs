//! Running experiments: one scheme on one device and workload, or several schemes on the
//! same input in parallel (one core each, via rayon).
//!
//! Every scheme of a comparison sees an identical, freshly opened request stream and an
//! identically preconditioned device (same seed), so differences come from the schemes only.

use crate::config::DeviceConfig;
use crate::gc::build_scheme;
use crate::host::RequestSource;
use crate::sim::{Progress, SimError, SimOptions, Simulation};
use crate::stats::RunReport;
use rayon::prelude::*;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// What to run.
#[derive(Clone, Debug)]
pub struct RunSpec {
    pub device: DeviceConfig,
    pub scheme: String,
    /// Victim policy override (default: the scheme's own, greedy for the baselines).
    pub victim: Option<String>,
    /// Interconnect override (`bus`, `venice`, `gc-bypass`; default: the scheme's own).
    pub interconnect: Option<String>,
    pub seed: u64,
    pub oracle: bool,
    /// Audit a power loss after every N-th request (0 = never; `sim::power_loss`).
    pub power_loss_every: u64,
    /// Cut power after each of these request counts (empty = never; the engine's
    /// `power_cut`).
    pub power_cut_at: Vec<u64>,
    /// Latency recording: exact (every sample) or tail (bounded memory, exact from p99 up).
    pub latency: crate::stats::LatencyMode,
    /// Dies and planes that fail during the run (empty = none; `sim::failure`).
    pub failures: crate::sim::FailurePlan,
}

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
    let mut scheme = build_scheme(&spec.scheme, spec.victim.as_deref(), spec.seed).map_err(RunError::Config)?;
    if let Some(i) = &spec.interconnect {
        scheme.interconnect = crate::interconnect::Interconnect::parse(i).map_err(RunError::Config)?;
    }
    Ok(scheme)
}

/// Run one scheme.
pub fn run_one(spec: &RunSpec, src: &mut dyn RequestSource, progress: Option<Arc<Progress>>) -> Result<RunReport, RunError> {
    let scheme = spec_scheme(spec)?;
    let opts = SimOptions { seed: spec.seed, oracle: spec.oracle, check_every: 0, progress: progress.clone(), latency: spec.latency, power_loss_every: spec.power_loss_every, power_cut_at: spec.power_cut_at.clone(), failures: spec.failures.clone(), ..Default::default() };
    let sim = Simulation::new(spec.device.clone(), scheme, opts)?;
    let out = sim.run(src);
    if let Some(p) = progress {
        p.finished.store(1, Ordering::Relaxed);
    }
    Ok(out?)
}

/// Run several schemes on the same input in parallel. `open` makes a fresh copy of the input
/// for each run. Results come back in the order of `specs`.
pub fn run_many<F>(specs: &[RunSpec], open: F, progress: &[Arc<Progress>]) -> Vec<Result<RunReport, RunError>>
where
    F: Fn() -> Result<Box<dyn RequestSource + Send>, String> + Sync,
{
    specs
        .par_iter()
        .enumerate()
        .map(|(i, spec)| {
            let mut src = open().map_err(RunError::Input)?;
            run_one(spec, &mut *src, progress.get(i).cloned())
        })
        .collect()
}

/// Bytes of logical space the host may address under a scheme on a device: the device's
/// logical capacity, less the parity share when the scheme keeps RAIN parity.
pub fn host_capacity_bytes(dev: &DeviceConfig, scheme: &str) -> Result<u64, RunError> {
    let s = build_scheme(scheme, None, 0).map_err(RunError::Config)?;
    let pages = if s.rain {
        // The channel check first: with one or two channels the parity share leaves no or
        // half the capacity, and a generated workload failed on its span instead.
        crate::ftl::rain::Rain::new(&dev.geometry, 0).map_err(|e| RunError::Config(format!("scheme {scheme}: invalid device: {e}")))?;
        crate::ftl::rain::Rain::data_capacity(dev.logical_pages(), dev.geometry.channels)
    } else {
        dev.logical_pages()
    };
    Ok(pages as u64 * dev.geometry.page_size as u64)
}

/// Check every scheme name before any run starts (so a typo fails in a millisecond).
pub fn check_schemes(names: &[String]) -> Result<(), RunError> {
    for n in names {
        build_scheme(n, None, 0).map_err(RunError::Config)?;
    }
    Ok(())
}
