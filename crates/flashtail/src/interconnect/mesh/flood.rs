//! The reachability test that lets `reserve` skip scouts that cannot succeed (the `mesh`
//! module doc): the usable mesh links and ports as bit masks over the routers, kept in step
//! with the holders by `hold.rs`, and a flood fill over them that is a few shifts per step.
//!
//! Does not route and ignores visit limits: a chip it finds reachable may still be out of
//! every scout's reach, which only the walk (`scout.rs`) tells. Above 64 routers or 64
//! ports there are no masks, and every scout walks.

use super::Topo;

/// The usable mesh links as bit masks over routers, for meshes of at most 64 routers: bit
/// `k` of a `down` mask is the link from router `k` to `k + 1` (the next row of its column),
/// bit `k` of a `right` mask the link from `k` to `k + rows` (the next column of its row).
/// Kept in step with `holder` by `Mesh::track`, so a flood fill over the free (or, for a
/// scout that may preempt, free or low-priority) links is a few shifts per step.
#[derive(Clone, Debug, Default)]
pub(super) struct Flood {
    pub(super) free_down: u64,
    pub(super) free_right: u64,
    pub(super) low_down: u64,
    pub(super) low_right: u64,
    /// Per mesh link: (router bit it is stored at, vertical).
    bit_of_link: Vec<(u8, bool)>,
    /// Per port: its router's bit.
    port_bit: Vec<u64>,
    /// Ports by state, bit `p` for port `p` (as the link sets for mesh links), and the
    /// ports of each kind (`Topo::kind_of_port`).
    pub(super) port_free: u64,
    pub(super) port_low: u64,
    kind_ports: [u64; 2],
}

impl Flood {
    pub(super) fn new(t: &Topo) -> Option<Flood> {
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
    pub(super) fn set_port(&mut self, port: u32, free: bool, low: bool) {
        put(&mut self.port_free, port, free);
        put(&mut self.port_low, port, low);
    }

    /// The routers of the ports of `kind` a scout may start from (free, or also held by
    /// low-priority owners with `takeover`).
    pub(super) fn usable_port_routers(&self, kind: usize, takeover: bool) -> u64 {
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
    pub(super) fn set(&mut self, link: u32, free: bool, low: bool) {
        let (k, vertical) = self.bit_of_link[link as usize];
        put(self.mask(false, vertical), u32::from(k), free);
        put(self.mask(true, vertical), u32::from(k), low);
    }

    /// The routers a scout could reach from `from` over links it may take (free, or also
    /// low-priority ones with `takeover`), ignoring visit limits: a superset of where any
    /// walk can go. Links are held whole, so reachability is symmetric. The fill stops
    /// early once it meets a router of `stop` (pass 0 for the whole set).
    pub(super) fn reach(&self, from: u32, rows: u32, takeover: bool, stop: u64) -> u64 {
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

#[cfg(test)]
mod tests {
    use super::super::test_util::{at, cfg, force, mesh, run_sequence_pruned};
    use super::super::{Entry, Mesh, MeshConfig, Prio, ScoutFail, SplitMix64};

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
}
