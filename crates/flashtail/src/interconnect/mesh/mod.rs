//! The Venice chip interconnect (Nadig et al., ISCA 2023, arXiv 2305.07768)
//! and its GC-bypass extension (Nie et al., 2026).
//!
//! Models: a `rows` × `cols` 2D mesh of small routers, one beside each flash chip, whose
//! links are circuit-switched: before a transfer a *scout* reserves a whole path (controller
//! port link → mesh links → the target chip's link) for one owner, the data then moves over
//! it, and the owner releases it (Venice: path reservation). Scouts route fully adaptively:
//! minimal hops first, chosen pseudo-randomly among equals, then misrouting, then backing
//! off, at most `max_visits` arrivals per router, after which the scout unwinds and the
//! controller tries its next entry port (Venice: fully adaptive routing). GC bypass adds a
//! separate GC controller entering from the bottom edge, and two priorities: a high-priority
//! scout may take over resources held by low-priority (GC write-back) paths, which are then
//! released whole and must re-reserve later.
//!
//! Each scout breaks its ties with a stream of its own (the `n`-th scout of a run draws
//! from a generator seeded by the mesh's seed and `n`), so whether an earlier scout walked
//! changes nothing later. That lets `reserve` skip scouts that cannot succeed: when no
//! usable link leads from any usable port's router to the chip (a bit-parallel flood fill,
//! `Flood`), every scout would unwind, and the call fails at once with the same result.
//! In GC-heavy Venice and GC-bypass runs nearly every failed scout was such a walk (99.8 %
//! of them in `gc-bypass` on the default input), and they made 80 % of all scout moves.
//!
//! Does not model: flit-level timing or router buffering (a scout is resolved instantly at
//! the moment of the request; the engine turns `moves`/`hops` into latency), the scout's
//! return trip, link widths (each link is as wide as a baseline channel), or retries over
//! time (a failed reservation is reported and the engine decides when to try again).
//!
//! The parts, one file each: `topo.rs` the geometry and resource numbering (routers, links,
//! ports, neighbours); `bits.rs` the bit sets the link states and a walk's scratch are kept
//! in; `scout.rs` one scout's walk and the order in which a reservation tries its ports;
//! `flood.rs` the reachability test that skips scouts that cannot succeed; `hold.rs` who
//! holds which resource (commit, release, the link sets kept in step); `check.rs` the
//! invariant check. This file: the configuration, the results, the mesh's state and
//! `reserve`, which sends one scout after another.

mod bits;
mod check;
mod flood;
mod hold;
mod scout;
#[cfg(test)]
mod test_util;
#[cfg(test)]
mod tests;
mod topo;

use bits::Bits;
use flood::Flood;
use scout::{SplitMix64, Tally};
use topo::{Adj, Topo};

/// "Nobody": a free resource's holder, an idle owner's port.
const NONE: u32 = u32::MAX;

/// Shape of the mesh and its entry points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MeshConfig {
    /// Routers per column (= chips per channel).
    pub rows: u32,
    /// Routers per row (= channels).
    pub cols: u32,
    /// Host-I/O controller ports, spread over the top edge (row 0).
    pub io_ports: u32,
    /// GC-controller ports, spread over the bottom edge (row `rows - 1`); 0 = plain Venice,
    /// GC enters through the I/O ports.
    pub gc_ports: u32,
    /// Arrivals a scout may make at one router before it unwinds (3 in Venice).
    pub max_visits: u32,
    /// Seeds the scouts' tie-breaking choices.
    pub seed: u64,
}

/// Which controller starts the scout.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    Io,
    Gc,
}

/// GC bypass priorities: `High` = host I/O, GC page reads, erases; `Low` = GC write-back.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Prio {
    High,
    Low,
}

/// Whether a scout of `prio` may take resources held by low-priority owners: only a
/// high-priority scout, and only under GC bypass (`preempt`). High never preempts High.
fn takes_over(prio: Prio, preempt: bool) -> bool {
    preempt && prio == Prio::High
}

/// A successful reservation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reserved {
    /// Mesh links in the committed path (the port and chip links are not counted).
    pub hops: u32,
    /// Router-to-router moves of every scout of this call (misroutes and back-offs included;
    /// a failed scout's walk took time too).
    pub moves: u32,
    /// Non-minimal moves among `moves`.
    pub misroutes: u32,
    /// Back-off moves among `moves`.
    pub backoffs: u32,
    /// Scouts sent, i.e. ports tried (1 = the first try succeeded).
    pub scouts: u32,
    /// Low-priority owners whose paths this reservation took over (each listed once; each
    /// now holds nothing).
    pub preempted: Vec<u32>,
}

/// Why a reservation failed. Nothing is held afterwards in any case.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ScoutFail {
    /// Every port of the entry kind is held (and not preemptible).
    NoPort,
    /// The target chip's link is held (and not preemptible).
    ChipBusy,
    /// Every usable port's scout unwound.
    Unwound { scouts: u32 },
}

