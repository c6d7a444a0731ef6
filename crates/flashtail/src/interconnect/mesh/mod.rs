//! The Venice chip interconnect (Nadig et al., ISCA 2023, arXiv 2305.07768;
//! shared/specs/06-venice-gc-bypass.md) and its GC-bypass extension (Nie et al., 2026).
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

/// "Nobody": a free resource's holder, an idle owner's port.
const NONE: u32 = u32::MAX;

/// A fixed-size set of small integers (routers or mesh links), one bit each.
#[derive(Clone, Debug)]
struct Bits(Vec<u64>);

impl Bits {
    fn zeros(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }

    /// Every one of `0..n` in the set (bits past `n` stay clear).
    fn ones(n: usize) -> Bits {
        let mut b = Bits::zeros(n);
        for i in 0..n {
            b.set(i as u32);
        }
        b
    }

    #[inline]
    fn has(&self, i: u32) -> bool {
        self.0[(i >> 6) as usize] >> (i & 63) & 1 != 0
    }

    #[inline]
    fn set(&mut self, i: u32) {
        self.0[(i >> 6) as usize] |= 1 << (i & 63);
    }

    #[inline]
    fn unset(&mut self, i: u32) {
        self.0[(i >> 6) as usize] &= !(1 << (i & 63));
    }

    fn clear(&mut self) {
        self.0.fill(0);
    }
}

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

/// Geometry and resource numbering. Routers are numbered like chips, channel-major:
/// router `k` is at row `k % rows`, column `k / rows`, beside chip `k`. Resources share one
/// id space: horizontal mesh links, vertical mesh links, chip links, port links.
#[derive(Copy, Clone, Debug)]
struct Topo {
    rows: u32,
    cols: u32,
    /// First vertical link id (= number of horizontal links).
    v0: u32,
    /// First chip link id (= number of mesh links).
    chip0: u32,
    /// First port link id.
    port0: u32,
    io_ports: u32,
    gc_ports: u32,
}

impl Topo {
    fn routers(&self) -> u32 {
        self.rows * self.cols
    }

    fn row(&self, k: u32) -> u32 {
        k % self.rows
    }

    fn col(&self, k: u32) -> u32 {
        k / self.rows
    }

    fn router(&self, row: u32, col: u32) -> u32 {
        col * self.rows + row
    }

    fn dist(&self, a: u32, b: u32) -> u32 {
        self.row(a).abs_diff(self.row(b)) + self.col(a).abs_diff(self.col(b))
    }

    /// The mesh link between 4-neighbours `a` and `b`.
    fn link(&self, a: u32, b: u32) -> u32 {
        let (ra, ca, rb, cb) = (self.row(a), self.col(a), self.row(b), self.col(b));
        if ra == rb {
            assert!(ca.abs_diff(cb) == 1, "routers {a} and {b} are not neighbours");
            ra * (self.cols - 1) + ca.min(cb)
        } else {
            assert!(ca == cb && ra.abs_diff(rb) == 1, "routers {a} and {b} are not neighbours");
            self.v0 + ra.min(rb) * self.cols + ca
        }
    }

    fn chip_link(&self, k: u32) -> u32 {
        self.chip0 + k
    }

    fn port_link(&self, port: u32) -> u32 {
        self.port0 + port
    }

    /// The edge router port `port` attaches to: I/O ports (0..io_ports) on the top edge,
    /// GC ports after them on the bottom edge, each kind spread evenly over the columns.
    fn port_router(&self, port: u32) -> u32 {
        let (row, i, n) = if port < self.io_ports {
            (0, port, self.io_ports)
        } else {
            (self.rows - 1, port - self.io_ports, self.gc_ports)
        };
        let col = (2 * i as u64 + 1) * self.cols as u64 / (2 * n as u64);
        self.router(row, col as u32)
    }

    /// Index of the port kind (0: I/O, 1: GC) a scout of kind `entry` starts from
    /// (`ports_of`).
    fn kind_of_entry(&self, entry: Entry) -> usize {
        usize::from(entry == Entry::Gc && self.gc_ports > 0)
    }

    /// Index of `port`'s kind (0: I/O, 1: GC).
    fn kind_of_port(&self, port: u32) -> usize {
        usize::from(port >= self.io_ports)
    }

    /// Ports a scout of kind `entry` may start from. Without GC ports, GC shares the I/O
    /// ports (plain Venice does not know GC from host I/O).
    fn ports_of(&self, entry: Entry) -> std::ops::Range<u32> {
        match self.kind_of_entry(entry) {
            1 => self.io_ports..self.io_ports + self.gc_ports,
            _ => 0..self.io_ports,
        }
    }

    /// The neighbours of `k` by direction: up, down, left, right (`None` at an edge).
    fn neighbours(&self, k: u32) -> [Option<u32>; 4] {
        let (r, c) = (self.row(k), self.col(k));
        let at = |ok: bool, row: u32, col: u32| ok.then(|| self.router(row, col));
        [
            at(r > 0, r.wrapping_sub(1), c),
            at(r + 1 < self.rows, r + 1, c),
            at(c > 0, r, c.wrapping_sub(1)),
            at(c + 1 < self.cols, r, c + 1),
        ]
    }

    /// Every resource of a path, in order: port link, mesh links, the last router's chip link.
    fn path_resources(self, port: u32, routers: &[u32]) -> impl Iterator<Item = u32> + '_ {
        std::iter::once(self.port_link(port))
            .chain(routers.windows(2).map(move |w| self.link(w[0], w[1])))
            .chain(routers.last().map(move |&k| self.chip_link(k)))
    }
}

/// A router's neighbours by direction: slots up, down, left, right (`Topo::neighbours`
/// order), `exists` bit `i` set where slot `i` has one. An empty slot names the router
/// itself and link 0, so it can be read like the others and masked out.
#[derive(Copy, Clone, Debug)]
struct Adj {
    nb: [u32; 4],
    link: [u32; 4],
    exists: u8,
}

impl Adj {
    /// The link between neighbours `a` and `b`, from the table `adj`.
    fn link_between(adj: &[Adj], a: u32, b: u32) -> u32 {
        let x = &adj[a as usize];
        let i = (0..4).find(|&i| x.exists >> i & 1 != 0 && x.nb[i] == b).expect("routers are neighbours");
        x.link[i]
    }

