//! What one run is: the device, the scheme, the replay's footprint, and the settings every
//! run of a comparison shares (`RunSettings`: victim policy and interconnect overrides,
//! seed, oracle, power-loss audits and cuts, latency recording, memory limit, failures,
//! host interface). Only the description; running it is `runner`'s, and how the workload
//! is read (`job::record_input`) is not part of a run.

use crate::config::DeviceConfig;
use crate::ftl::footprint::Footprint;
use std::sync::Arc;

/// How a run goes, whatever its device and scheme (the command line's `--victim`,
/// `--interconnect`, `--seed`, `--no-oracle`, `--power-loss-every`, `--power-cut-at`,
/// `--latency`, `--max-memory`, `--fail-die`/`--fail-plane`, `--closed-loop`). A comparison
/// runs each of its schemes with the same settings.
#[derive(Clone, Debug)]
pub struct RunSettings {
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
    /// Refuse the run when the device and scheme need more memory than this (bytes; 0: no
    /// limit; `None`: 80 % of the machine's available memory). See `config::memory`.
    pub max_memory: Option<u64>,
    /// Dies and planes that fail during the run (empty = none; `sim::failure`).
    pub failures: crate::sim::FailurePlan,
    /// The closed-loop host interface (`host::closed_loop`); `None`: open loop.
    pub closed_loop: Option<crate::host::ClosedLoop>,
}

impl Default for RunSettings {
    fn default() -> RunSettings {
        RunSettings {
            victim: None,
            interconnect: None,
            seed: 1,
            oracle: true,
            power_loss_every: 0,
            power_cut_at: Vec::new(),
            latency: crate::stats::LatencyMode::Exact,
            max_memory: None,
            failures: Default::default(),
            closed_loop: None,
        }
    }
}

impl RunSettings {
    /// The run of `scheme` on `device` with these settings (no footprint yet: `run_many`
    /// and `run_opened` find it when the device asks for one).
    pub fn spec(&self, device: &DeviceConfig, scheme: &str) -> RunSpec {
        RunSpec { device: device.clone(), scheme: scheme.to_string(), footprint: None, settings: self.clone() }
    }
}

/// What to run: one scheme on one device, with its settings.
#[derive(Clone, Debug)]
pub struct RunSpec {
    pub device: DeviceConfig,
    pub scheme: String,
    /// The replay's footprint for preconditioning (`scan_footprint`); `run_many` and
    /// `run_opened` find it when the device asks for one and it is not set.
    pub footprint: Option<Arc<Footprint>>,
    pub settings: RunSettings,
}