/// One owner's committed path (`port == NONE`: it holds nothing).
#[derive(Clone, Debug)]
struct OwnerPath {
    port: u32,
    prio: Prio,
    /// Routers from the entry router to the target, in walk order.
    routers: Vec<u32>,
}

/// The mesh's reservation state. See the module comment.
#[derive(Clone, Debug)]
pub struct Mesh {
    topo: Topo,
    max_visits: u32,
    /// Holder of each resource, `NONE` if free.
    holder: Vec<u32>,
    /// Resources currently held.
    held: usize,
    /// Committed paths, indexed by owner, grown on demand.
    paths: Vec<OwnerPath>,
    /// The current scout's tie-breaking stream, and what it is made from: the mesh's seed
    /// and the number of scouts sent before it (module doc).
    rng: SplitMix64,
    seed: u64,
    scouts: u64,
    /// Link masks for skipping scouts that cannot succeed (`None` above 64 routers, or
    /// when switched off: `set_pruning`).
    flood: Option<Flood>,
    /// Mesh links by state, one bit each (`holder` says the same per link): free, and held
    /// by a low-priority owner (preemptible by a high-priority GC-bypass scout). A scout's
    /// step tests bits instead of following each neighbour's holder to its owner's path.
    free: Bits,
    low: Bits,
    /// Per port kind (`Topo::kind_of_port`): ports free, and ports held by low-priority owners,
    /// so a reservation that can find no port fails without listing them.
    ports_free: [u32; 2],
    ports_low: [u32; 2],
    // Scratch of the current walk, kept between calls so reserve does not allocate. The
    // visit stamps mean "this walk" when equal to `gen`, so no clearing per walk; the bit
    // sets below are a few words and are cleared.
    gen: u32,
    visit_gen: Vec<u32>,
    visits: Vec<u32>,
    /// Routers the scout may not enter: at their visit limit, or dead (backed off from:
    /// no way on from there).
    blocked: Bits,
    /// Mesh links the current scout holds tentatively.
    tent: Bits,
    /// The scout's routers, entry first.
    stack: Vec<u32>,
    /// Resources of the path being committed or released (`resources_into`).
    resources: Vec<u32>,
    /// Usable ports of the current call: (needs preemption, distance, port).
    ports: Vec<(bool, u32, u32)>,
    /// Every port of each kind by (distance to the chip, index), per chip: `[Io, Gc]`,
    /// fixed by the topology, so a reservation filters instead of sorting.
    port_order: [Vec<Vec<(u32, u32)>>; 2],
    /// Per router: its neighbours and the links to them. Tabulated because a scout's every
    /// step looked them up, and computing them took a dozen integer divisions a step (most
    /// of a mesh run's time).
    adj: Vec<Adj>,
    /// Per router: (row, column).
    pos: Vec<(u32, u32)>,
}

impl Mesh {
    pub fn new(cfg: &MeshConfig) -> Result<Mesh, String> {
        if cfg.rows == 0 || cfg.cols == 0 {
            return Err(format!(
                "mesh rows and cols must be > 0 (got {} × {})",
                cfg.rows, cfg.cols
            ));
        }
        if cfg.io_ports == 0 {
            return Err("mesh io_ports must be > 0".to_string());
        }
        if cfg.max_visits == 0 {
            return Err("mesh max_visits must be > 0".to_string());
        }
        let (rows, cols) = (cfg.rows as u64, cfg.cols as u64);
        let routers = rows * cols;
        let mesh_links = rows * (cols - 1) + (rows - 1) * cols;
        let total = mesh_links + routers + cfg.io_ports as u64 + cfg.gc_ports as u64;
        // NONE must stay distinct from every resource id.
        if total >= NONE as u64 {
            return Err(format!("mesh too large: {} resources", total));
        }
        let topo = Topo {
            rows: cfg.rows,
            cols: cfg.cols,
            v0: (rows * (cols - 1)) as u32,
            chip0: mesh_links as u32,
            port0: (mesh_links + routers) as u32,
            io_ports: cfg.io_ports,
            gc_ports: cfg.gc_ports,
        };
        let n = routers as usize;
        let port_order = [Entry::Io, Entry::Gc].map(|entry| {
            (0..routers as u32)
                .map(|chip| {
                    let mut v: Vec<(u32, u32)> =
                        topo.ports_of(entry).map(|p| (topo.dist(topo.port_router(p), chip), p)).collect();
                    v.sort_unstable();
                    v
                })
                .collect()
        });
        let adj = (0..routers as u32).map(|k| Adj::of(&topo, k)).collect();
        let pos = (0..routers as u32).map(|k| (topo.row(k), topo.col(k))).collect();
        Ok(Mesh {
            adj,
            pos,
            port_order,
            topo,
            max_visits: cfg.max_visits,
            holder: vec![NONE; total as usize],
            held: 0,
            paths: Vec::new(),
            rng: SplitMix64(cfg.seed),
            seed: cfg.seed,
            scouts: 0,
            flood: Flood::new(&topo),
            gen: 0,
            free: Bits::ones(mesh_links as usize),
            low: Bits::zeros(mesh_links as usize),
            ports_free: [cfg.io_ports, cfg.gc_ports],
            ports_low: [0, 0],
            visit_gen: vec![0; n],
            visits: vec![0; n],
            blocked: Bits::zeros(n),
            tent: Bits::zeros(mesh_links as usize),
            stack: Vec::with_capacity(n),
            resources: Vec::with_capacity(n + 2),
            ports: Vec::with_capacity((cfg.io_ports + cfg.gc_ports) as usize),
        })
    }

