//! Transfers over the Venice mesh (`interconnect/mesh/`) instead of the channel buses:
//! when a transaction reaches a transfer phase, its unit reserves a path to its chip; the
//! path is held for the transfer and released at its end, and units that found no path
//! wait and retry whenever a path is released.
//!
//! Timing: a path costs its scout's walk (every router-to-router move, misroutes and
//! backoffs included), the scout's return along the reserved path, and the data's pipeline
//! fill, one `interconnect.hop_ns` per hop each; the data then moves at the channel rate.
//! Flash array time holds no path (Venice §4).
//!
//! Who goes first (Venice paper): Venice is fair, so waiting units retry in arrival order and
//! GC transfers enter through the host controllers' ports like any other. With GC bypass,
//! GC transfers enter through the GC controller's own ports; host I/O, GC reads and erase
//! commands are high priority, GC write-back (the transfer into the destination page) is
//! low; a high-priority scout may take over a low-priority path, whose transfer is then
//! dropped and redone in full once it re-reserves (its data waits in the GC controller's
//! cache). Waiting units retry high priority first. While a write-back waits for its path
//! (it found none, or lost it), the page sits in the GC controller's cache and its plane is
//! not held: the GC copy is parked on its unit (`Unit::parked`, as a suspended program is)
//! and host reads run; the plane's next GC step waits for the write-back. Parking is a
//! setting (`interconnect.gc_bypass_parking`; off, the write-back waits holding its plane),
//! and the cache holds at most `interconnect.gc_cache_pages` parked pages (0: one per unit).
//!
//! Does not do: transfer chaining (`phases.rs`; on the mesh every transfer end is an
//! event). On plain Venice a GC copy holds its plane while its transfers wait, as on the bus.

use super::Simulation;
use crate::interconnect::mesh::{Entry, Mesh, MeshConfig, Prio, ScoutFail};
use crate::interconnect::{Interconnect, InterconnectConfig};
use crate::nand::Geometry;
use crate::scheduler::unit::{IDLE, PARKED_WRITE_BACK};
use crate::scheduler::{Cause, TxnKind};
use crate::units::{Nanos, PlaneId};
use std::collections::BTreeMap;

/// Transfer phase of a GC copy that writes the migrated page back (tR, out, ECC, *in*, tPROG).
const GC_WRITE_BACK_PHASE: u8 = 3;

/// The mesh and the engine's bookkeeping around it.
pub(super) struct MeshPaths {
    net: Mesh,
    bypass: bool,
    /// GC bypass parks waiting write-backs (`interconnect.gc_bypass_parking`).
    parking: bool,
    /// Most write-backs parked at once (`interconnect.gc_cache_pages`; `u32::MAX`: no bound).
    cache_pages: u32,
    /// Write-backs parked now.
    parked_now: u32,
    hop_ns: u64,
    /// Chip of each unit.
    chip_of_unit: Vec<u32>,
    /// Transfers waiting for a path: (class, arrival sequence, unit, transaction); class 0
    /// before 1. A unit with a parked write-back may also wait for a read's transfer.
    waiters: Vec<(u8, u64, u32, u32)>,
    /// An empty list to swap `waiters` with while they retry (`mesh_transfer_done`).
    spare_waiters: Vec<(u8, u64, u32, u32)>,
    /// When each unit's current transfer took its path (for the time a preemption wastes).
    since: Vec<Nanos>,
    /// Whether each unit has already been counted as failing its first try this transfer.
    retried: Vec<bool>,
    c: MeshCounters,
}

#[derive(Default)]
struct MeshCounters {
    transfers: u64,
    first_try: u64,
    scouts: u64,
    failed_tries: u64,
    chip_busy: u64,
    no_port: u64,
    hops: u64,
    moves: u64,
    misroutes: u64,
    backoffs: u64,
    preemptions: u64,
    preempted_ns: u64,
    parked_write_backs: u64,
    /// Write-backs that waited holding their plane because the GC controller's cache was full.
    cache_full: u64,
    /// Most write-backs parked at once (the GC controller's cache's peak occupancy).
    max_parked: u64,
    setup_ns: u64,
    path_wait_ns: u64,
    max_waiters: u64,
}

