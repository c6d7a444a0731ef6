//! One scout's walk (Venice: fully adaptive routing): from its entry router towards the
//! target chip, minimal hops first, chosen pseudo-randomly among equals, then misroutes,
//! then back-offs, until it arrives or unwinds at its visit limit; the order in which a
//! reservation tries its ports; each scout's own tie-breaking stream.
//!
//! Does not hold anything: the links a scout takes are tentative until `hold.rs` commits
//! its path. Whether to send scouts at all is `reserve`'s question (with `flood.rs`).

use super::{takes_over, Adj, Entry, Mesh, Prio, NONE};

/// SplitMix64: tiny, deterministic, good enough for tie-breaking among at most four links.
#[derive(Clone, Debug)]
pub(super) struct SplitMix64(pub(super) u64);

impl SplitMix64 {
    /// The tie-breaking stream of the `n`-th scout of a mesh seeded with `seed`: each
    /// scout draws from its own stream (module doc). The start state is one SplitMix64
    /// output of a state `n` golden-ratio steps from `seed`, so nearby `n` start far apart.
    fn stream(seed: u64, n: u64) -> SplitMix64 {
        let mut g = SplitMix64(seed.wrapping_add(n.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        SplitMix64(g.next())
    }

    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform-ish in `0..n` (the remainder of one draw). A scout picks among 2-4 links:
    /// powers of two take a mask instead of a 64-bit division (the same value).
    pub(super) fn below(&mut self, n: usize) -> usize {
        let x = self.next();
        let r = if n.is_power_of_two() { x & (n as u64 - 1) } else { x % n as u64 };
        r as usize
    }
}

/// Counts over the scouts of one `reserve` call.
#[derive(Default)]
pub(super) struct Tally {
    pub(super) moves: u32,
    pub(super) misroutes: u32,
    pub(super) backoffs: u32,
}

impl Mesh {
    /// Fill `ports` with the usable ports of `entry`'s kind, best first: free before
    /// preemptible, then nearest to the target (Venice: the nearest free entry point),
    /// then lowest index.
    pub(super) fn order_ports(&mut self, chip: u32, entry: Entry, prio: Prio, preempt: bool) {
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
    pub(super) fn walk(&mut self, entry: u32, target: u32, prio: Prio, preempt: bool, t: &mut Tally) -> bool {
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
    pub(super) fn adj_link(&self, a: u32, b: u32) -> u32 {
        let link = Adj::link_between(&self.adj, a, b);
        debug_assert_eq!(link, self.topo.link(a, b));
        link
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
}

#[cfg(test)]
mod tests {
    use super::super::test_util::{at, cfg, force, mesh, resources, routers};
    use super::super::{MeshConfig, Reserved};
    use super::*;

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
}