    fn of(t: &Topo, k: u32) -> Adj {
        let mut a = Adj { nb: [k; 4], link: [0; 4], exists: 0 };
        for (i, nb) in t.neighbours(k).into_iter().enumerate() {
            if let Some(nb) = nb {
                (a.nb[i], a.link[i]) = (nb, t.link(k, nb));
                a.exists |= 1 << i;
            }
        }
        a
    }
}

/// One owner's committed path (`port == NONE`: it holds nothing).
#[derive(Clone, Debug)]
struct OwnerPath {
    port: u32,
    prio: Prio,
    /// Routers from the entry router to the target, in walk order.
    routers: Vec<u32>,
}

/// SplitMix64: tiny, deterministic, good enough for tie-breaking among at most four links.
#[derive(Clone, Debug)]
struct SplitMix64(u64);

impl SplitMix64 {
    /// The tie-breaking stream of the `n`-th scout of a mesh seeded with `seed`: each
    /// scout draws from its own stream (module doc). The start state is one SplitMix64
    /// output of a state `n` golden-ratio steps from `seed`, so nearby `n` start far apart.
    fn stream(seed: u64, n: u64) -> SplitMix64 {
        let mut g = SplitMix64(seed.wrapping_add(n.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        SplitMix64(g.next())
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform-ish in `0..n` (the remainder of one draw). A scout picks among 2-4 links:
    /// powers of two take a mask instead of a 64-bit division (the same value).
    fn below(&mut self, n: usize) -> usize {
        let x = self.next();
        let r = if n.is_power_of_two() { x & (n as u64 - 1) } else { x % n as u64 };
        r as usize
    }
}

/// Counts over the scouts of one `reserve` call.
#[derive(Default)]
struct Tally {
    moves: u32,
    misroutes: u32,
    backoffs: u32,
}

/// The usable mesh links as bit masks over routers, for meshes of at most 64 routers: bit
/// `k` of a `down` mask is the link from router `k` to `k + 1` (the next row of its column),
/// bit `k` of a `right` mask the link from `k` to `k + rows` (the next column of its row).
/// Kept in step with `holder` by `Mesh::track`, so a flood fill over the free (or, for a
/// scout that may preempt, free or low-priority) links is a few shifts per step.
#[derive(Clone, Debug, Default)]
struct Flood {
    free_down: u64,
    free_right: u64,
    low_down: u64,
    low_right: u64,
    /// Per mesh link: (router bit it is stored at, vertical).
    bit_of_link: Vec<(u8, bool)>,
    /// Per port: its router's bit.
    port_bit: Vec<u64>,
    /// Ports by state, bit `p` for port `p` (as the link sets for mesh links), and the
    /// ports of each kind (`Topo::kind_of_port`).
    port_free: u64,
    port_low: u64,
    kind_ports: [u64; 2],
}

impl Flood {
    fn new(t: &Topo) -> Option<Flood> {
        let ports = t.io_ports + t.gc_ports;
        if t.routers() > 64 || ports > 64 {
            return None;
        }
        let mut f = Flood { bit_of_link: vec![(0, false); t.chip0 as usize], ..Flood::default() };
        for k in 0..t.routers() {
            for (nb, vertical) in [(k + 1, true), (k + t.rows, false)] {
                let neighbour = if vertical { t.row(k) + 1 < t.rows } else { t.col(k) + 1 < t.cols };
                if neighbour {
                    f.bit_of_link[t.link(k, nb) as usize] = (k as u8, vertical);
                    *f.mask(false, vertical) |= 1 << k;
                }
            }
        }
        f.port_bit = (0..ports).map(|p| 1 << t.port_router(p)).collect();
        let below = |n: u32| if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
        f.port_free = below(ports);
        f.kind_ports = [below(t.io_ports), below(ports) & !below(t.io_ports)];
        Some(f)
    }

    /// Port `port` is now free (`free`) and held by a low-priority owner (`low`).
    fn set_port(&mut self, port: u32, free: bool, low: bool) {
        put(&mut self.port_free, port, free);
        put(&mut self.port_low, port, low);
    }

    /// The routers of the ports of `kind` a scout may start from (free, or also held by
    /// low-priority owners with `takeover`).
    fn usable_port_routers(&self, kind: usize, takeover: bool) -> u64 {
        let low = if takeover { self.port_low } else { 0 };
        let mut ports = (self.port_free | low) & self.kind_ports[kind];
        let mut routers = 0;
        while ports != 0 {
            routers |= self.port_bit[ports.trailing_zeros() as usize];
            ports &= ports - 1;
        }
        routers
    }

    fn mask(&mut self, low: bool, vertical: bool) -> &mut u64 {
        match (low, vertical) {
            (false, true) => &mut self.free_down,
            (false, false) => &mut self.free_right,
            (true, true) => &mut self.low_down,
            (true, false) => &mut self.low_right,
        }
    }

    /// Mesh link `link` is now free (`free`) and held by a low-priority owner (`low`).
    fn set(&mut self, link: u32, free: bool, low: bool) {
        let (k, vertical) = self.bit_of_link[link as usize];
        put(self.mask(false, vertical), u32::from(k), free);
        put(self.mask(true, vertical), u32::from(k), low);
    }

    /// The routers a scout could reach from `from` over links it may take (free, or also
    /// low-priority ones with `takeover`), ignoring visit limits: a superset of where any
    /// walk can go. Links are held whole, so reachability is symmetric. The fill stops
    /// early once it meets a router of `stop` (pass 0 for the whole set).
    fn reach(&self, from: u32, rows: u32, takeover: bool, stop: u64) -> u64 {
        let low = if takeover { u64::MAX } else { 0 };
        let down = self.free_down | (self.low_down & low);
        let right = self.free_right | (self.low_right & low);
        let mut set = 1u64 << from;
        while set & stop == 0 {
            let next = set | ((set & down) << 1) | ((set >> 1) & down) | ((set & right) << rows) | ((set >> rows) & right);
            if next == set {
                break;
            }
            set = next;
        }
        set
    }
}

/// Set bit `k` of `mask` to `on`.
fn put(mask: &mut u64, k: u32, on: bool) {
    *mask = (*mask & !(1 << k)) | (u64::from(on) << k);
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

    /// Free everything `owner` holds (nothing if it holds nothing).
    pub fn release(&mut self, owner: u32) {
        if !self.holds(owner) {
            return;
        }
        let path = &mut self.paths[owner as usize];
        let (port, prio) = (path.port, path.prio);
        // Taken out and put back (cleared) to keep their capacity.
        let mut routers = std::mem::take(&mut path.routers);
        let mut resources = std::mem::take(&mut self.resources);
        self.resources_into(port, &routers, &mut resources);
        for &res in &resources {
            assert_eq!(self.holder[res as usize], owner, "resource {res} on owner {owner}'s path");
            self.holder[res as usize] = NONE;
            self.held -= 1;
            self.track(res, prio, false);
        }
        self.resources = resources;
        routers.clear();
        let path = &mut self.paths[owner as usize];
        path.routers = routers;
        path.port = NONE;
    }

    /// Keep the link sets and port counters in step with `holder`: resource `res` was just
    /// taken (`held`) or given up by an owner of priority `prio`.
    fn track(&mut self, res: u32, prio: Prio, held: bool) {
        let t = self.topo;
        // Now held by a preemptible (low-priority) owner.
        let low_held = held && prio == Prio::Low;
        if res < t.chip0 {
            if held {
                self.free.unset(res);
                if low_held {
                    self.low.set(res);
                }
            } else {
                self.free.set(res);
                self.low.unset(res);
            }
            if let Some(f) = &mut self.flood {
                f.set(res, !held, low_held);
            }
        } else if res >= t.port0 {
            let kind = t.kind_of_port(res - t.port0);
            let low = u32::from(prio == Prio::Low);
            if let Some(f) = &mut self.flood {
                f.set_port(res - t.port0, !held, low_held);
            }
            if held {
                self.ports_free[kind] -= 1;
                self.ports_low[kind] += low;
            } else {
                self.ports_free[kind] += 1;
                self.ports_low[kind] -= low;
            }
        }
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

    /// Invariants: each recorded path is contiguous from its port's edge router to its chip,
    /// each resource on it is held by its owner and listed once, and nothing else is held.
    pub fn check(&self) -> Result<(), String> {
        let t = self.topo;
        let mut seen = vec![false; self.holder.len()];
        let mut listed = 0usize;
        for (owner, path) in self.paths.iter().enumerate() {
            if path.port == NONE {
                if !path.routers.is_empty() {
                    return Err(format!("idle owner {owner} records routers"));
                }
                continue;
            }
            self.check_shape(owner, path)?;
            for res in t.path_resources(path.port, &path.routers) {
                if std::mem::replace(&mut seen[res as usize], true) {
                    return Err(format!("resource {res} listed twice (owner {owner})"));
                }
                let h = self.holder[res as usize];
                if h as usize != owner {
                    return Err(format!("resource {res} on owner {owner}'s path is held by {h}"));
                }
                listed += 1;
            }
        }
        let held = self.holder.iter().filter(|&&h| h != NONE).count();
        if held != listed || held != self.held {
            return Err(format!(
                "{held} resources held, {listed} on recorded paths, count says {}",
                self.held
            ));
        }
        self.check_tracking()
    }

    /// The link sets and port counters say what `holder` and the owners' priorities say.
    fn check_tracking(&self) -> Result<(), String> {
        let t = self.topo;
        let low_holder = |res: u32| {
            let h = self.holder[res as usize];
            h != NONE && self.paths[h as usize].prio == Prio::Low
        };
        for link in 0..t.chip0 {
            let free = self.holder[link as usize] == NONE;
            if self.free.has(link) != free || self.low.has(link) != low_holder(link) {
                return Err(format!("mesh link {link}: free/low bits disagree with its holder"));
            }
        }
        if let Some(f) = &self.flood {
            let want = self.flood_now().expect("a flood table exists only up to 64 routers");
            let masks = |f: &Flood| [f.free_down, f.free_right, f.low_down, f.low_right, f.port_free, f.port_low];
            if masks(f) != masks(&want) {
                return Err(format!("flood masks {:x?}, the link sets say {:x?}", masks(f), masks(&want)));
            }
        }
        let mut free = [0u32; 2];
        let mut low = [0u32; 2];
        for port in 0..t.io_ports + t.gc_ports {
            let (k, res) = (t.kind_of_port(port), t.port_link(port));
            free[k] += u32::from(self.holder[res as usize] == NONE);
            low[k] += u32::from(low_holder(res));
        }
        if free != self.ports_free || low != self.ports_low {
            return Err(format!(
                "port counters free {:?} low {:?}, holders say {free:?} {low:?}",
                self.ports_free, self.ports_low
            ));
        }
        Ok(())
    }

    /// A recorded path starts at its port's edge router and moves between neighbours.
    fn check_shape(&self, owner: usize, path: &OwnerPath) -> Result<(), String> {
        let t = self.topo;
        if path.port >= t.io_ports + t.gc_ports {
            return Err(format!("owner {owner}: no port {}", path.port));
        }
        let Some(&first) = path.routers.first() else {
            return Err(format!("owner {owner}: path without routers"));
        };
        if first != t.port_router(path.port) {
            return Err(format!("owner {owner}: path starts at {first}, not at its port"));
        }
        if let Some(&k) = path.routers.iter().find(|&&k| k >= t.routers()) {
            return Err(format!("owner {owner}: no router {k}"));
        }
        if let Some(w) = path.routers.windows(2).find(|w| t.dist(w[0], w[1]) != 1) {
            return Err(format!("owner {owner}: {} → {} is not a link", w[0], w[1]));
        }
        Ok(())
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

    /// Fill `ports` with the usable ports of `entry`'s kind, best first: free before
    /// preemptible, then nearest to the target (Venice: the nearest free entry point),
    /// then lowest index.
    fn order_ports(&mut self, chip: u32, entry: Entry, prio: Prio, preempt: bool) {
        let mut ports = std::mem::take(&mut self.ports);
        ports.clear();
        let order = &self.port_order[usize::from(entry == Entry::Gc)][chip as usize];
        // Free ports first, then (GC bypass) those a high-priority scout may take over.
        let passes: &[bool] = if takes_over(prio, preempt) { &[false, true] } else { &[false] };
        for &want_preempt in passes {
            for &(d, port) in order {
                if self.usable(self.topo.port_link(port), prio, preempt) == Some(want_preempt) {
                    ports.push((want_preempt, d, port));
                }
            }
        }
        self.ports = ports;
    }

    /// Start a new walk: bump the generation so every stamp of the last walk goes stale.
    fn next_gen(&mut self) {
        self.gen = self.gen.wrapping_add(1);
        if self.gen == 0 {
            // Wrapped: old stamps could collide with new ones, so clear them once.
            self.visit_gen.fill(0);
            self.gen = 1;
        }
        self.blocked.clear();
        self.tent.clear();
    }

    fn visits_of(&self, k: u32) -> u32 {
        if self.visit_gen[k as usize] == self.gen {
            self.visits[k as usize]
        } else {
            0
        }
    }

    /// Count an arrival at `k`; returns its visits in this walk. A router at its limit
    /// takes no more arrivals.
    fn arrive(&mut self, k: u32) -> u32 {
        let v = self.visits_of(k) + 1;
        self.visit_gen[k as usize] = self.gen;
        self.visits[k as usize] = v;
        if v >= self.max_visits {
            self.blocked.set(k);
        }
        v
    }

    /// One scout from `entry` towards `target`. On success `stack` is the path (entry …
    /// target); on unwind the scout holds nothing (its links were only tentative).
    fn walk(&mut self, entry: u32, target: u32, prio: Prio, preempt: bool, t: &mut Tally) -> bool {
        self.rng = SplitMix64::stream(self.seed, self.scouts);
        self.scouts += 1;
        self.next_gen();
        self.stack.clear();
        self.stack.push(entry);
        self.arrive(entry);
        // Each move is an arrival and a router takes at most max_visits of them before the
        // scout unwinds, so a walk cannot be longer than this.
        let bound = self.max_visits as u64 * self.topo.routers() as u64 + 1;
        let mut moves = 0u64;
        loop {
            let len = self.stack.len();
            let cur = self.stack[len - 1];
            if cur == target {
                return true;
            }
            let prev = if len >= 2 { self.stack[len - 2] } else { NONE };
            if let Some((next, link, misroute)) = self.next_hop(cur, prev, target, prio, preempt) {
                debug_assert_eq!(link, self.topo.link(cur, next));
                self.tent.set(link);
                self.stack.push(next);
                self.arrive(next);
                t.moves += 1;
                t.misroutes += misroute as u32;
                moves += 1;
                assert!(moves <= bound, "scout walk exceeded {bound} moves");
                continue;
            }
            // Venice: with no way on, back off to the previous router, releasing the link;
            // backing off past the entry router means the scout is back at its controller.
            if prev == NONE {
                return false;
            }
            self.stack.pop();
            self.tent.unset(self.adj_link(prev, cur));
            self.blocked.set(cur);
            t.moves += 1;
            t.backoffs += 1;
            moves += 1;
            assert!(moves <= bound, "scout walk exceeded {bound} moves");
            if self.arrive(prev) > self.max_visits {
                return false;
            }
        }
    }

    /// The mesh link between neighbours `a` and `b` (`Topo::link`, from the table: a
    /// scout walled in from its chip backs off often, and `Topo::link` divides).
    fn adj_link(&self, a: u32, b: u32) -> u32 {
        let link = Adj::link_between(&self.adj, a, b);
        debug_assert_eq!(link, self.topo.link(a, b));
        link
    }

    /// `Topo::path_resources` into `out`, with the mesh links from the table (commit and
    /// release run once per transfer each; `Topo::link` divides).
    fn resources_into(&self, port: u32, routers: &[u32], out: &mut Vec<u32>) {
        let t = self.topo;
        out.clear();
        out.push(t.port_link(port));
        out.extend(routers.windows(2).map(|w| Adj::link_between(&self.adj, w[0], w[1])));
        out.extend(routers.last().map(|&k| t.chip_link(k)));
        debug_assert!(out.iter().copied().eq(t.path_resources(port, routers)));
    }

    /// The scout's next router from `cur`, the link to it, and whether it is a misroute.
    /// Preference (Venice's adaptive routing, with GC bypass's free-before-preempt): minimal
    /// free, minimal preemptible, misroute free, misroute preemptible; ties broken
    /// pseudo-randomly. Links the scout already holds, routers at their visit limit and
    /// dead routers (backed off from in this walk: no way on from there) are out. (Inlined
    /// into `walk`, its one caller, which runs it once per move.)
    #[inline(always)]
    fn next_hop(
        &mut self,
        cur: u32,
        prev: u32,
        target: u32,
        prio: Prio,
        preempt: bool,
    ) -> Option<(u32, u32, bool)> {
        let takeover = takes_over(prio, preempt);
        // A move is minimal if it brings the scout nearer: per slot (up, down, left, right),
        // whether it does not.
        let ((r, c), (tr, tc)) = (self.pos[cur as usize], self.pos[target as usize]);
        let far = [tr >= r, tr <= r, tc >= c, tc <= c];
        // Without branches per neighbour (which way a scout may go is close to random, and
        // the mispredictions were most of a walk's time): bit `4 * class + i` says the
        // neighbour in slot `i` is a candidate of `class` = 2 × (not minimal) + (needs
        // preemption).
        let adj = self.adj[cur as usize];
        let mut packed = 0u32;
        for (i, far) in far.into_iter().enumerate() {
            let (nb, link) = (adj.nb[i], adj.link[i]);
            let free = self.free.has(link);
            // `usable`, from the link sets; links the scout holds and blocked routers are out.
            let ok = (adj.exists >> i & 1 != 0)
                & (nb != prev)
                & !self.tent.has(link)
                & !self.blocked.has(nb)
                & (free | (takeover & self.low.has(link)));
            let class = 2 * u32::from(far) + u32::from(!free);
            packed |= u32::from(ok) << (4 * class + i as u32);
        }
        if packed == 0 {
            return None;
        }
        let class = packed.trailing_zeros() / 4;
        // The class's candidates in neighbour order; the pick-th of them.
        let mut group = (packed >> (4 * class)) & 0xf;
        let count = group.count_ones() as usize;
        let pick = if count == 1 { 0 } else { self.rng.below(count) };
        for _ in 0..pick {
            group &= group - 1;
        }
        let i = group.trailing_zeros() as usize;
        let (nb, link) = (adj.nb[i], adj.link[i]);
        Some((nb, link, class >= 2))
    }

    /// Commit the scout's path (`stack`) from `port` to `owner`. Low owners holding any of
    /// its resources are released whole first (GC bypass: the preempted write-back
    /// re-reserves later) and returned, each once.
    fn commit(&mut self, owner: u32, port: u32, prio: Prio, preempt: bool) -> Vec<u32> {
        let mut victims = Vec::new();
        let mut resources = std::mem::take(&mut self.resources);
        self.resources_into(port, &self.stack, &mut resources);
        for &res in &resources {
            let h = self.holder[res as usize];
            if h == NONE {
                continue;
            }
            assert!(
                takes_over(prio, preempt) && self.paths[h as usize].prio == Prio::Low,
                "scout took resource {res} from owner {h} without the right to preempt"
            );
            if !victims.contains(&h) {
                victims.push(h);
            }
        }
        for &v in &victims {
            self.release(v);
        }
        if self.paths.len() <= owner as usize {
            let idle = OwnerPath { port: NONE, prio: Prio::High, routers: Vec::new() };
            self.paths.resize(owner as usize + 1, idle);
        }
        let stack = std::mem::take(&mut self.stack);
        for &res in &resources {
            assert_eq!(self.holder[res as usize], NONE, "resource {res} still held at commit");
            self.holder[res as usize] = owner;
            self.held += 1;
            self.track(res, prio, true);
        }
        self.resources = resources;
        let path = &mut self.paths[owner as usize];
        path.port = port;
        path.prio = prio;
        path.routers.clear();
        path.routers.extend_from_slice(&stack);
        self.stack = stack;
        victims
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    fn cfg(rows: u32, cols: u32, io_ports: u32, gc_ports: u32) -> MeshConfig {
        MeshConfig { rows, cols, io_ports, gc_ports, max_visits: 3, seed: 1 }
    }

    fn mesh(rows: u32, cols: u32, io_ports: u32, gc_ports: u32) -> Mesh {
        Mesh::new(&cfg(rows, cols, io_ports, gc_ports)).expect("valid test config")
    }

    /// Chip (= router) at (row, col).
    fn at(m: &Mesh, row: u32, col: u32) -> u32 {
        m.topo.router(row, col)
    }

    /// Hold an exact path for `owner`, as if a scout had found it.
    fn force(m: &mut Mesh, owner: u32, port: u32, cells: &[(u32, u32)], prio: Prio) {
        m.stack.clear();
        for &(r, c) in cells {
            let k = at(m, r, c);
            m.stack.push(k);
        }
        let preempted = m.commit(owner, port, prio, false);
        assert!(preempted.is_empty());
        m.check().expect("forced path is consistent");
    }

    fn resources(m: &Mesh, owner: u32) -> Vec<u32> {
        let p = &m.paths[owner as usize];
        m.topo.path_resources(p.port, &p.routers).collect()
    }

    fn routers(m: &Mesh, owner: u32) -> Vec<(u32, u32)> {
        m.paths[owner as usize].routers.iter().map(|&k| (m.topo.row(k), m.topo.col(k))).collect()
    }

    /// The per-router table a scout steps by says what the topology says: each existing
    /// slot is the neighbour in its direction over the link `Topo::link` names, and the
    /// other slots are empty exactly at the edges.
    #[test]
    fn adjacency_table_matches_the_topology() {
        for (rows, cols) in [(1, 1), (1, 5), (4, 1), (3, 4), (8, 8)] {
            let m = mesh(rows, cols, 1, 0);
            for k in 0..rows * cols {
                let a = m.adj[k as usize];
                let (r, c) = (k % rows, k / rows);
                let expect = [
                    (r > 0).then(|| at(&m, r - 1, c)),
                    (r + 1 < rows).then(|| at(&m, r + 1, c)),
                    (c > 0).then(|| at(&m, r, c - 1)),
                    (c + 1 < cols).then(|| at(&m, r, c + 1)),
                ];
                for (i, e) in expect.into_iter().enumerate() {
                    assert_eq!(a.exists >> i & 1 != 0, e.is_some(), "router {k} slot {i}");
                    if let Some(nb) = e {
                        assert_eq!((a.nb[i], a.link[i]), (nb, m.topo.link(k, nb)));
                        assert_eq!(m.adj_link(k, nb), m.topo.link(k, nb));
                    }
                }
            }
        }
    }

    /// `below` masks for powers of two and divides otherwise: both are the draw's remainder.
    #[test]
    fn below_is_the_remainder_of_one_draw() {
        let (mut a, mut b) = (SplitMix64(7), SplitMix64(7));
        for n in [1usize, 2, 3, 4, 5, 8, 1000] {
            for _ in 0..100 {
                assert_eq!(a.below(n), (b.next() % n as u64) as usize);
            }
        }
    }

    #[test]
    fn new_rejects_bad_config() {
        let bad = [
            (MeshConfig { rows: 0, ..cfg(4, 8, 8, 0) }, "rows"),
            (MeshConfig { cols: 0, ..cfg(4, 8, 8, 0) }, "cols"),
            (MeshConfig { io_ports: 0, ..cfg(4, 8, 8, 0) }, "io_ports"),
            (MeshConfig { max_visits: 0, ..cfg(4, 8, 8, 0) }, "max_visits"),
        ];
        for (c, field) in bad {
            let err = Mesh::new(&c).expect_err(field);
            assert!(err.contains(field), "{err:?} should name {field}");
        }
        assert_eq!(mesh(4, 8, 8, 0).chips(), 32);
    }

    #[test]
    fn ports_spread_evenly_over_their_edge() {
        let m = mesh(4, 8, 8, 2);
        let cells: Vec<_> = (0..10)
            .map(|p| {
                let k = m.topo.port_router(p);
                (m.topo.row(k), m.topo.col(k))
            })
            .collect();
        let io: Vec<_> = (0..8).map(|c| (0, c)).collect();
        assert_eq!(&cells[..8], &io[..], "n == cols: port i at column i, top edge");
        assert_eq!(&cells[8..], &[(3, 2), (3, 6)], "2 GC ports on the bottom edge");
        // More ports than columns: two per edge router, separate links.
        let m = mesh(2, 2, 4, 0);
        let cols: Vec<_> = (0..4).map(|p| m.topo.col(m.topo.port_router(p))).collect();
        assert_eq!(cols, [0, 0, 1, 1]);
        assert_ne!(m.topo.port_link(0), m.topo.port_link(1));
    }

    #[test]
    fn free_mesh_goes_straight_down_from_the_port_above() {
        let mut m = mesh(4, 8, 8, 0);
        let chip = at(&m, 3, 5);
        assert_eq!(chip, 23);
        let r = m.reserve(1, chip, Entry::Io, Prio::High, false).expect("free mesh");
        let want =
            Reserved { hops: 3, moves: 3, misroutes: 0, backoffs: 0, scouts: 1, preempted: vec![] };
        assert_eq!(r, want);
        assert_eq!(m.paths[1].port, 5);
        assert_eq!(routers(&m, 1), [(0, 5), (1, 5), (2, 5), (3, 5)]);
        assert_eq!(m.held_links(), 5, "port + 3 mesh links + chip link");
        m.check().unwrap();
    }

    #[test]
    fn two_chips_in_one_column_transfer_at_once() {
        // On the shared-bus baseline chips (3,5) and (1,5) share channel 5 and serialize.
        let mut m = mesh(4, 8, 8, 0);
        let (far, near) = (at(&m, 3, 5), at(&m, 1, 5));
        let a = m.reserve(1, far, Entry::Io, Prio::High, false).expect("first");
        let b = m.reserve(2, near, Entry::Io, Prio::High, false).expect("second");
        assert_eq!((a.hops, a.scouts), (3, 1));
        // Port 5 is taken: the second scout starts from port 4 (distance 2, lower index
        // than port 6) and goes around the first path's column links.
        assert_eq!((b.scouts, m.paths[2].port), (1, 4));
        assert!(b.hops >= 2);
        let first = resources(&m, 1);
        assert!(resources(&m, 2).iter().all(|r| !first.contains(r)), "disjoint paths");
        assert_eq!(m.held_links(), (a.hops + 2 + b.hops + 2) as usize);
        m.check().unwrap();
    }

    #[test]
    fn blocked_column_forces_a_detour() {
        for seed in 0..32 {
            let mut m = Mesh::new(&MeshConfig { seed, ..cfg(4, 8, 8, 0) }).unwrap();
            // Owner 9 (from port 6) holds (0,6)-(0,5), (0,5)-(1,5), (1,5)-(2,5).
            force(&mut m, 9, 6, &[(0, 6), (0, 5), (1, 5), (2, 5)], Prio::High);
            let chip = at(&m, 3, 5);
            let r = m.reserve(1, chip, Entry::Io, Prio::High, false).expect("detour exists");
            // Port 5 is still free and nearest; its scout must leave the column.
            assert_eq!((r.scouts, m.paths[1].port), (1, 5), "seed {seed}");
            assert!(r.misroutes >= 1, "seed {seed}: {r:?}");
            assert!(r.hops >= 5, "shortest way around is 5 hops; seed {seed}: {r:?}");
            assert!(r.moves >= r.hops);
            m.check().unwrap();
        }
    }

    #[test]
    fn busy_target_chip_fails_at_once() {
        let mut m = mesh(4, 8, 8, 0);
        let chip = at(&m, 2, 2);
        m.reserve(1, chip, Entry::Io, Prio::High, false).unwrap();
        let held = m.held_links();
        assert_eq!(m.reserve(2, chip, Entry::Io, Prio::High, false), Err(ScoutFail::ChipBusy));
        assert_eq!(m.held_links(), held);
        assert!(!m.holds(2));
    }

    #[test]
    fn all_ports_busy_is_no_port() {
        let mut m = mesh(4, 8, 2, 0);
        m.reserve(1, 0, Entry::Io, Prio::High, false).unwrap();
        m.reserve(2, 31, Entry::Io, Prio::High, false).unwrap();
        assert_eq!(m.reserve(3, 12, Entry::Io, Prio::High, false), Err(ScoutFail::NoPort));
        // Without GC ports, GC shares the (busy) I/O ports.
        assert_eq!(m.reserve(3, 12, Entry::Gc, Prio::High, false), Err(ScoutFail::NoPort));
        assert_eq!(m.held_links(), resources(&m, 1).len() + resources(&m, 2).len());
    }

    #[test]
    fn walled_in_target_unwinds_and_leaves_nothing_held() {
        let mut m = mesh(4, 8, 8, 0);
        // Router (1,3)'s four links are all held; its chip link is free.
        force(&mut m, 10, 2, &[(0, 2), (1, 2), (1, 3), (1, 4)], Prio::High);
        force(&mut m, 11, 3, &[(0, 3), (1, 3), (2, 3)], Prio::High);
        let held = m.held_links();
        assert_eq!(held, 5 + 4);
        let chip = at(&m, 1, 3);
        // Six ports are free; every scout gets nowhere.
        assert_eq!(
            m.reserve(1, chip, Entry::Io, Prio::High, false),
            Err(ScoutFail::Unwound { scouts: 6 })
        );
        assert_eq!(m.held_links(), held);
        assert!(!m.holds(1));
        m.check().unwrap();
        // Preempting does not help against High holders either.
        assert_eq!(
            m.reserve(1, chip, Entry::Io, Prio::High, true),
            Err(ScoutFail::Unwound { scouts: 6 })
        );
        // No usable link reaches the chip, so the scouts were not even sent (no walk
        // started: the walk generation did not move), yet they count as sent.
        assert_eq!((m.gen, m.scouts), (0, 12));
        m.set_pruning(false);
        assert_eq!(
            m.reserve(1, chip, Entry::Io, Prio::High, false),
            Err(ScoutFail::Unwound { scouts: 6 })
        );
        assert_eq!((m.gen, m.scouts), (6, 18), "without pruning every scout walks");
    }

    /// The flood fill's reachable set is exactly the component of the usable-link graph,
    /// found by a plain search over `usable`, on random meshes with random held paths.
    #[test]
    fn flood_reaches_what_a_search_over_usable_links_reaches() {
        let mut rng = SplitMix64(5);
        for _ in 0..300 {
            let (rows, cols) = (1 + rng.below(8) as u32, 1 + rng.below(8) as u32);
            let mut m = Mesh::new(&MeshConfig { seed: rng.next(), ..cfg(rows, cols, 3, 2) }).unwrap();
            for owner in 0..rng.below(12) as u32 {
                let prio = if rng.below(2) == 0 { Prio::Low } else { Prio::High };
                let chip = rng.below(m.chips() as usize) as u32;
                let _ = m.reserve(owner, chip, Entry::Io, prio, false);
            }
            m.check().unwrap();
            let f = m.flood.as_ref().expect("at most 64 routers");
            for from in 0..m.chips() {
                for takeover in [false, true] {
                    let mut seen = vec![false; m.chips() as usize];
                    let mut todo = vec![from];
                    seen[from as usize] = true;
                    while let Some(k) = todo.pop() {
                        for nb in m.topo.neighbours(k).into_iter().flatten() {
                            let usable = m.usable(m.topo.link(k, nb), Prio::High, takeover).is_some();
                            if usable && !std::mem::replace(&mut seen[nb as usize], true) {
                                todo.push(nb);
                            }
                        }
                    }
                    let want = seen.iter().enumerate().fold(0u64, |a, (k, &s)| a | (u64::from(s) << k));
                    assert_eq!(f.reach(from, rows, takeover, 0), want, "{rows}×{cols} from {from}");
                    // Stopping at a router gives a set that holds it iff the whole one does.
                    for stop in [1u64 << (from ^ 1).min(m.chips() - 1), want & want.wrapping_neg(), !want] {
                        let part = f.reach(from, rows, takeover, stop);
                        assert_eq!(part & stop != 0, want & stop != 0);
                        assert_eq!(part & !want, 0);
                    }
                }
            }
        }
    }

    /// Meshes over 64 routers have no flood masks and walk every scout.
    #[test]
    fn large_meshes_walk_every_scout() {
        assert!(mesh(8, 8, 1, 0).flood.is_some());
        assert!(mesh(8, 9, 1, 0).flood.is_none());
    }

    #[test]
    fn high_scout_takes_over_a_low_path_whole() {
        // One column, one port: the High scout needs the Low path's port, links and chip.
        let mut m = mesh(4, 1, 1, 0);
        m.reserve(7, 3, Entry::Gc, Prio::Low, false).unwrap();
        let r = m.reserve(8, 3, Entry::Io, Prio::High, true).expect("preempts");
        assert_eq!(r.preempted, [7], "listed once although every resource was its");
        assert!(!m.holds(7) && m.holds(8));
        assert_eq!(m.held_links(), 5);
        m.check().unwrap();
        // Only the port is shared: the Low owner still loses everything.
        let mut m = mesh(4, 1, 1, 0);
        m.reserve(7, 3, Entry::Gc, Prio::Low, false).unwrap();
        let r = m.reserve(8, 0, Entry::Io, Prio::High, true).expect("preempts");
        assert_eq!((r.preempted, r.hops), (vec![7], 0));
        assert_eq!(m.held_links(), 2);
        m.check().unwrap();
    }

    #[test]
    fn wall_of_low_paths_falls_to_a_high_scout() {
        let mut m = mesh(4, 8, 8, 0);
        force(&mut m, 10, 2, &[(0, 2), (1, 2), (1, 3), (1, 4)], Prio::Low);
        force(&mut m, 11, 3, &[(0, 3), (1, 3), (2, 3)], Prio::Low);
        let chip = at(&m, 1, 3);
        assert!(matches!(
            m.reserve(1, chip, Entry::Io, Prio::High, false),
            Err(ScoutFail::Unwound { .. })
        ));
        let r = m.reserve(1, chip, Entry::Io, Prio::High, true).expect("preempts the wall");
        assert_eq!(r.preempted.len(), 1, "one way in is enough: {r:?}");
        let other = if r.preempted[0] == 10 { 11 } else { 10 };
        assert!(m.holds(other) && !m.holds(r.preempted[0]));
        m.check().unwrap();
    }

    #[test]
    fn free_resources_are_preferred_over_preemption() {
        for seed in 0..32 {
            let mut m = Mesh::new(&MeshConfig { seed, ..cfg(4, 8, 8, 0) }).unwrap();
            // Low owner 7 holds port 5 and the link (0,5)-(0,4).
            force(&mut m, 7, 5, &[(0, 5), (0, 4)], Prio::Low);
            let r = m.reserve(8, at(&m, 1, 5), Entry::Io, Prio::High, true).unwrap();
            // Port 5 (distance 1, preemptible) loses to free port 4 (distance 2); at (0,4)
            // both ways are minimal, and the free one down wins over the Low-held one.
            assert!(r.preempted.is_empty(), "seed {seed}: {r:?}");
            assert_eq!(m.paths[8].port, 4);
            assert_eq!(routers(&m, 8), [(0, 4), (1, 4), (1, 5)], "seed {seed}");
            assert!(m.holds(7));
            m.check().unwrap();
        }
    }

    #[test]
    fn low_scouts_never_preempt() {
        let mut m = mesh(4, 1, 1, 0);
        m.reserve(7, 3, Entry::Io, Prio::Low, false).unwrap();
        assert_eq!(m.reserve(8, 0, Entry::Io, Prio::Low, true), Err(ScoutFail::NoPort));
        // High without GC bypass does not preempt either.
        assert_eq!(m.reserve(8, 0, Entry::Io, Prio::High, false), Err(ScoutFail::NoPort));
        assert!(m.holds(7));
    }

    #[test]
    fn high_never_preempts_high() {
        let mut m = mesh(4, 1, 1, 0);
        m.reserve(7, 3, Entry::Io, Prio::High, false).unwrap();
        assert_eq!(m.reserve(8, 0, Entry::Io, Prio::High, true), Err(ScoutFail::NoPort));
        let mut m = mesh(4, 1, 2, 0);
        m.reserve(7, 3, Entry::Io, Prio::High, false).unwrap();
        assert_eq!(m.reserve(8, 3, Entry::Io, Prio::High, true), Err(ScoutFail::ChipBusy));
        assert!(m.holds(7) && !m.holds(8));
    }

    #[test]
    fn gc_entry_uses_its_own_ports_when_it_has_them() {
        // Plain Venice: GC enters through the I/O port on the top edge and takes it.
        let mut m = mesh(4, 4, 1, 0);
        m.reserve(1, at(&m, 2, 1), Entry::Gc, Prio::High, false).unwrap();
        assert_eq!(m.paths[1].port, 0);
        assert_eq!(routers(&m, 1)[0].0, 0, "starts on the top edge");
        assert_eq!(
            m.reserve(2, at(&m, 0, 3), Entry::Io, Prio::High, false),
            Err(ScoutFail::NoPort)
        );
        // GC bypass: a GC read enters from the bottom edge; the I/O port stays free.
        let mut m = mesh(4, 4, 1, 1);
        let r = m.reserve(1, at(&m, 2, 1), Entry::Gc, Prio::High, false).unwrap();
        assert_eq!(m.paths[1].port, 1);
        assert_eq!(routers(&m, 1)[0], (3, 2));
        assert_eq!(r.hops, 2);
        m.reserve(2, at(&m, 0, 3), Entry::Io, Prio::High, false).expect("I/O port still free");
        m.check().unwrap();
    }

    #[test]
    fn release_frees_exactly_what_was_held() {
        let mut m = mesh(4, 8, 8, 2);
        let a = m.reserve(1, at(&m, 3, 5), Entry::Io, Prio::High, false).unwrap();
        let b = m.reserve(2, at(&m, 0, 1), Entry::Gc, Prio::Low, false).unwrap();
        assert_eq!(m.held_links(), (a.hops + b.hops + 4) as usize);
        let kept = resources(&m, 2);
        m.release(1);
        assert!(!m.holds(1) && m.holds(2));
        assert_eq!(m.held_links(), (b.hops + 2) as usize);
        let held: Vec<u32> =
            (0..m.holder.len() as u32).filter(|&r| m.holder[r as usize] != NONE).collect();
        let mut kept_sorted = kept.clone();
        kept_sorted.sort_unstable();
        assert_eq!(held, kept_sorted);
        m.check().unwrap();
        m.release(1);
        m.release(12_345);
        assert_eq!(m.held_links(), (b.hops + 2) as usize);
        m.release(2);
        assert_eq!(m.held_links(), 0);
        m.check().unwrap();
        // The freed owner can reserve again.
        m.reserve(1, at(&m, 3, 5), Entry::Io, Prio::High, false).unwrap();
    }

    /// Every result of a run, and the final (port, routers) of each owner.
    type Outcome = (Vec<Result<Reserved, ScoutFail>>, Vec<(u32, Vec<u32>)>);

    /// A busy mixed sequence of reservations and releases on a 4×4 mesh.
    fn run_sequence(seed: u64) -> Outcome {
        run_sequence_pruned(seed, true)
    }

    fn run_sequence_pruned(seed: u64, pruning: bool) -> Outcome {
        let mut m = Mesh::new(&MeshConfig { seed, ..cfg(4, 4, 4, 2) }).unwrap();
        m.set_pruning(pruning);
        let mut ops = SplitMix64(99);
        let mut out = Vec::new();
        for _ in 0..2000 {
            let owner = ops.below(12) as u32;
            if m.holds(owner) {
                if ops.below(2) == 0 {
                    m.release(owner);
                }
                continue;
            }
            let chip = ops.below(16) as u32;
            let entry = if ops.below(3) == 0 { Entry::Gc } else { Entry::Io };
            let prio = if ops.below(3) == 0 { Prio::Low } else { Prio::High };
            out.push(m.reserve(owner, chip, entry, prio, true));
        }
        let paths = m.paths.iter().map(|p| (p.port, p.routers.clone())).collect();
        (out, paths)
    }

    /// Skipping the scouts that cannot succeed changes no result: the same calls give the
    /// same answers and leave the same paths with the pruning off.
    #[test]
    fn pruning_changes_no_result() {
        for seed in [1, 42, 7777] {
            let (a, pa) = run_sequence_pruned(seed, true);
            let (b, pb) = run_sequence_pruned(seed, false);
            assert_eq!(a, b);
            assert_eq!(pa, pb);
            let pruned = a.iter().filter(|r| matches!(r, Err(ScoutFail::Unwound { .. }))).count();
            assert!(pruned > 10, "the sequence has unwound calls to skip ({pruned})");
        }
    }

    #[test]
    fn same_seed_same_results() {
        let (a, pa) = run_sequence(42);
        let (b, pb) = run_sequence(42);
        assert_eq!(a, b);
        assert_eq!(pa, pb);
        // The sequence exercises every branch: misroutes, back-offs, later scouts,
        // preemption, unwinding.
        let ok: Vec<_> = a.iter().filter_map(|r| r.as_ref().ok()).collect();
        assert!(ok.iter().any(|r| r.misroutes > 0));
        assert!(ok.iter().any(|r| !r.preempted.is_empty()));
        assert!(ok.iter().any(|r| r.backoffs > 0));
        assert!(ok.iter().any(|r| r.scouts > 1));
        assert!(a.iter().any(|r| matches!(r, Err(ScoutFail::Unwound { .. }))));
    }

    #[derive(Clone, Debug)]
    enum Op {
        Reserve { owner: u32, chip: u32, gc: bool, low: bool, preempt: bool },
        Release { owner: u32 },
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => (0u32..6, 0u32..16, any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
                |(owner, chip, gc, low, preempt)| Op::Reserve { owner, chip, gc, low, preempt }
            ),
            1 => (0u32..6).prop_map(|owner| Op::Release { owner }),
        ]
    }

    proptest! {
        #[test]
        fn random_reserve_release_keeps_invariants(
            rows in 1u32..=4,
            cols in 1u32..=4,
            io_ports in 1u32..=4,
            gc_ports in 0u32..=2,
            max_visits in 1u32..=4,
            seed in any::<u64>(),
            ops in prop::collection::vec(op(), 1..80),
        ) {
            let c = MeshConfig { rows, cols, io_ports, gc_ports, max_visits, seed };
            let mut m = Mesh::new(&c).unwrap();
            // A twin that walks every scout must answer every call the same (module doc).
            let mut twin = Mesh::new(&c).unwrap();
            twin.set_pruning(false);
            // Model: owner → (prio, hops) of its committed path.
            let mut model: HashMap<u32, (Prio, u32)> = HashMap::new();
            for op in ops {
                let before = m.held_links();
                match op {
                    Op::Release { owner } => {
                        m.release(owner);
                        twin.release(owner);
                        model.remove(&owner);
                    }
                    Op::Reserve { owner, chip, gc, low, preempt } => {
                        if m.holds(owner) {
                            continue;
                        }
                        let chip = chip % m.chips();
                        let entry = if gc { Entry::Gc } else { Entry::Io };
                        let prio = if low { Prio::Low } else { Prio::High };
                        let got = m.reserve(owner, chip, entry, prio, preempt);
                        prop_assert_eq!(&got, &twin.reserve(owner, chip, entry, prio, preempt));
                        match got {
                            Ok(r) => {
                                prop_assert!(r.moves >= r.hops);
                                prop_assert!(r.misroutes + r.backoffs <= r.moves);
                                prop_assert!(r.scouts >= 1);
                                if !(preempt && prio == Prio::High) {
                                    prop_assert!(r.preempted.is_empty());
                                }
                                for v in &r.preempted {
                                    prop_assert_eq!(model.remove(v).map(|e| e.0), Some(Prio::Low));
                                    prop_assert!(!m.holds(*v));
                                }
                                let p = &m.paths[owner as usize];
                                prop_assert_eq!(p.routers.last().copied(), Some(chip));
                                prop_assert_eq!(p.routers.len() as u32, r.hops + 1);
                                model.insert(owner, (prio, r.hops));
                            }
                            Err(_) => {
                                prop_assert_eq!(m.held_links(), before);
                                prop_assert!(!m.holds(owner));
                            }
                        }
                    }
                }
                prop_assert_eq!(m.check(), Ok(()));
                let committed: usize = model.values().map(|&(_, h)| h as usize + 2).sum();
                prop_assert_eq!(m.held_links(), committed);
                for o in 0..6 {
                    prop_assert_eq!(m.holds(o), model.contains_key(&o));
                }
            }
        }
    }
}