impl MeshPaths {
    /// The mesh for `geo` (a column per channel, a row per chip of a channel), or `None`
    /// for the shared bus.
    pub(super) fn new(kind: Interconnect, geo: &Geometry, cfg: &InterconnectConfig, seed: u64, unit_planes: &[u32]) -> Result<Option<MeshPaths>, String> {
        let bypass = match kind {
            Interconnect::Bus => return Ok(None),
            Interconnect::Venice => false,
            Interconnect::GcBypass => true,
        };
        let cols = geo.channels;
        let net = Mesh::new(&MeshConfig {
            rows: geo.chips_per_channel,
            cols,
            io_ports: InterconnectConfig::ports(cfg.io_ports, cols),
            gc_ports: if bypass { InterconnectConfig::ports(cfg.gc_ports, cols) } else { 0 },
            max_visits: cfg.max_visits,
            seed,
        })?;
        let units = unit_planes.len();
        Ok(Some(MeshPaths {
            net,
            bypass,
            parking: cfg.gc_bypass_parking,
            cache_pages: if cfg.gc_cache_pages == 0 { u32::MAX } else { cfg.gc_cache_pages },
            parked_now: 0,
            hop_ns: cfg.hop_ns,
            chip_of_unit: unit_planes.iter().map(|&p| geo.chip_of(PlaneId(p))).collect(),
            waiters: Vec::new(),
            spare_waiters: Vec::new(),
            since: vec![Nanos::ZERO; units],
            retried: vec![false; units],
            c: MeshCounters::default(),
        }))
    }

    /// Counters for the report's `flash.extra` (prefixed `mesh_`).
    pub(super) fn report(&self, extra: &mut BTreeMap<String, u64>) {
        let c = &self.c;
        for (k, v) in [
            ("transfers", c.transfers),
            ("first_try_paths", c.first_try),
            ("scouts", c.scouts),
            ("failed_tries", c.failed_tries),
            ("failed_chip_busy", c.chip_busy),
            ("failed_no_port", c.no_port),
            ("path_hops", c.hops),
            ("scout_moves", c.moves),
            ("misroutes", c.misroutes),
            ("backoffs", c.backoffs),
            ("preemptions", c.preemptions),
            ("preempted_transfer_ns", c.preempted_ns),
            ("parked_write_backs", c.parked_write_backs),
            ("cache_full_write_backs", c.cache_full),
            ("max_parked_write_backs", c.max_parked),
            ("path_setup_ns", c.setup_ns),
            ("path_wait_ns", c.path_wait_ns),
            ("max_waiting_units", c.max_waiters),
        ] {
            extra.insert(format!("mesh_{k}"), v);
        }
    }

    /// A power cut (`power_cut`): every path held is released and every unit waiting for one
    /// forgets it; the routers' reservations are volatile (router state, not flash), and the transfers they served are abandoned with their
    /// transactions. The counters and the scouts' random stream carry on.
    pub(super) fn power_cut(&mut self) {
        for u in 0..self.since.len() as u32 {
            self.net.release(u);
        }
        debug_assert_eq!(self.net.held_links(), 0, "every path belongs to a unit");
        self.waiters.clear();
        self.parked_now = 0;
        self.since.fill(Nanos::ZERO);
        self.retried.fill(false);
    }

    /// Nothing may hold or wait for a path once every transaction is done.
    pub(super) fn check_idle(&self) -> Result<(), String> {
        self.net.check()?;
        if self.net.held_links() != 0 || !self.waiters.is_empty() {
            return Err(format!("mesh: {} links held and {} units waiting after the run", self.net.held_links(), self.waiters.len()));
        }
        Ok(())
    }
}

