//! The state a run starts from: the device's FTL (maps, validity, block table) and the
//! integrity oracle after preconditioning and, for an aged device, settling. It depends on
//! the device, the seed, the replay's footprint, whether the scheme keeps RAIN parity (the
//! parity stripes are part of the fill) and whether the oracle is on, and on nothing else
//! of the scheme; so `runner::run_many` builds it once per distinct [`StartKey`] and hands
//! each scheme of that input a copy ([`SharedStart`]), instead of every scheme
//! preconditioning its own identical device. A run from a copy is byte-for-byte the run
//! that preconditioned its own (`tests/shared_start.rs`).
//!
//! Not part of it: what a scheme adds on top (the content-aware schemes' tables and their
//! fingerprinted fill, `content_path`; RAIN's stripe epochs and parity signatures,
//! `parity_repair`; power-loss and failure bookkeeping): each simulation builds those from
//! its copy, as it did from its own preconditioning.

use super::settle::settle;
use crate::config::DeviceConfig;
use crate::ftl::footprint::Footprint;
use crate::ftl::precondition::{precondition, PreconditionSummary};
use crate::ftl::rain::Rain;
use crate::ftl::Ftl;
use crate::sim::oracle::Oracle;
use crate::sim::SimOptions;
use crate::units::Lpn;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Everything the starting state depends on. Two runs with equal keys start from
/// identical states.
#[derive(Clone, Debug)]
pub struct StartKey {
    dev: DeviceConfig,
    seed: u64,
    oracle: bool,
    rain: bool,
    /// Compared by identity: `run_many` gives every run of a device the same scan.
    footprint: Option<Arc<Footprint>>,
}

impl StartKey {
    /// The key of a run of a scheme (keeping RAIN parity or not) on `dev` with `opts`.
    pub fn new(dev: &DeviceConfig, rain: bool, opts: &SimOptions) -> StartKey {
        StartKey { dev: dev.clone(), seed: opts.seed, oracle: opts.oracle, rain, footprint: opts.footprint.clone() }
    }
}

impl PartialEq for StartKey {
    fn eq(&self, o: &StartKey) -> bool {
        let same_footprint = match (&self.footprint, &o.footprint) {
            (None, None) => true,
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        };
        self.seed == o.seed && self.oracle == o.oracle && self.rain == o.rain && same_footprint && self.dev == o.dev
    }
}

/// A preconditioned (and settled) device, ready to start a run from.
pub struct StartState {
    pub(super) key: StartKey,
    pub(super) ftl: Ftl,
    pub(super) oracle: Oracle,
    pub(super) precond: PreconditionSummary,
    /// Seconds building the state took, and copying it for this run (`precondition_seconds`
    /// in the run's cost: what preconditioning this run's device took, shared or not).
    pub(super) secs: f64,
    /// The settling's outcome (an aged device; `settle`), reported where a simulation that
    /// builds its own state reports it: after the device checks that come before it.
    pub(super) settled: Result<(), String>,
}

impl StartState {
    /// Precondition `dev` as a run of `key` does (the RAIN layout `rain`, when the key's
    /// scheme keeps parity), then settle an aged device. An error is preconditioning's.
    pub(super) fn build(key: StartKey, rain: Option<&Rain>) -> Result<StartState, String> {
        let t0 = Instant::now();
        let dev = &key.dev;
        let geo = &dev.geometry;
        let (data_pages, slots) = match rain {
            Some(r) => (r.data_pages, r.data_pages + r.stripes),
            None => (dev.host_pages(), dev.host_pages()),
        };
        let mut ftl = Ftl::with_versions(geo, data_pages, slots, key.oracle);
        let mut oracle = Oracle::new(key.oracle, &ftl.l2p, geo.total_pages());
        let place = |id: u32| match rain {
            Some(r) => r.plane_of(id),
            None => geo.static_plane(Lpn(id)),
        };
        let mut precond = precondition(&mut ftl, dev, key.seed, &place, rain, key.footprint.as_deref())?;
        oracle.preload_valid(ftl.valid_bits());
        let settled = settle(dev, &mut ftl, &mut oracle, &mut precond);
        let secs = t0.elapsed().as_secs_f64();
        Ok(StartState { key, ftl, oracle, precond, secs, settled })
    }

    /// A copy for another run of the same key.
    fn duplicate(&self) -> StartState {
        let t0 = Instant::now();
        let ftl = self.ftl.duplicate();
        let oracle = self.oracle.duplicate();
        StartState {
            key: self.key.clone(),
            ftl,
            oracle,
            precond: self.precond.clone(),
            secs: self.secs + t0.elapsed().as_secs_f64(),
            settled: self.settled.clone(),
        }
    }
}

/// One starting state shared by `users` runs: each takes a copy, and the last takes the
/// state itself, so it is dropped as soon as every run has started (memory: the runs in
/// flight, plus this one state while any of its runs is still to start).
pub struct SharedStart {
    slot: Mutex<(Option<Arc<StartState>>, usize)>,
}

impl SharedStart {
    /// Precondition once for `users` runs of `key`; `None` when preconditioning fails
    /// (each run then builds its own state and reports the error as it always did).
    pub fn build(key: StartKey, users: usize) -> Option<SharedStart> {
        let rain = if key.rain { Some(Rain::new(&key.dev.geometry, key.dev.host_pages()).ok()?) } else { None };
        let state = StartState::build(key, rain.as_ref()).ok()?;
        Some(SharedStart { slot: Mutex::new((Some(Arc::new(state)), users)) })
    }

    /// This run's copy (the state itself for the last of its runs). `None` once every run
    /// took its copy.
    pub fn take(&self) -> Option<StartState> {
        let state = {
            let mut slot = self.slot.lock().unwrap_or_else(|e| e.into_inner());
            slot.1 = slot.1.saturating_sub(1);
            if slot.1 == 0 { slot.0.take()? } else { Arc::clone(slot.0.as_ref()?) }
        };
        // Copy outside the lock, so runs copy in parallel; the last run finds the others'
        // copies done or under way, and moves the state when it is the only holder left.
        Some(Arc::try_unwrap(state).unwrap_or_else(|s| s.duplicate()))
    }
}
