//! The mesh's geometry and resource numbering: routers (numbered like chips, channel-major),
//! their neighbours and the links between them, the chip and port links, where each
//! controller port attaches and which ports a scout may start from; `Adj`, the per-router
//! neighbour table a scout steps by.
//!
//! Does not hold any state: who holds a resource is `Mesh::holder` (`hold.rs`).

use super::Entry;

/// Geometry and resource numbering. Routers are numbered like chips, channel-major:
/// router `k` is at row `k % rows`, column `k / rows`, beside chip `k`. Resources share one
/// id space: horizontal mesh links, vertical mesh links, chip links, port links.
#[derive(Copy, Clone, Debug)]
pub(super) struct Topo {
    pub(super) rows: u32,
    pub(super) cols: u32,
    /// First vertical link id (= number of horizontal links).
    pub(super) v0: u32,
    /// First chip link id (= number of mesh links).
    pub(super) chip0: u32,
    /// First port link id.
    pub(super) port0: u32,
    pub(super) io_ports: u32,
    pub(super) gc_ports: u32,
}

impl Topo {
    pub(super) fn routers(&self) -> u32 {
        self.rows * self.cols
    }

    pub(super) fn row(&self, k: u32) -> u32 {
        k % self.rows
    }

    pub(super) fn col(&self, k: u32) -> u32 {
        k / self.rows
    }

    pub(super) fn router(&self, row: u32, col: u32) -> u32 {
        col * self.rows + row
    }

    pub(super) fn dist(&self, a: u32, b: u32) -> u32 {
        self.row(a).abs_diff(self.row(b)) + self.col(a).abs_diff(self.col(b))
    }

    /// The mesh link between 4-neighbours `a` and `b`.
    pub(super) fn link(&self, a: u32, b: u32) -> u32 {
        let (ra, ca, rb, cb) = (self.row(a), self.col(a), self.row(b), self.col(b));
        if ra == rb {
            assert!(ca.abs_diff(cb) == 1, "routers {a} and {b} are not neighbours");
            ra * (self.cols - 1) + ca.min(cb)
        } else {
            assert!(ca == cb && ra.abs_diff(rb) == 1, "routers {a} and {b} are not neighbours");
            self.v0 + ra.min(rb) * self.cols + ca
        }
    }

    pub(super) fn chip_link(&self, k: u32) -> u32 {
        self.chip0 + k
    }

    pub(super) fn port_link(&self, port: u32) -> u32 {
        self.port0 + port
    }

    /// The edge router port `port` attaches to: I/O ports (0..io_ports) on the top edge,
    /// GC ports after them on the bottom edge, each kind spread evenly over the columns.
    pub(super) fn port_router(&self, port: u32) -> u32 {
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
    pub(super) fn kind_of_entry(&self, entry: Entry) -> usize {
        usize::from(entry == Entry::Gc && self.gc_ports > 0)
    }

    /// Index of `port`'s kind (0: I/O, 1: GC).
    pub(super) fn kind_of_port(&self, port: u32) -> usize {
        usize::from(port >= self.io_ports)
    }

    /// Ports a scout of kind `entry` may start from. Without GC ports, GC shares the I/O
    /// ports (plain Venice does not know GC from host I/O).
    pub(super) fn ports_of(&self, entry: Entry) -> std::ops::Range<u32> {
        match self.kind_of_entry(entry) {
            1 => self.io_ports..self.io_ports + self.gc_ports,
            _ => 0..self.io_ports,
        }
    }

    /// The neighbours of `k` by direction: up, down, left, right (`None` at an edge).
    pub(super) fn neighbours(&self, k: u32) -> [Option<u32>; 4] {
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
    pub(super) fn path_resources(self, port: u32, routers: &[u32]) -> impl Iterator<Item = u32> + '_ {
        std::iter::once(self.port_link(port))
            .chain(routers.windows(2).map(move |w| self.link(w[0], w[1])))
            .chain(routers.last().map(move |&k| self.chip_link(k)))
    }
}

/// A router's neighbours by direction: slots up, down, left, right (`Topo::neighbours`
/// order), `exists` bit `i` set where slot `i` has one. An empty slot names the router
/// itself and link 0, so it can be read like the others and masked out.
#[derive(Copy, Clone, Debug)]
pub(super) struct Adj {
    pub(super) nb: [u32; 4],
    pub(super) link: [u32; 4],
    pub(super) exists: u8,
}

impl Adj {
    /// The link between neighbours `a` and `b`, from the table `adj`.
    pub(super) fn link_between(adj: &[Adj], a: u32, b: u32) -> u32 {
        let x = &adj[a as usize];
        let i = (0..4).find(|&i| x.exists >> i & 1 != 0 && x.nb[i] == b).expect("routers are neighbours");
        x.link[i]
    }

    pub(super) fn of(t: &Topo, k: u32) -> Adj {
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

#[cfg(test)]
mod tests {
    use super::super::test_util::{at, mesh};

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
}