    /// Chips (= routers) in the mesh.
    pub fn chips(&self) -> u32 {
        self.topo.routers()
    }

    /// Reserve a path for `owner` from a port of kind `entry` to `chip`. On success every
    /// resource of the path is held by `owner` until `release(owner)`; on failure nothing
    /// changes except the count of scouts sent (which picks the next scout's stream).
    ///
    /// Panics if `owner` already holds a path (one transfer per owner at a time) or `chip`
    /// is outside the mesh: both are engine bugs, not data errors.
    pub fn reserve(
        &mut self,
        owner: u32,
        chip: u32,
        entry: Entry,
        prio: Prio,
        preempt: bool,
    ) -> Result<Reserved, ScoutFail> {
        assert!(owner != NONE, "owner id {owner} is reserved");
        assert!(chip < self.chips(), "chip {chip} outside a {}-chip mesh", self.chips());
        assert!(!self.holds(owner), "owner {owner} already holds a path");
        // Most failed reservations find every port held: say so without listing the ports.
        let kind = self.topo.kind_of_entry(entry);
        let takeover = takes_over(prio, preempt);
        let usable_ports = self.ports_free[kind] + if takeover { self.ports_low[kind] } else { 0 };
        if usable_ports == 0 {
            return Err(ScoutFail::NoPort);
        }
        // A busy chip cannot take the transfer wherever the scout comes from: fail before
        // sending scouts that could only bounce.
        if self.usable(self.topo.chip_link(chip), prio, preempt).is_none() {
            return Err(ScoutFail::ChipBusy);
        }
        if let Some(f) = &self.flood {
            // Every scout would unwind (module doc): fail as they would, without walking.
            // A scout leaves from each usable port, as `order_ports` would list them.
            let starts = f.usable_port_routers(kind, takeover);
            if f.reach(chip, self.topo.rows, takeover, starts) & starts == 0 {
                self.scouts += u64::from(usable_ports);
                return Err(ScoutFail::Unwound { scouts: usable_ports });
            }
        }
        self.order_ports(chip, entry, prio, preempt);
        debug_assert!(!self.ports.is_empty(), "the port counters said a port is usable");
        let mut tally = Tally::default();
        for i in 0..self.ports.len() {
            let port = self.ports[i].2;
            let entry_router = self.topo.port_router(port);
            if self.walk(entry_router, chip, prio, preempt, &mut tally) {
                let hops = (self.stack.len() - 1) as u32;
                let preempted = self.commit(owner, port, prio, preempt);
                return Ok(Reserved {
                    hops,
                    moves: tally.moves,
                    misroutes: tally.misroutes,
                    backoffs: tally.backoffs,
                    scouts: i as u32 + 1,
                    preempted,
                });
            }
        }
        Err(ScoutFail::Unwound { scouts: self.ports.len() as u32 })
    }

    /// Walk every scout, also those that cannot succeed (the module doc's pruning off):
    /// for tests that the pruning changes no result.
    pub fn set_pruning(&mut self, on: bool) {
        self.flood = if on { self.flood_now() } else { None };
    }

    /// Flood masks for the links' present state (`None` above 64 routers).
    fn flood_now(&self) -> Option<Flood> {
        let t = self.topo;
        let mut f = Flood::new(&t)?;
        for link in 0..t.chip0 {
            f.set(link, self.free.has(link), self.low.has(link));
        }
        for port in 0..t.io_ports + t.gc_ports {
            let h = self.holder[t.port_link(port) as usize];
            f.set_port(port, h == NONE, h != NONE && self.paths[h as usize].prio == Prio::Low);
        }
        Some(f)
    }

    pub fn holds(&self, owner: u32) -> bool {
        self.paths.get(owner as usize).is_some_and(|p| p.port != NONE)
    }

    /// Resources currently held, of all kinds (port, mesh and chip links).
    pub fn held_links(&self) -> usize {
        self.held
    }

    /// `Some(needs preemption)` if a scout may take `res`: it is free, or GC bypass lets a
    /// high-priority scout take it from a low-priority holder. High never preempts High,
    /// Low never preempts.
    fn usable(&self, res: u32, prio: Prio, preempt: bool) -> Option<bool> {
        match self.holder[res as usize] {
            NONE => Some(false),
            h if takes_over(prio, preempt) && self.paths[h as usize].prio == Prio::Low => {
                Some(true)
            }
            _ => None,
        }
    }
}
