//! The simulation: a discrete-event engine that replays host requests on the device and
//! reports per-request latency.
//!
//! Models: request splitting into pages, allocation and mapping at arrival, per-unit
//! queues with priorities, channel contention, GC work granted by the scheme, an optional
//! DRAM write buffer, free-space stalls, the integrity oracle and wait attribution.
//! Power loss is audited (`power_loss_every`: at chosen instants the engine works out what a
//! recovery would find and checks it against what the host was told, and goes on as if power
//! had held) or enacted (`power_cut_at`: the same check, then the volatile state is lost, the
//! FTL is rebuilt from what survives, the device is unavailable for the recovery's spare-area
//! scan, and the run goes on from the recovered state; `power_loss`).
//! Requests enter the device at their arrival (open loop) or, with `closed_loop`, when a
//! slot of their NVMe submission queue frees (`host::closed_loop`).
//! Does not model: recovery from checkpoints (a recovery scans every programmed page).

mod engine;
pub mod failure;
pub mod oracle;
pub mod power_loss;
pub(crate) mod requests;

pub use engine::{SharedStart, Simulation, StartKey, StartState};

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use crate::stats::LatencyMode;
pub use failure::{Failure, FailurePlan};

/// Knobs of one run that are not part of the device or the scheme.
#[derive(Clone, Debug)]
pub struct SimOptions {
    pub seed: u64,
    /// Integrity oracle (on by default; costs 8 bytes per page of memory).
    pub oracle: bool,
    /// Run the full map/counter consistency check every N requests (0 = only at the end).
    pub check_every: u64,
    /// Live progress for a progress bar.
    pub progress: Option<Arc<Progress>>,
    /// How latencies are kept: every sample (exact percentiles) or bounded memory with an
    /// exact tail (see `stats::latency`).
    pub latency: LatencyMode,
    /// Chain back-to-back transfers and the phase after them into one event (see the
    /// engine's `phases` module; on by default). Off: one event per phase end, the
    /// reference the chained engine is tested against.
    pub chain_transfers: bool,
    /// Audit a power loss just before every N-th request (0 = never): check that recovery
    /// from flash and capacitor-backed memory would find every acknowledged write
    /// (`power_loss`). Needs the oracle; each audit reads the whole device's spare areas.
    pub power_loss_every: u64,
    /// Cut power after each of these request counts (empty = never): just before the next
    /// request arrives, the engine checks what survives as an audit does, then drops every
    /// volatile state, rebuilds the FTL from flash, is unavailable for the recovery scan, and
    /// goes on; the host sends every request that had not completed again (the engine's
    /// `power_cut`). Needs the oracle; not for ttFlash's stripe buffer, content tracking or
    /// the DRAM buffer (`sim::power_loss::refusal`).
    pub power_cut_at: Vec<u64>,
    /// The pages the replay touches (`ftl::footprint`), for preconditioning models that
    /// write them first (`workload`, `aged`); without it they fill the logical space at
    /// random. `runner::scan_footprint` finds it from a fresh copy of the input.
    pub footprint: Option<Arc<crate::ftl::footprint::Footprint>>,
    /// Dies and planes that fail during the run, and how the engine answers (`failure`; the
    /// engine's `die_failure` and `reprotect`). Empty: none.
    pub failures: FailurePlan,
    /// The closed-loop host interface (`host::closed_loop`): at most queue depth × queues
    /// requests outstanding, each issued when a slot of its queue frees. `None`: open loop,
    /// every request enters the device at its arrival.
    pub closed_loop: Option<crate::host::ClosedLoop>,
}

impl Default for SimOptions {
    fn default() -> Self {
        SimOptions {
            seed: 1,
            oracle: true,
            check_every: 0,
            progress: None,
            latency: LatencyMode::Exact,
            chain_transfers: true,
            power_loss_every: 0,
            power_cut_at: Vec::new(),
            footprint: None,
            failures: FailurePlan::default(),
            closed_loop: None,
        }
    }
}

/// Live counters a UI can poll while a run goes on.
#[derive(Debug, Default)]
pub struct Progress {
    pub requests_done: AtomicU64,
    pub sim_time_ns: AtomicU64,
    pub finished: AtomicU64,
}

impl Progress {
    pub fn requests(&self) -> u64 {
        self.requests_done.load(Ordering::Relaxed)
    }
    pub fn sim_time_ns(&self) -> u64 {
        self.sim_time_ns.load(Ordering::Relaxed)
    }
}

impl From<crate::host::SourceError> for SimError {
    fn from(e: crate::host::SourceError) -> Self {
        SimError::Source(e)
    }
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("invalid device: {0}")]
    Device(String),
    /// Not a `#[source]`: the message already carries it (no doubled text in error chains).
    #[error("workload: {0}")]
    Source(crate::host::SourceError),
    #[error("integrity oracle found {count} violations (stale or wrong reads, or acknowledged writes a power loss would lose); first: {first:?}")]
    Integrity { count: u64, first: Vec<String> },
    #[error("consistency check failed: {0}")]
    Invariant(String),
    #[error("simulation stalled: {0}")]
    Stalled(String),
    /// More host requests in flight than the engine tracks (over 4 million).
    #[error("device overloaded: {0}")]
    Overloaded(String),
    #[error("nothing to simulate: {0}")]
    Empty(String),
}