impl Simulation {
    /// Unit `u` (transaction `t`) reached transfer phase `i`: reserve a path and start the
    /// transfer, or wait for one. (Out of line and cold, like `mesh_transfer_done`: the bus
    /// runs' hot phase code must not grow with it.)
    #[cold]
    #[inline(never)]
    pub(super) fn mesh_transfer(&mut self, u: u32, t: u32, i: u8) {
        let m = self.mesh.as_mut().expect("mesh");
        m.retried[u as usize] = false;
        if !self.mesh_try(u, t, i) {
            // Waiting order: on Venice everyone alike (arrival order); with GC bypass high
            // priority (class 0) first.
            let low = self.mesh_kind(t, i).1 == Prio::Low;
            self.mesh_wait(u, t, u8::from(low));
            if low {
                self.try_park_write_back(u, t);
            }
        }
    }

    /// Unit `u` (transaction `t`) waits for a path.
    fn mesh_wait(&mut self, u: u32, t: u32, class: u8) {
        let seq = self.next_seq();
        let m = self.mesh.as_mut().expect("mesh");
        m.waiters.push((class, seq, u, t));
        m.c.max_waiters = m.c.max_waiters.max(m.waiters.len() as u64);
        self.txns[t as usize].chan_wait_start = self.now;
        self.units[u as usize].phase_end = Nanos::MAX;
    }

    /// GC bypass: GC copy `t`'s write-back waits for a path in the GC controller's cache
    /// and its unit serves reads meanwhile (module doc), when parking is on and the cache
    /// has room; otherwise it waits holding its plane.
    fn try_park_write_back(&mut self, u: u32, t: u32) {
        let m = self.mesh.as_mut().expect("mesh");
        if !m.parking {
            return;
        }
        if m.parked_now >= m.cache_pages {
            m.c.cache_full += 1;
            return;
        }
        m.parked_now += 1;
        m.c.max_parked = m.c.max_parked.max(u64::from(m.parked_now));
        let unit = &mut self.units[u as usize];
        debug_assert_eq!(unit.running, t);
        assert!(unit.parked.is_none(), "a unit running a GC copy has nothing parked");
        unit.vacate(self.now);
        unit.parked = Some((t, PARKED_WRITE_BACK));
        self.mesh.as_mut().expect("mesh").c.parked_write_backs += 1;
        if !self.units[u as usize].reads.is_empty() {
            self.dispatch(u);
        }
    }

    /// Parked write-back `t` of unit `u` got its path: the unit runs it again.
    fn unpark_write_back(&mut self, u: u32, t: u32) {
        let unit = &mut self.units[u as usize];
        assert_eq!(unit.parked, Some((t, PARKED_WRITE_BACK)));
        unit.parked = None;
        let m = self.mesh.as_mut().expect("mesh");
        m.parked_now -= 1;
        unit.occupy(t, Cause::GcCopy, self.now);
    }

    /// Unit `u` has no read left and its write-back `t` is parked: try for a path now.
    pub(super) fn mesh_resume_write_back(&mut self, u: u32, t: u32) {
        let i = self.txns[t as usize].phase;
        if self.mesh_try(u, t, i) {
            self.unpark_write_back(u, t);
            self.mesh.as_mut().expect("mesh").waiters.retain(|&(_, _, w, x)| (w, x) != (u, t));
        }
    }

    /// The entry kind and priority of transfer phase `i` of transaction `t` (GC bypass).
    fn mesh_kind(&self, t: u32, i: u8) -> (Entry, Prio) {
        let m = self.mesh.as_ref().expect("mesh");
        let txn = &self.txns[t as usize];
        if !m.bypass || !txn.is_gc() {
            return (Entry::Io, Prio::High);
        }
        let write_back = txn.kind == TxnKind::GcCopy && i == GC_WRITE_BACK_PHASE;
        (Entry::Gc, if write_back { Prio::Low } else { Prio::High })
    }

    /// Try to reserve unit `u`'s path; on success start the transfer (its end is an event).
    fn mesh_try(&mut self, u: u32, t: u32, i: u8) -> bool {
        let (entry, prio) = self.mesh_kind(t, i);
        let m = self.mesh.as_mut().expect("mesh");
        let chip = m.chip_of_unit[u as usize];
        let first = !m.retried[u as usize];
        match m.net.reserve(u, chip, entry, prio, m.bypass) {
            Ok(r) => {
                let c = &mut m.c;
                c.transfers += 1;
                c.first_try += u64::from(first && r.scouts == 1);
                c.scouts += u64::from(r.scouts);
                c.failed_tries += u64::from(r.scouts - 1);
                c.hops += u64::from(r.hops);
                c.moves += u64::from(r.moves);
                c.misroutes += u64::from(r.misroutes);
                c.backoffs += u64::from(r.backoffs);
                // Scout out (every move, plus the port link), back along the path, and the
                // data's pipeline fill (module doc).
                let setup = Nanos(m.hop_ns * (u64::from(r.moves) + 1 + 2 * (u64::from(r.hops) + 1)));
                c.setup_ns += setup.0;
                m.since[u as usize] = self.now;
                for v in r.preempted {
                    self.mesh_preempted(v);
                }
                let dur = self.txns[t as usize].step_at(i, &self.costs).dur();
                self.schedule_unit(u, self.now + setup + dur);
                true
            }
            Err(e) => {
                let c = &mut m.c;
                match e {
                    ScoutFail::ChipBusy => c.chip_busy += 1,
                    ScoutFail::NoPort => c.no_port += 1,
                    ScoutFail::Unwound { scouts } => {
                        c.scouts += u64::from(scouts);
                        c.failed_tries += u64::from(scouts);
                    }
                }
                m.retried[u as usize] = true;
                false
            }
        }
    }

    /// A high-priority scout took unit `v`'s low-priority path (GC bypass): its write-back
    /// is dropped (its pending event goes stale), parked, and waits to re-reserve.
    fn mesh_preempted(&mut self, v: u32) {
        let t = self.units[v as usize].running;
        let i = self.txns[t as usize].phase;
        assert!(self.txns[t as usize].step_at(i, &self.costs).xfer(), "a preempted unit is in a transfer");
        let m = self.mesh.as_mut().expect("mesh");
        m.c.preemptions += 1;
        m.c.preempted_ns += (self.now - m.since[v as usize]).0;
        m.retried[v as usize] = true;
        self.units[v as usize].ev_seq = u64::MAX;
        self.mesh_wait(v, t, 1);
        self.try_park_write_back(v, t);
    }

    /// Unit `u`'s transfer of `dur` ended: release its path and let the waiting units retry.
    #[cold]
    #[inline(never)]
    pub(super) fn mesh_transfer_done(&mut self, u: u32, gc: bool, dur: Nanos) {
        self.c.chan_ns[usize::from(gc)] += dur.0;
        let m = self.mesh.as_mut().expect("mesh");
        m.net.release(u);
        if m.waiters.is_empty() {
            return;
        }
        // The list is swapped with a spare, not taken, so neither reallocates per release.
        let mut list = std::mem::take(&mut m.spare_waiters);
        std::mem::swap(&mut list, &mut m.waiters);
        list.sort_unstable();
        for &(class, seq, w, t) in &list {
            let unit = &self.units[w as usize];
            let parked = unit.parked == Some((t, PARKED_WRITE_BACK));
            assert!(parked || unit.running == t, "a waiting transfer is running or parked");
            // A parked write-back's unit may be serving a read (and hold that read's path):
            // the write-back retries when the read ends.
            let ready = !parked || unit.running == IDLE;
            let i = self.txns[t as usize].phase;
            if ready && self.mesh_try(w, t, i) {
                if parked {
                    self.unpark_write_back(w, t);
                }
                let waited = self.channel_waited(t);
                self.mesh.as_mut().expect("mesh").c.path_wait_ns += waited;
            } else {
                self.mesh.as_mut().expect("mesh").waiters.push((class, seq, w, t));
            }
        }
        list.clear();
        self.mesh.as_mut().expect("mesh").spare_waiters = list;
    }
}
